"""The stack as placement sees it: pools, workloads, namespaces and which cluster each belongs to.

Accepts the resources of a mocked run (``nodepools.offline.engine.Registration``:
``.type .urn .name .inputs .provider .dependencies``), the policy pack's stack
resources (``pulumi_policy.PolicyResource``: ``.resource_type .props``,
``.provider.urn``, ``.dependencies`` as resources) or plain dicts with either
set of keys. A provider's own dependencies are known only when the provider is
among the resources too.

Which cluster a resource belongs to (the choice, documented for users):

- A pool belongs to the EKS/GKE cluster resource it depends on (its
  ``clusterName``/``cluster`` input comes from that cluster's outputs), else to
  the cluster its ``clusterName``/``cluster`` input names.
- A workload belongs to the cluster its Kubernetes provider depends on (the
  provider's kubeconfig is built from the cluster's outputs).
- A cluster is keyed by its ``name`` input when known, else by its URN.
- When both are known they must be equal. When the stack's pools name at most
  one cluster, a workload or pool whose cluster cannot be told is taken to be
  in it: the common one-cluster stack needs no provider wiring.
  Otherwise a workload whose cluster cannot be told is judged against every
  pool, but only "fits no pool at all" is concluded for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from nodepools import vocabulary as v
from nodepools.inventory.dra import DraIndex, read_index
from nodepools.inventory.pools import PoolView, read_pool
from nodepools.inventory.values import UNKNOWN, as_dict, is_unknown, known_str_map, plain
from nodepools.inventory.trainer import training_runtimes
from nodepools.inventory.workloads import Workload, read_workload
from nodepools.inventory.tri import Tri


_CLASS_ORDER = {c: i for i, c in enumerate(v.PoolClass)}


@dataclass(frozen=True)
class StackResource:
    type: str
    urn: str
    name: str
    props: Any
    provider: str  # provider URN, "" when none is recorded
    dependencies: tuple[str, ...]


def _urn_of(ref: Any) -> str:
    if ref is None or ref == "":
        return ""
    if isinstance(ref, str):
        # The engine's provider reference is "<urn>::<id>"; a URN itself contains "::".
        return ref.rsplit("::", 1)[0] if ref.count("::") > 3 else ref
    return str(getattr(ref, "urn", "") or "")


def normalize(resource: Any) -> StackResource:
    """One resource of any accepted shape."""
    get = resource.get if isinstance(resource, Mapping) else (lambda k, d=None: getattr(resource, k, d))
    props = get("inputs") if get("inputs") is not None else get("props")
    deps = tuple(_urn_of(d) for d in (get("dependencies") or ()))
    type_ = get("type") or get("resource_type") or ""  # pulumi_policy spells it resource_type
    return StackResource(str(type_), str(get("urn", "")), str(get("name", "")), props or {},
                         _urn_of(get("provider")), deps)


@dataclass(frozen=True)
class Stack:
    pools: tuple[PoolView, ...]
    workloads: tuple[Workload, ...]
    namespace_labels: Mapping[str, Mapping[str, Any]]
    pool_cluster: Mapping[str, Any]  # pool urn -> cluster key or UNKNOWN
    workload_cluster: Mapping[str, Any]  # workload urn -> cluster key or UNKNOWN
    one_cluster: bool
    # The stack's DRA claims and classes: whether a pod's claims request a GPU (inventory/dra.py).
    dra: DraIndex

    def member(self, workload: Workload, pool: PoolView) -> Tri:
        """Whether ``pool`` is in ``workload``'s cluster."""
        w, p = self.workload_cluster.get(workload.urn, UNKNOWN), self.pool_cluster.get(pool.urn, UNKNOWN)
        if not is_unknown(w) and not is_unknown(p):
            return w == p
        return True if self.one_cluster else UNKNOWN


def read_stack(resources: Iterable[Any], namespace_labels: Mapping[str, Mapping[str, Any]] | None = None,
               gpu_device_classes: Iterable[str] = ()) -> Stack:
    """The stack of ``resources``; ``gpu_device_classes`` are the configured
    ``gpuDeviceClasses`` (DRA classes whose claims request a GPU besides NVIDIA's)."""
    items = [normalize(r) for r in resources]
    by_urn = {r.urn: r for r in items}
    clusters = {r.urn: _cluster_key(r) for r in items if r.type in v.CLUSTER_RESOURCE_TYPES}

    def cluster_via_dependencies(resource: StackResource | None) -> Any:
        keys = [clusters[d] for d in (resource.dependencies if resource else ()) if d in clusters]
        return keys[0] if keys else UNKNOWN

    pools, pool_cluster = [], {}
    workloads, workload_cluster = [], {}
    runtimes = training_runtimes(items)  # a TrainJob's pods come from its runtime (section 8)
    for r in items:
        pool = read_pool(r.type, r.props, r.urn, r.name)
        if pool is not None:
            pools.append(pool)
            key = cluster_via_dependencies(r)
            if is_unknown(key) and pool.type == v.TYPE_KARPENTER_NODE_POOL:
                # A Kubernetes object: its cluster is its provider's, as for workloads.
                key = cluster_via_dependencies(by_urn.get(r.provider))
            named = pool.cluster if isinstance(pool.cluster, str) else UNKNOWN
            pool_cluster[r.urn] = named if is_unknown(key) else key
        workload = read_workload(r.type, r.props, r.urn, r.name, runtimes)
        if workload is not None:
            workloads.append(workload)
            workload_cluster[r.urn] = cluster_via_dependencies(by_urn.get(r.provider))
    known = {k for k in pool_cluster.values() if not is_unknown(k)}
    # Registration order is asynchronous: order pools by class then name, workloads by namespace then name.
    pools.sort(key=lambda p: (_CLASS_ORDER.get(p.pool_class, len(_CLASS_ORDER)), p.name, p.urn))
    workloads.sort(key=lambda w: (str(w.namespace), w.name, w.urn))
    return Stack(tuple(pools), tuple(workloads), {**_namespaces(items), **(namespace_labels or {})},
                 pool_cluster, workload_cluster, len(known) <= 1, read_index(items, gpu_device_classes))


def _cluster_key(resource: StackResource) -> str:
    name = as_dict(plain(resource.props)).get("name")
    return name if isinstance(name, str) else resource.urn


def _namespaces(items: list[StackResource]) -> dict[str, Any]:
    """Labels of the Namespaces the stack declares, by their metadata.name (UNKNOWN when unknown)."""
    out = {}
    for r in items:
        if r.type != v.TYPE_NAMESPACE:
            continue
        meta = as_dict(as_dict(plain(r.props)).get("metadata"))
        name = meta.get("name")
        if isinstance(name, str):
            out[name] = known_str_map(meta.get("labels"))
    return out
