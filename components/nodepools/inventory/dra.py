"""Dynamic Resource Allocation objects (``resource.k8s.io/v1``) and "does this pod claim a GPU".

docs/design.md sections 6 and 7: a pod requests a GPU when one of its
``spec.resourceClaims`` names a ResourceClaim or ResourceClaimTemplate of its
namespace whose device requests use a GPU device class; a DeviceClass is a GPU
class when one of its CEL selectors names the NVIDIA DRA driver
(``gpu.nvidia.com``, NVIDIA/k8s-dra-driver-gpu) or the pack config lists it in
``gpuDeviceClasses``.

Shapes (kubernetes/api: resource/v1/types.go@v0.34.0): DeviceClass
``spec.selectors[].cel.expression``; ResourceClaim ``spec.devices.requests[]`` with
``exactly.deviceClassName`` or ``firstAvailable[].deviceClassName``;
ResourceClaimTemplate the same under ``spec.spec``. A pod's
``spec.resourceClaims[]`` entries carry ``resourceClaimName`` or
``resourceClaimTemplateName``.

The pod readers judge one pod spec without the rest of the stack, so the stack
readers publish the stack's claims here (``index_stack``) and ``claims_gpu``
consults the last index: one stack is judged at a time, as with the pack's
cached ``StackView``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, plain

NVIDIA_GPU_DRIVER = "gpu.nvidia.com"


def device_class_is_gpu(props: Any) -> Any:
    """True when a selector names the NVIDIA GPU driver; UNKNOWN when a selector is unknown."""
    selectors = dig(props, "spec", "selectors")
    if is_unknown(selectors):
        return UNKNOWN
    answer: Any = False
    for selector in as_list(selectors):
        expression = dig(selector, "cel", "expression")
        if is_unknown(expression):
            answer = UNKNOWN
        elif isinstance(expression, str) and NVIDIA_GPU_DRIVER in expression:
            return True
    return answer


def requested_classes(devices: Any) -> Any:
    """Device class names of a claim spec's ``devices.requests`` (UNKNOWN when any is unknown)."""
    requests = dig(devices, "requests")
    if is_unknown(requests):
        return UNKNOWN
    names: list[Any] = []
    for request in as_list(requests):
        names.append(dig(request, "exactly", "deviceClassName"))
        alternatives = dig(request, "firstAvailable")
        names.extend(UNKNOWN if is_unknown(alternatives) else
                     [dig(a, "deviceClassName") for a in as_list(alternatives)])
    if any(is_unknown(n) for n in names):
        return UNKNOWN
    return [n for n in names if isinstance(n, str)]


@dataclass
class DraIndex:
    """The stack's device classes and claims; names per namespace."""

    gpu_classes: dict[str, Any] = field(default_factory=dict)  # class name -> True/False/UNKNOWN
    claims: dict[tuple[str, str], Any] = field(default_factory=dict)  # (namespace, name) -> class names
    templates: dict[tuple[str, str], Any] = field(default_factory=dict)
    extra_gpu_classes: frozenset[str] = frozenset()

    def is_gpu_class(self, name: str) -> Any:
        return True if name in self.extra_gpu_classes else self.gpu_classes.get(name, False)


def read_index(resources: Iterable[Any], extra_gpu_classes: Iterable[str] = ()) -> DraIndex:
    """Index the DRA objects among ``resources`` (anything with type and props/inputs)."""
    index = DraIndex(extra_gpu_classes=frozenset(extra_gpu_classes))
    for resource in resources:
        get = resource.get if isinstance(resource, dict) else (lambda k, d=None: getattr(resource, k, d))
        type_ = get("type") or get("resource_type")
        if type_ not in v.DRA_TYPES:
            continue
        raw = get("props") if get("props") is not None else get("inputs")
        props = as_dict(plain(raw))
        name = dig(props, "metadata", "name", default=get("name"))
        namespace = dig(props, "metadata", "namespace", default="default")
        if not isinstance(name, str) or not isinstance(namespace, str):
            continue
        if type_ == v.TYPE_DRA_DEVICE_CLASS:
            index.gpu_classes[name] = device_class_is_gpu(props)
        elif type_ == v.TYPE_DRA_RESOURCE_CLAIM:
            index.claims[(namespace, name)] = requested_classes(dig(props, "spec", "devices"))
        else:
            index.templates[(namespace, name)] = requested_classes(dig(props, "spec", "spec", "devices"))
    return index


_current: list[DraIndex] = [DraIndex()]
# The pack config's gpuDeviceClasses, set by the pack before it reads a stack.
_extra: list[frozenset[str]] = [frozenset()]


def set_gpu_device_classes(names: Iterable[str]) -> None:
    _extra[0] = frozenset(names)


def gpu_device_classes() -> frozenset[str]:
    return _extra[0]


def index_stack(resources: Iterable[Any], extra_gpu_classes: Iterable[str] | None = None) -> DraIndex:
    """Read and publish the DRA index of the stack being judged (extra GPU classes:
    the configured ``gpuDeviceClasses`` unless given)."""
    _current[0] = read_index(resources, _extra[0] if extra_gpu_classes is None else extra_gpu_classes)
    return _current[0]


def current_index() -> DraIndex:
    return _current[0]


def claims_gpu(spec: Any, namespace: Any = None, index: DraIndex | None = None) -> Any:
    """Whether the pod's resource claims target a GPU device class: True, False or UNKNOWN.
    A claim the stack does not declare is judged not to (preview cannot see it); with
    ``namespace`` None, claims of any namespace of that name count."""
    index = index or current_index()
    entries = dig(spec, "resourceClaims")
    if is_unknown(entries):
        return UNKNOWN
    answer: Any = False
    for entry in as_list(entries):
        for key, table in (("resourceClaimName", index.claims), ("resourceClaimTemplateName", index.templates)):
            ref = dig(entry, key)
            if is_unknown(ref):
                answer = UNKNOWN
            elif isinstance(ref, str):
                classes = [c for (ns, n), c in table.items() if n == ref and namespace in (None, ns)]
                for names in classes:
                    if is_unknown(names):
                        answer = UNKNOWN
                        continue
                    for name in names:
                        verdict = index.is_gpu_class(name)
                        if verdict is True:
                            return True
                        if is_unknown(verdict):
                            answer = UNKNOWN
    return answer
