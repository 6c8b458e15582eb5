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

A pod spec alone cannot say whether its claims target a GPU: the answer needs the
stack's claims and classes. ``read_index`` reads them once per stack into a
``DraIndex``, which the stack's readers hold (``placement.resources.Stack.dra``,
``policies.stack_view.StackView.dra``) and pass to every GPU-request question.
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
        names.extend([UNKNOWN] if is_unknown(alternatives) else
                     [dig(a, "deviceClassName") for a in as_list(alternatives)])
    if any(is_unknown(n) for n in names):
        return UNKNOWN
    return [n for n in names if isinstance(n, str)]


@dataclass(frozen=True)
class DraIndex:
    """The stack's device classes and claims, names per namespace, and the configured
    ``gpuDeviceClasses`` (``extra_gpu_classes``). Built by ``read_index``, never changed after."""

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


def claims_gpu(spec: Any, index: DraIndex, namespace: Any = None) -> Any:
    """Whether the pod's resource claims target a GPU device class of ``index`` (the stack's):
    True, False or UNKNOWN. A claim the stack does not declare is judged not to (preview
    cannot see it); with ``namespace`` None, claims of any namespace of that name count."""
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
