"""One stack as the plan, the placement analysis and every policy read it: ``StackModel``.

Built once per stack from its ``Resource``s and the settings the readings need (the date,
``nodeLabelSources``, ``gpuDeviceClasses``), it answers every question about the stack as a
whole, each in one place, so the plan and the pack cannot disagree:

- the namespace map (a Namespace's labels by its name; a Namespace whose name is unknown at
  preview keyed ``<its Pulumi name>``) and ``namespace_of``: a resource's own
  ``metadata.namespace``, else the Namespace of the stack its ``metadata`` depends on
  (``namespace: ns.metadata.name`` is unknown at preview, its property dependency is not);
- the one class resolver, ``class_of`` (docs/design.md section 2);
- the workloads with their namespace and class (``WorkloadRef``), the pools
  (``PoolRef``, ``pool_views``), which cluster each belongs to (``inventory.clusters``);
- the stack's DRA index (``inventory.dra``) and ``today``, the date rules judge by (an input:
  the pack's ``today`` config or the run's UTC date, filled at the edge that builds the model).

Links that are unknown at preview are followed through the engine's dependency graph.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cached_property
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.inventory.autoscaling import is_placeholder
from nodepools.inventory.clusters import Membership, membership
from nodepools.inventory.dra import DraIndex, read_index
from nodepools.inventory.pod_templates import PodTemplate, Workload
from nodepools.inventory.pools import PoolView, read_pool
from nodepools.inventory.resource import Resource
from nodepools.inventory.trainer import training_runtimes
from nodepools.inventory.tri import Tri
from nodepools.inventory.values import UNKNOWN, dig, is_unknown, known_str_map
from nodepools.inventory.workloads import is_workload_type, read_workload

UNKNOWN_CLUSTER = "<unknown cluster>"
ONLY_CLUSTER = "<the stack's cluster>"
_CLASS_ORDER = {c: i for i, c in enumerate(v.PoolClass)}


@dataclass(frozen=True)
class PoolRef:
    res: Resource
    view: PoolView
    cluster: str  # the cluster key; ONLY_CLUSTER / UNKNOWN_CLUSTER when it cannot be told


@dataclass(frozen=True)
class NamespaceRef:
    res: Resource
    key: str  # metadata.name, or "<pulumi name>" when auto-named or unknown
    labels: Any  # dict or UNKNOWN
    name_unknown: bool = False  # metadata.name is set but unknown at preview: it may be any literal name


@dataclass(frozen=True)
class WorkloadRef:
    res: Resource
    workload: Workload
    namespace: Any  # a namespace key (``StackModel.namespace_of``) or UNKNOWN
    pool_class: Any  # PoolClass, None (unresolved) or UNKNOWN (``StackModel.class_of``)


def _own_class_label(workload: Workload, template: PodTemplate | None) -> Any:
    """The class label a workload declares itself: ``template``'s, else (no template given) the
    first of its templates that has one, then its own metadata's."""
    if template is None:
        return workload.label(v.LABEL_WORKLOAD_CLASS)
    for labels in (template.labels, workload.labels):
        if is_unknown(labels):
            return UNKNOWN
        if v.LABEL_WORKLOAD_CLASS in labels:
            return labels[v.LABEL_WORKLOAD_CLASS]
    return None


