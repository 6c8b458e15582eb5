"""Tolerations and node selection for add-ons, derived from pool taints and labels."""
from __future__ import annotations

from typing import Any

from nodepools.spec.cluster import ClusterPools
from nodepools.spec.contract import tolerations_for
from nodepools.vocabulary import LABEL_POOL

__all__ = ["system_placement", "tolerations_for"]


def system_placement(cluster: ClusterPools) -> dict[str, Any]:
    """``nodeSelector`` and ``tolerations`` that put a controller on the system pool
    (``ClusterPools.system_pool``: the untainted resident pool, else the first resident)."""
    pool = cluster.system_pool
    return {"nodeSelector": {LABEL_POOL: pool.name}, "tolerations": tolerations_for(pool.node_taints)}
