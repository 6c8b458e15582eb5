"""The workload contract: what a pod needs to land on a pool.

Plain Kubernetes-shaped dicts (camelCase, as pulumi-kubernetes accepts them in
``spec`` arguments), so app teams can paste them into any pod template or read
them from a stack output.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TYPE_CHECKING

from nodepools import vocabulary as v

if TYPE_CHECKING:
    from nodepools.spec.pool import PoolSpec


@dataclass(frozen=True)
class WorkloadContract:
    tolerations: list[dict[str, str]]
    node_affinity: dict[str, Any]
    node_selector: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {"tolerations": self.tolerations, "affinity": {"nodeAffinity": self.node_affinity},
                "nodeSelector": self.node_selector}


def workload_contract(pool: "PoolSpec") -> WorkloadContract:
    """Tolerations exactly for the pool's hard taints (Equal, with value: never a
    blanket ``Exists``) and a required node affinity pinning the pod to this pool
    by its ``nodepools.io/pool`` label."""
    tolerations = []
    for taint in pool.node_taints:
        if taint.effect.value not in v.HARD_TAINT_EFFECTS:
            continue
        toleration = {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect.value}
        if not taint.value:
            toleration = {"key": taint.key, "operator": "Exists", "effect": taint.effect.value}
        tolerations.append(toleration)
    affinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": v.LABEL_POOL, "operator": "In", "values": [pool.name]}]}
            ]
        }
    }
    return WorkloadContract(tolerations, affinity, {v.LABEL_POOL: pool.name})
