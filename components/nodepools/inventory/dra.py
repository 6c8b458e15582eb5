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
``DraIndex``, which the stack model holds (``inventory.stack_model.StackModel.dra``) and
passes to every GPU-request question.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.inventory.resource import Resource
from nodepools.inventory.values import UNKNOWN, as_list, dig, is_unknown

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


ALL = "All"  # allocationMode All: every matching device of the node


def _count(request: Any) -> Any:
    """GPUs one request (or sub-request) asks for: ``count`` (default 1), ``ALL``, or UNKNOWN."""
    mode, count = dig(request, "allocationMode"), dig(request, "count", default=1)
    if is_unknown(mode) or (mode != ALL and is_unknown(count)):
        return UNKNOWN
    if mode == ALL:
        return ALL
    # A count that is no positive number is refused by the API server's validation; read it as the default.
    return float(count) if isinstance(count, (int, float)) and not isinstance(count, bool) and count > 0 else 1.0


def requested_devices(devices: Any) -> Any:
    """A claim spec's ``devices.requests``: per request, its alternatives as (device class, count)
    pairs (``exactly`` is one alternative, ``firstAvailable`` lists several); UNKNOWN when unknown."""
    requests = dig(devices, "requests")
    if is_unknown(requests):
        return UNKNOWN
    out: list[Any] = []
    for request in as_list(requests):
        exactly, alternatives = dig(request, "exactly"), dig(request, "firstAvailable")
        if is_unknown(request) or is_unknown(exactly) or is_unknown(alternatives):
            out.append(UNKNOWN)
            continue
        options = ([exactly] if exactly is not None else []) + as_list(alternatives)
        out.append(tuple((dig(o, "deviceClassName"), _count(o)) for o in options))
    return out


@dataclass(frozen=True)
class DraIndex:
    """The stack's device classes and claims, names per namespace, and the configured
    ``gpuDeviceClasses`` (``extra_gpu_classes``). Built by ``read_index``, never changed after."""

    gpu_classes: dict[str, Any] = field(default_factory=dict)  # class name -> True/False/UNKNOWN
    # (namespace, name) -> requested_devices of the claim (or template)
    claims: dict[tuple[str, str], Any] = field(default_factory=dict)
    templates: dict[tuple[str, str], Any] = field(default_factory=dict)
    extra_gpu_classes: frozenset[str] = frozenset()

    def is_gpu_class(self, name: str) -> Any:
        return True if name in self.extra_gpu_classes else self.gpu_classes.get(name, False)


def read_index(resources: Iterable[Resource], extra_gpu_classes: Iterable[str] = ()) -> DraIndex:
    """Index the DRA objects among ``resources``."""
    index = DraIndex(extra_gpu_classes=frozenset(extra_gpu_classes))
    for resource in resources:
        type_ = resource.type
        if type_ not in v.DRA_TYPES:
            continue
        props = resource.props
        name = dig(props, "metadata", "name", default=resource.name)
        namespace = dig(props, "metadata", "namespace", default="default")
        if not isinstance(name, str) or not isinstance(namespace, str):
            continue
        if type_ == v.TYPE_DRA_DEVICE_CLASS:
            index.gpu_classes[name] = device_class_is_gpu(props)
        elif type_ == v.TYPE_DRA_RESOURCE_CLAIM:
            index.claims[(namespace, name)] = requested_devices(dig(props, "spec", "devices"))
        else:
            index.templates[(namespace, name)] = requested_devices(dig(props, "spec", "spec", "devices"))
    return index


def _claimed(spec: Any, index: DraIndex, namespace: Any) -> Any:
    """Per device request of the pod's claims, its alternatives; UNKNOWN entries where preview cannot see."""
    entries = dig(spec, "resourceClaims")
    if is_unknown(entries):
        return [UNKNOWN]
    out: list[Any] = []
    for entry in as_list(entries):
        for key, table in (("resourceClaimName", index.claims), ("resourceClaimTemplateName", index.templates)):
            ref = dig(entry, key)
            if is_unknown(ref):
                out.append(UNKNOWN)
            elif isinstance(ref, str):
                for requests in [r for (ns, n), r in table.items() if n == ref and namespace in (None, ns)]:
                    out.extend([UNKNOWN] if is_unknown(requests) else requests)
    return out


def _gpu_alternatives(request: Any, index: DraIndex) -> tuple[list[Any], bool]:
    """(counts of the GPU alternatives of one request, whether some alternative is undecided)."""
    if is_unknown(request):
        return [], True
    counts, open_ = [], False
    for name, count in request:
        verdict = UNKNOWN if is_unknown(name) else (index.is_gpu_class(name) if isinstance(name, str) else False)
        if verdict is True:
            counts.append(count)
        open_ = open_ or is_unknown(verdict)
    return counts, open_


def claims_gpu(spec: Any, index: DraIndex, namespace: Any = None) -> Any:
    """Whether the pod's resource claims target a GPU device class of ``index`` (the stack's):
    True, False or UNKNOWN. A claim the stack does not declare is judged not to (preview
    cannot see it); with ``namespace`` None, claims of any namespace of that name count."""
    answer: Any = False
    for request in _claimed(spec, index, namespace):
        counts, open_ = _gpu_alternatives(request, index)
        if counts:
            return True
        answer = UNKNOWN if open_ else answer
    return answer


@dataclass(frozen=True)
class GpuClaim:
    """The GPUs a pod's DRA claims take on one node (docs/design.md sections 8 and 9): at least
    ``count`` (each GPU request's ``count``, 1 for ``allocationMode: All``, which also takes
    ``whole_node``), ``open_`` when a claim, class or count preview cannot see may add more."""

    count: float
    whole_node: bool
    open_: bool

    def describe(self) -> str:
        if self.whole_node:
            return "every GPU of a node"
        return f"{self.count:g} GPU{'s' if self.count != 1 else ''}"


def claimed_gpus(spec: Any, index: DraIndex, namespace: Any = None) -> GpuClaim:
    """The GPUs the pod's claims take; of several alternatives (``firstAvailable``) the smallest."""
    total, whole, open_ = 0.0, False, False
    for request in _claimed(spec, index, namespace):
        counts, undecided = _gpu_alternatives(request, index)
        open_ = open_ or undecided or any(is_unknown(c) for c in counts)
        # Every request takes one device at least, whatever its unknown count.
        least = [1.0 if c == ALL or is_unknown(c) else c for c in counts]
        if least:
            total += min(least)
            whole = whole or all(c == ALL for c in counts)
    return GpuClaim(total, whole, open_)
