"""Tolerations and node selection for add-ons, derived from pool taints and labels."""
from __future__ import annotations

from typing import Any

from nodepools.spec.cluster import ClusterPools
from nodepools.spec.contract import tolerations_for
from nodepools.vocabulary import LABEL_POOL

__all__ = ["system_placement", "tolerations_for"]


def system_placement(cluster: ClusterPools) -> dict[str, Any]:
    """``nodeSelector`` and ``tolerations`` that put a controller (cluster-autoscaler,
    Kueue, Karpenter) on the system nodes: the cluster's own ``system_nodes`` when
    declared (plus the taints of the resident pool they select, if they select one),
    else ``ClusterPools.system_pool`` (the untainted resident pool, else the first resident)."""
    pool = cluster.system_pool
    own = tolerations_for(pool.node_taints) if pool is not None else []
    if cluster.system_nodes is not None:
        extra = [t.as_k8s() for t in cluster.system_nodes.tolerations]
        return {"nodeSelector": dict(cluster.system_nodes.node_selector),
                "tolerations": own + [t for t in extra if t not in own]}
    assert pool is not None  # ClusterPools refuses a platform with neither
    return {"nodeSelector": {LABEL_POOL: pool.name}, "tolerations": own}
