"""Which cluster each pool and each workload of a stack belongs to.

The choice, documented for users:

- A pool belongs to the EKS/GKE cluster resource it depends on (its
  ``clusterName``/``cluster`` input comes from that cluster's outputs), else to
  the cluster its ``clusterName``/``cluster`` input names. A Karpenter NodePool, a
  Kubernetes object, belongs to its provider's cluster, as a workload does.
- A workload belongs to the cluster its Kubernetes provider depends on (the
  provider's kubeconfig is built from the cluster's outputs). A provider's own
  dependencies are known only when the provider is among the resources too.
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
from nodepools.inventory.pools import PoolView
from nodepools.inventory.resource import Resource
from nodepools.inventory.tri import Tri
from nodepools.inventory.values import UNKNOWN, is_unknown


@dataclass(frozen=True)
class Membership:
    pool_cluster: Mapping[str, Any]  # pool urn -> cluster key or UNKNOWN
    workload_cluster: Mapping[str, Any]  # workload urn -> cluster key or UNKNOWN
    one_cluster: bool  # the stack's pools name at most one cluster

    def member(self, workload_urn: str, pool_urn: str) -> Tri:
        """Whether the pool is in the workload's cluster."""
        w, p = self.workload_cluster.get(workload_urn, UNKNOWN), self.pool_cluster.get(pool_urn, UNKNOWN)
        if not is_unknown(w) and not is_unknown(p):
            return w == p
        return True if self.one_cluster else UNKNOWN


def cluster_key(resource: Resource) -> str:
    """The key of an EKS/GKE cluster resource: its ``name`` input, else its URN."""
    name = resource.props.get("name")
    return name if isinstance(name, str) else resource.urn


def membership(resources: Iterable[Resource], pools: Iterable[PoolView], workload_urns: Iterable[str]) -> Membership:
    """The clusters of ``pools`` and of the workloads ``workload_urns`` among ``resources``."""
    by_urn = {r.urn: r for r in resources}
    clusters = {r.urn: cluster_key(r) for r in by_urn.values() if r.type in v.CLUSTER_RESOURCE_TYPES}

    def via_dependencies(resource: Resource | None) -> Any:
        keys = [clusters[d] for d in (resource.dependencies if resource else ()) if d in clusters]
        return keys[0] if keys else UNKNOWN

    pool_cluster = {}
    for pool in pools:
        resource = by_urn[pool.urn]
        key = via_dependencies(resource)
        if is_unknown(key) and pool.type == v.TYPE_KARPENTER_NODE_POOL:
            key = via_dependencies(by_urn.get(resource.provider))
        named = pool.cluster if isinstance(pool.cluster, str) else UNKNOWN
        pool_cluster[pool.urn] = named if is_unknown(key) else key
    workload_cluster = {urn: via_dependencies(by_urn.get(by_urn[urn].provider)) for urn in workload_urns}
    known = {k for k in pool_cluster.values() if not is_unknown(k)}
    return Membership(pool_cluster, workload_cluster, len(known) <= 1)