class StackModel:
    """One stack, for the settings it is built with: ``today`` (the date every date-dependent
    reading uses), ``label_sources`` (nodeLabelSources: label prefixes agents add to nodes at
    run time, docs/design.md section 6) and ``gpu_device_classes`` (gpuDeviceClasses: DRA
    classes whose claims request a GPU, section 7). Everything it answers follows from them."""

    def __init__(self, resources: Iterable[Resource], *, today: date, label_sources: Iterable[str] = (),
                 gpu_device_classes: Iterable[str] = ()) -> None:
        if not isinstance(today, date):
            raise TypeError(f"today must be a datetime.date (the date is an input), got {today!r}")
        self.resources = tuple(resources)
        self.today = today
        self.label_sources = tuple(label_sources)
        self.gpu_device_classes = tuple(gpu_device_classes)

    def of_type(self, *types: str) -> list[Resource]:
        return [r for r in self.resources if r.type in types]

    @cached_property
    def clusters(self) -> list[Resource]:
        return self.of_type(*v.CLUSTER_RESOURCE_TYPES)

    @cached_property
    def priority_classes(self) -> list[Resource]:
        return self.of_type(v.TYPE_PRIORITY_CLASS)

    @cached_property
    def dra(self) -> DraIndex:
        """The stack's DRA claims and classes: pass it wherever a rule asks "requests a GPU"."""
        return read_index(self.resources, self.gpu_device_classes)

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

    def namespace_of(self, res: Resource) -> Any:
        """The namespace key of a namespaced resource: its ``metadata.namespace`` ("default" when
        absent), else the Namespace of the stack its ``metadata`` depends on, else UNKNOWN."""
        namespace = res.k8s_namespace
        if isinstance(namespace, str):
            return namespace
        for ref in self.namespaces.values():
            if res.depends_on(ref.res.urn, "metadata"):
                return ref.key
        return UNKNOWN

    def namespace_name(self, key: Any) -> str | None:
        """The literal namespace name behind ``key``; None when preview cannot know it (UNKNOWN, or a
        Namespace of the stack whose name is unknown)."""
        if not isinstance(key, str):
            return None
        ref = self.namespaces.get(key)
        return key if ref is None or isinstance(ref.res.k8s_name, str) else None

    def namespace_class_label(self, key: Any) -> Any:
        """The namespace's ``nodepools.io/workload-class`` label: a string, None, or UNKNOWN
        (also when a Namespace of the stack whose name is unknown may be this one)."""
        if is_unknown(key):
            return UNKNOWN
        ref = self.namespaces.get(key)
        if ref is None:
            return UNKNOWN if any(n.name_unknown for n in self.namespaces.values()) else None
        return UNKNOWN if is_unknown(ref.labels) else ref.labels.get(v.LABEL_WORKLOAD_CLASS)

    def in_namespace(self, type_: str, key: str) -> list[Resource]:
        return [r for r in self.of_type(type_) if self.namespace_of(r) == key]

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

    # --- the class ------------------------------------------------------------
    def class_of(self, workload: Workload, namespace: Any, template: PodTemplate | None = None) -> Any:
        """The workload's class (docs/design.md section 2), the one resolver: the pod template's
        ``nodepools.io/workload-class`` label (``template``'s when given, else the first template
        that has one), else the workload's own metadata's, else its namespace's (``namespace``, a
        key of ``namespace_of``), else the kind's default. A PoolClass; None when unresolved or not
        a class; UNKNOWN when a label that decides it is unknown at preview."""
        value = _own_class_label(workload, template)
        if value is None:
            value = self.namespace_class_label(namespace)
        if value is None:
            return workload.default_class
        if is_unknown(value):
            return UNKNOWN
        try:
            return v.PoolClass(value)
        except (ValueError, TypeError):
            return None

    # --- workloads ------------------------------------------------------------
    @cached_property
    def all_workloads(self) -> list[WorkloadRef]:
        """Every workload of the stack, in the stack's order, with its namespace and class."""
        refs = []
        runtimes = training_runtimes(self.resources)  # a TrainJob's pods come from its runtime (section 8)
        for res in self.resources:
            if not is_workload_type(res.type):
                continue
            workload = read_workload(res.type, res.props, res.urn, res.name, runtimes)
            namespace = self.namespace_of(res)
            refs.append(WorkloadRef(res, workload, namespace, self.class_of(workload, namespace)))
        return refs

    @cached_property
    def workloads(self) -> list[WorkloadRef]:
        """Every workload but warm-capacity placeholders: those are judged by ``schedulable``
        only (docs/design.md section 9.4), which reads ``all_workloads``. A workload that runs no
        pod by design (a RayJob on an existing cluster) is left to ``schedulable`` too."""
        return [ref for ref in self.all_workloads if not is_placeholder(ref.workload) and not ref.workload.runs_no_pods]

    # --- pools and clusters -----------------------------------------------------
    @cached_property
    def pool_views(self) -> tuple[PoolView, ...]:
        """The stack's pools, by class then name (registration order is asynchronous)."""
        views = [p for p in (read_pool(r.type, r.props, r.urn, r.name) for r in self.resources) if p is not None]
        views.sort(key=lambda p: (_CLASS_ORDER.get(p.pool_class, len(_CLASS_ORDER)), p.name, p.urn))
        return tuple(views)

    @cached_property
    def membership(self) -> Membership:
        return membership(self.resources, self.pool_views, [ref.res.urn for ref in self.all_workloads])

    def member(self, workload: Workload, pool: PoolView) -> Tri:
        """Whether ``pool`` is in ``workload``'s cluster."""
        return self.membership.member(workload.urn, pool.urn)

    @cached_property
    def pools(self) -> list[PoolRef]:
        by_urn = {r.urn: r for r in self.resources}
        clusters = self.membership
        known = [k for k in clusters.pool_cluster.values() if not is_unknown(k)]
        only = str(known[0]) if known else ONLY_CLUSTER
        refs = []
        for view in self.pool_views:
            cluster = clusters.pool_cluster.get(view.urn, UNKNOWN)
            if is_unknown(cluster):
                cluster = only if clusters.one_cluster else UNKNOWN_CLUSTER
            refs.append(PoolRef(by_urn[view.urn], view, str(cluster)))
        return refs
