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
from nodepools.inventory.dra_classes import ClassKind, class_kind, device_class_is_gpu, published_classes, \
    selected_profile
from nodepools.inventory.resource import Resource
from nodepools.inventory.values import UNKNOWN, as_list, dig, is_unknown

__all__ = ["ALL", "DraIndex", "GpuAlternative", "GpuClaim", "claimed_gpus", "claims_gpu", "device_class_is_gpu",
           "read_index", "requested_devices"]


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
    """A claim spec's ``devices.requests``: per request, its alternatives as (device class, count,
    the MIG profile its own selectors name or None) (``exactly`` is one alternative,
    ``firstAvailable`` lists several); UNKNOWN when unknown."""
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
        out.append(tuple((dig(o, "deviceClassName"), _count(o), selected_profile(dig(o, "selectors")))
                         for o in options))
    return out


@dataclass(frozen=True)
class DraIndex:
    """The stack's device classes and claims, names per namespace, and the configured
    ``gpuDeviceClasses`` (``extra_gpu_classes``). Built by ``read_index``, never changed after."""

    gpu_classes: dict[str, Any] = field(default_factory=dict)  # class name -> True/False/UNKNOWN
    kinds: dict[str, ClassKind] = field(default_factory=dict)  # GPU class name -> whole GPUs or MIG slices
    # (namespace, name) -> requested_devices of the claim (or template)
    claims: dict[tuple[str, str], Any] = field(default_factory=dict)
    templates: dict[tuple[str, str], Any] = field(default_factory=dict)
    extra_gpu_classes: frozenset[str] = frozenset()

    def is_gpu_class(self, name: str) -> Any:
        return True if name in self.extra_gpu_classes else self.gpu_classes.get(name, False)

    def kind(self, name: str) -> ClassKind:
        """Whole GPUs (also for a gpuDeviceClasses name the stack does not declare) or MIG slices."""
        return self.kinds.get(name, ClassKind())


def read_index(resources: Iterable[Resource], extra_gpu_classes: Iterable[str] = ()) -> DraIndex:
    """Index the DRA objects among ``resources``."""
    index = DraIndex(extra_gpu_classes=frozenset(extra_gpu_classes))
    published: dict[str, ClassKind] = {}
    for resource in resources:
        type_, props = resource.type, resource.props
        if type_ not in v.DRA_TYPES:
            published.update(published_classes(type_, props))
            continue
        name = dig(props, "metadata", "name", default=resource.name)
        namespace = dig(props, "metadata", "namespace", default="default")
        if not isinstance(name, str) or not isinstance(namespace, str):
            continue
        if type_ == v.TYPE_DRA_DEVICE_CLASS:
            index.gpu_classes[name] = device_class_is_gpu(props)
            if index.gpu_classes[name] is True:
                index.kinds[name] = class_kind(props)
        elif type_ == v.TYPE_DRA_RESOURCE_CLAIM:
            index.claims[(namespace, name)] = requested_devices(dig(props, "spec", "devices"))
        else:
            index.templates[(namespace, name)] = requested_devices(dig(props, "spec", "spec", "devices"))
    for name, kind in published.items():  # a class the stack declares is read from its declaration
        if name not in index.gpu_classes:
            index.gpu_classes[name], index.kinds[name] = True, kind
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


@dataclass(frozen=True)
class GpuAlternative:
    """One way a device request is met: ``count`` devices (a number, ``ALL`` or UNKNOWN) of whole
    GPUs, or of MIG slices (``mig``) of ``profile`` (None: any profile)."""

    count: Any
    mig: bool = False
    profile: str | None = None

    @property
    def least(self) -> float:
        """Devices it takes at least: every request takes one, whatever its unknown count."""
        return 1.0 if self.count == ALL or is_unknown(self.count) else float(self.count)


def _gpu_alternatives(request: Any, index: DraIndex) -> tuple[list[GpuAlternative], bool]:
    """(the GPU alternatives of one request, whether some alternative is undecided)."""
    if is_unknown(request):
        return [], True
    found, open_ = [], False
    for name, count, profile in request:
        verdict = UNKNOWN if is_unknown(name) else (index.is_gpu_class(name) if isinstance(name, str) else False)
        if verdict is True:
            kind = index.kind(name)
            found.append(GpuAlternative(count, kind.mig, (kind.profile or profile) if kind.mig else None))
        open_ = open_ or is_unknown(verdict)
    return found, open_


def claims_gpu(spec: Any, index: DraIndex, namespace: Any = None) -> Any:
    """Whether the pod's resource claims target a GPU device class of ``index`` (the stack's):
    True, False or UNKNOWN. A claim the stack does not declare is judged not to (preview
    cannot see it); with ``namespace`` None, claims of any namespace of that name count."""
    answer: Any = False
    for request in _claimed(spec, index, namespace):
        found, open_ = _gpu_alternatives(request, index)
        if found:
            return True
        answer = UNKNOWN if open_ else answer
    return answer


@dataclass(frozen=True)
class GpuClaim:
    """The GPU devices a pod's DRA claims take on one node (docs/design.md sections 8, 9 and 11.4):
    per GPU request, its alternatives (whole GPUs or MIG slices; ``placement.claims`` picks, per
    pool, the smallest one the node offers); ``open_`` when a claim, class or count preview cannot
    see may add more. A request with ``allocationMode: All`` takes every matching device of the
    node, at least one."""

    requests: tuple[tuple[GpuAlternative, ...], ...] = ()
    open_: bool = False


def claimed_gpus(spec: Any, index: DraIndex, namespace: Any = None) -> GpuClaim:
    """The GPU requests of the pod's claims."""
    requests, open_ = [], False
    for request in _claimed(spec, index, namespace):
        found, undecided = _gpu_alternatives(request, index)
        open_ = open_ or undecided or any(is_unknown(a.count) for a in found)
        if found:
            requests.append(tuple(found))
    return GpuClaim(tuple(requests), open_)
