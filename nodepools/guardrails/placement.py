"""Tolerations and node selection for add-ons, derived from pool taints and labels."""
from __future__ import annotations

from typing import Any, Iterable

from nodepools.spec.cluster import ClusterPools
from nodepools.spec.pool import Taint
from nodepools.vocabulary import LABEL_POOL


def tolerations_for(taints: Iterable[Taint]) -> list[dict[str, Any]]:
    """One toleration per distinct taint, matching exactly that taint (key, value,
    effect): never a blanket ``Exists`` on an empty key (design.md no-blanket-tolerations)."""
    out: list[dict[str, Any]] = []
    for taint in taints:
        toleration: dict[str, Any] = {"key": taint.key, "operator": "Equal", "value": taint.value,
                                      "effect": taint.effect.value}
        if not taint.value:
            toleration = {"key": taint.key, "operator": "Exists", "effect": taint.effect.value}
        if toleration not in out:
            out.append(toleration)
    return out


def system_placement(cluster: ClusterPools) -> dict[str, Any]:
    """``nodeSelector`` and ``tolerations`` that put a controller on the system pool
    (``ClusterPools.system_pool``: the untainted resident pool, else the first resident)."""
    pool = cluster.system_pool
    return {"nodeSelector": {LABEL_POOL: pool.name}, "tolerations": tolerations_for(pool.node_taints)}
