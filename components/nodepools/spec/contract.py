"""The workload contract: what a pod needs to land on a pool.

Plain Kubernetes-shaped dicts (camelCase, as pulumi-kubernetes accepts them in
``spec`` arguments), so app teams can paste them into any pod template or read
them from a stack output.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.spec.pool_fields import PoolFields, Taint
from nodepools.spec.sharing import gpu_resource


@dataclass(frozen=True)
class WorkloadContract:
    tolerations: list[dict[str, str]]
    node_affinity: dict[str, Any]
    node_selector: dict[str, str]
    # The extended resource a pod requests for one GPU (or one share of one) on
    # this pool; None for CPU pools. Kept out of ``as_dict`` (that is pod-spec
    # shaped); ``gpu_limits`` gives the container ``resources.limits`` entry.
    gpu_resource: str | None = None

    def gpu_limits(self, count: int = 1) -> dict[str, str]:
        return {self.gpu_resource: str(count)} if self.gpu_resource else {}

    def as_dict(self) -> dict[str, Any]:
        return {"tolerations": self.tolerations, "affinity": {"nodeAffinity": self.node_affinity},
                "nodeSelector": self.node_selector}


def tolerations_for(taints: Iterable[Taint]) -> list[dict[str, str]]:
    """One toleration per distinct taint, matching exactly that taint (key, value,
    effect; ``Exists`` only for a taint without value, and always on its own key):
    never a blanket toleration (docs/design.md ``no-blanket-tolerations``)."""
    out: list[dict[str, str]] = []
    for taint in taints:
        toleration = {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect.value}
        if not taint.value:
            toleration = {"key": taint.key, "operator": "Exists", "effect": taint.effect.value}
        if toleration not in out:
            out.append(toleration)
    return out


def workload_contract(pool: PoolFields) -> WorkloadContract:
    """Tolerations exactly for the pool's hard taints and a required node affinity
    pinning the pod to this pool by its ``nodepools.io/pool`` label.

    The ``nvidia.com/gpu`` toleration is always explicit: a MIG pod requests
    ``nvidia.com/mig-<profile>``, and the ExtendedResourceToleration admission
    plugin only adds tolerations for taints keyed by a requested resource's name
    (docs/kubernetes-facts.md section 5), so nothing else would let it past the GPU taint."""
    tolerations = tolerations_for(t for t in pool.node_taints if t.effect.value in v.HARD_TAINT_EFFECTS)
    affinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": v.LABEL_POOL, "operator": "In", "values": [pool.name]}]}
            ]
        }
    }
    return WorkloadContract(tolerations, affinity, {v.LABEL_POOL: pool.name}, gpu_resource(pool))
