"""PriorityClasses (docs/design.md section 2): services first, queued work last but still autoscaled.

- resident and gpu-inference outrank batch and gpu-training, so on a shared node
  the scheduler evicts queued work, never a service;
- batch uses ``preemptionPolicy: Never``: it waits ahead of lower priorities but
  never evicts a running pod to get in (docs/kubernetes-facts.md section 4);
- batch and gpu-training stay >= -10, cluster-autoscaler's
  ``expendable-pods-priority-cutoff``: below it a pending pod never triggers
  scale-up, and a scale-to-zero pool would never wake (docs/kubernetes-facts.md 1.5);
- gpu-training keeps ``PreemptLowerPriority`` so it can displace deliberate
  low-priority filler pods (overprovisioning placeholders, below -10).
- no class is ``globalDefault``: a pod must name its class (priority-class-assigned).
"""
from __future__ import annotations

from typing import Any

from nodepools.vocabulary import PRIORITY_CLASS_NAMES, PoolClass

PREEMPT_LOWER = "PreemptLowerPriority"
NEVER = "Never"

# (value, preemptionPolicy, description) per class.
PRIORITY_TABLE: dict[PoolClass, tuple[int, str, str]] = {
    PoolClass.RESIDENT: (1_000_000, PREEMPT_LOWER, "Always-on services on the resident pool."),
    PoolClass.GPU_INFERENCE: (900_000, PREEMPT_LOWER, "Model serving on gpu-inference pools."),
    PoolClass.BATCH: (0, NEVER, "Bursty batch jobs: never preempt, still trigger autoscaler scale-up."),
    PoolClass.GPU_TRAINING: (-5, PREEMPT_LOWER,
                             "Spot GPU training: lowest queued class, still above the autoscaler's -10 cutoff."),
}


def priority_classes() -> list[dict[str, Any]]:
    """Every class's PriorityClass (all four, so workloads may name any of them)."""
    out = []
    for pool_class, (value, policy, description) in PRIORITY_TABLE.items():
        out.append({
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": PRIORITY_CLASS_NAMES[pool_class]},
            "value": value,
            "preemptionPolicy": policy,
            "globalDefault": False,
            "description": description,
        })
    return out
