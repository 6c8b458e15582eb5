"""The whole stack as stack policies see it: pools per cluster, workloads with their
resolved class, namespaces and what lives in them, and the placement analysis
(``nodepools.placement``) over the same resources.

Links that are unknown during preview are followed through the engine's
dependency graph: a resource whose ``metadata`` depends on a Namespace of the
stack lives in that namespace; pools and workloads belong to clusters as the
placement analysis decides (``nodepools.placement.resources``).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Iterable

from nodepools.inventory.autoscaling import is_placeholder
from nodepools.inventory.dra import DraIndex
from nodepools.inventory.pools import PoolView
from nodepools.inventory.trainer import training_runtimes
from nodepools.inventory.values import UNKNOWN, dig, is_unknown, known_str_map
from nodepools.inventory.workloads import Workload, is_workload_type, read_workload
from nodepools.placement import PlacementReport, analyze_stack
from nodepools.placement.resources import Stack, read_stack
from nodepools.policies.base import Finding, Res
from nodepools import vocabulary as v

UNKNOWN_CLUSTER = "<unknown cluster>"
ONLY_CLUSTER = "<the stack's cluster>"


@dataclass(frozen=True)
class PoolRef:
    res: Res
    view: PoolView
    cluster: str  # placement's cluster key; ONLY_CLUSTER / UNKNOWN_CLUSTER when it cannot be told


@dataclass(frozen=True)
class NamespaceRef:
    res: Res
    key: str  # metadata.name, or "<pulumi name>" when auto-named or unknown
    labels: Any  # dict or UNKNOWN
    name_unknown: bool = False  # metadata.name is set but unknown at preview: it may be any literal name


@dataclass(frozen=True)
class WorkloadRef:
    res: Res
    workload: Workload
    namespace: Any  # a namespace key or UNKNOWN
    pool_class: Any  # PoolClass, None (unresolved) or UNKNOWN


class StackView:
    """One stack as its policies read it, for the settings it is built with: ``label_sources``
    (nodeLabelSources: label prefixes agents add to nodes at run time, docs/design.md
    section 6) and ``gpu_device_classes`` (gpuDeviceClasses: DRA classes whose claims request
    a GPU, section 7). Everything it reads follows from those three arguments."""

    def __init__(self, resources: Iterable[Res], label_sources: Iterable[str] = (),
                 gpu_device_classes: Iterable[str] = ()) -> None:
        self.resources = list(resources)
        self.label_sources = tuple(label_sources)
        self.gpu_device_classes = tuple(gpu_device_classes)

    def of_type(self, *types: str) -> list[Res]:
        return [r for r in self.resources if r.type in types]

    # --- clusters, pools and placement ----------------------------------------
    @cached_property
    def clusters(self) -> list[Res]:
        return self.of_type(*v.CLUSTER_RESOURCE_TYPES)

    @cached_property
    def placement_stack(self) -> Stack:
        """Pools, workloads and cluster membership as the placement analysis reads them."""
        return read_stack(self.resources, gpu_device_classes=self.gpu_device_classes)

    @property
    def dra(self) -> DraIndex:
        """The stack's DRA claims and classes: pass it wherever a rule asks "requests a GPU"."""
        return self.placement_stack.dra

    @cached_property
    def report(self) -> PlacementReport:
        return analyze_stack(self.placement_stack, self.label_sources)

    @cached_property
    def pools(self) -> list[PoolRef]:
        by_urn = {r.urn: r for r in self.resources}
        stack = self.placement_stack
        known = [k for k in stack.pool_cluster.values() if not is_unknown(k)]
        only = str(known[0]) if known else ONLY_CLUSTER
        refs = []
        for view in stack.pools:
            cluster = stack.pool_cluster.get(view.urn, UNKNOWN)
            if is_unknown(cluster):
                cluster = only if stack.one_cluster else UNKNOWN_CLUSTER
            refs.append(PoolRef(by_urn[view.urn], view, str(cluster)))
        return refs

    # --- namespaces -----------------------------------------------------------
    @cached_property
    def namespaces(self) -> dict[str, NamespaceRef]:
        out = {}
        for res in self.of_type(v.TYPE_NAMESPACE):
            name = res.k8s_name
            key = name if isinstance(name, str) else f"<{res.name}>"
            meta = res.props.get("metadata")
            out[key] = NamespaceRef(res, key, known_str_map(dig(meta, "labels")), is_unknown(dig(meta, "name")))
        return out

    def may_hold(self, type_: str, ref: NamespaceRef) -> bool:
        """Some resource of ``type_`` may live in ``ref`` though preview cannot place it
        there: its own namespace is unknown, or ``ref``'s name is unknown and the
        resource names a namespace no other Namespace of the stack has."""
        others = {k for k, n in self.namespaces.items() if n is not ref}
        for res in self.of_type(type_):
            namespace = self.namespace_of(res)
            if is_unknown(namespace) or (ref.name_unknown and namespace not in others and namespace != ref.key):
                return True
        return False

    def namespace_of(self, res: Res) -> Any:
        """The namespace key of a namespaced resource, or UNKNOWN."""
        namespace = res.k8s_namespace
        if isinstance(namespace, str):
            return namespace
        for ref in self.namespaces.values():
            if res.depends_on(ref.res.urn, "metadata"):
                return ref.key
        return UNKNOWN

    def in_namespace(self, type_: str, key: str) -> list[Res]:
        return [r for r in self.of_type(type_) if self.namespace_of(r) == key]

    def namespace_class_label(self, key: Any) -> Any:
        """The namespace's ``nodepools.io/workload-class`` label: a string, None, or UNKNOWN
        (also when a Namespace of the stack whose name is unknown may be this one)."""
        if is_unknown(key):
            return UNKNOWN
        ref = self.namespaces.get(key)
        if ref is None:
            return UNKNOWN if any(n.name_unknown for n in self.namespaces.values()) else None
        return UNKNOWN if is_unknown(ref.labels) else ref.labels.get(v.LABEL_WORKLOAD_CLASS)

    # --- workloads ------------------------------------------------------------
    @cached_property
    def workloads(self) -> list[WorkloadRef]:
        """Every workload but warm-capacity placeholders: those are judged by ``schedulable``
        only (docs/design.md section 9.4), which reads ``all_workloads``. A workload with no pod
        template runs no pod (a RayJob on an existing cluster): only ``schedulable`` speaks of it."""
        return [ref for ref in self.all_workloads if not is_placeholder(ref.workload) and ref.workload.templates]

    @cached_property
    def all_workloads(self) -> list[WorkloadRef]:
        refs = []
        runtimes = training_runtimes(self.resources)
        for res in self.resources:
            if not is_workload_type(res.type):
                continue
            workload = read_workload(res.type, res.props, res.urn, res.name, runtimes)
            namespace = self.namespace_of(res)
            refs.append(WorkloadRef(res, workload, namespace, self._resolve_class(workload, namespace)))
        return refs

    def explained(self, findings: Iterable[Finding]) -> list[Finding]:
        """Cannot-judge findings on a workload whose pods are unknown for a reason of its own
        (a TrainJob's runtime outside the stack) say that reason, whichever field the rule read."""
        reasons = {ref.res.urn: ref.workload.why_unknown for ref in self.all_workloads if ref.workload.why_unknown}
        return [replace(f, problem=reasons[f.urn]) if f.cannot_judge and f.urn in reasons else f for f in findings]

    def _resolve_class(self, workload: Workload, namespace: Any) -> Any:
        """docs/design.md section 2: pod template label, else the workload's, else its namespace's."""
        value = workload.label(v.LABEL_WORKLOAD_CLASS)
        if value is None:
            value = self.namespace_class_label(namespace)
        if value is None:
            return workload.default_class
        if is_unknown(value):
            return UNKNOWN
        try:
            return v.PoolClass(value)
        except ValueError:
            return None

    @cached_property
    def priority_classes(self) -> list[Res]:
        return self.of_type(v.TYPE_PRIORITY_CLASS)
