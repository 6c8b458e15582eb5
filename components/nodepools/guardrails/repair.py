"""Node repair of Karpenter pools: one feature gate for the whole controller (docs/design.md section 9.5).

A managed node group or GKE node pool repairs by itself (``nodepools.spec.repair``, set by
the backends); Karpenter repairs a node of any NodePool when its ``NodeRepair`` gate is
on (alpha, off by default in the pinned chart: ``settings.featureGates.nodeRepair``,
``chart_karpenter.json``; aws/karpenter-provider-aws: website/content/en/docs/concepts/
disruption.md@v1.14.1, "Node Auto Repair"). So the gate is on when a Karpenter pool asks
for repair (every GPU pool does by default), and then no Karpenter pool can opt out alone.
"""
from __future__ import annotations

from nodepools.guardrails.spec_fields import GuardrailsFields
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.repair import RepairMode, repair_enabled


def karpenter_repair_gate(cluster: ClusterPools) -> bool:
    """Karpenter's NodeRepair gate: on when some Karpenter pool repairs."""
    return any(repair_enabled(p) is True for p in cluster.pools if is_karpenter(p))


def karpenter_repair_problems(cluster: ClusterPools, spec: GuardrailsFields, problems: Problems,
                              root: tuple[str | int, ...] = ()) -> None:
    """A Karpenter pool's repair choice that its controller's one gate cannot honour."""
    indexed = [(i, p) for i, p in enumerate(cluster.pools) if is_karpenter(p)]
    if not spec.addons.karpenter.install:
        # The cluster's own Karpenter: its gate is its installer's. Only an explicit "on" cannot be honoured.
        for i, pool in indexed:
            if pool.repair.mode is RepairMode.ON:
                problems.add(root + ("pools", i, "repair", "mode"), f"pool {pool.name!r} asks for repair "
                             "(repair.mode on), but the cluster runs its own Karpenter (addons.karpenter.existing), "
                             "whose NodeRepair feature gate nodepools cannot set; turn the gate on in that "
                             "installation and leave repair.mode auto here (allowed: auto, off)", pool.repair.mode.value)
        return
    wanting = [p.name for _, p in indexed if repair_enabled(p) is True]
    for i, pool in indexed:
        if pool.repair.mode is RepairMode.OFF and wanting:
            problems.add(root + ("pools", i, "repair", "mode"), f"Karpenter repairs every NodePool or none (its "
                         f"NodeRepair feature gate is one switch for the controller), and pools {wanting} repair "
                         f"(GPU pools do by default), so pool {pool.name!r} cannot opt out alone; set repair.mode off "
                         "on every Karpenter pool, or drop this opt-out (allowed: auto, on)", pool.repair.mode.value)
