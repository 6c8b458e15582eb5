"""Node auto-repair of a pool: on by default for GPU pools, with a per-pool opt-out.

docs/design.md section 9.5 ("GPU nodes repair themselves"). A GPU node fails more
often than a CPU node (an Xid error, a fallen-off-the-bus GPU, a driver that never
comes up) and a failed one keeps its GPUs out of service until someone replaces it.
What repairs a node is the cloud's: an EKS managed node group's
``nodeRepairConfig`` (off unless set), a GKE node pool's ``management.autoRepair``
(on unless set), Karpenter's ``NodeRepair`` feature gate (one switch for the whole
controller). ``mode``:

- ``auto`` (default): on for GPU pools; elsewhere the provider's default (EKS off, GKE on, Karpenter the
  controller's gate).
- ``on`` / ``off``: always on / off (``off`` is the opt-out).

``eks`` holds the EKS managed node group's own settings (pulumi-aws
``NodeGroupNodeRepairConfigArgs``); GKE's auto-repair and Karpenter's have none, so
they are refused there (``backends/gcp/checks.py``, ``check_repair``).
"""
from __future__ import annotations

from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.options import EksRepairOptions, NodeRepair, RepairMode
from nodepools.spec.pool_fields import PoolFields

__all__ = ["EksRepairOptions", "NodeRepair", "RepairMode", "check_repair", "repair_enabled"]


def repair_enabled(spec: PoolFields) -> bool | None:
    """True or False where the pool decides; None where it leaves the provider's default (``auto`` on a CPU pool)."""
    mode = spec.repair.mode
    if mode is RepairMode.AUTO:
        return True if spec.has_gpu else None
    return mode is RepairMode.ON


_PAIRS = (("max_unhealthy_node_threshold_count", "max_unhealthy_node_threshold_percentage"),
          ("max_parallel_nodes_repaired_count", "max_parallel_nodes_repaired_percentage"))


def check_repair(spec: PoolFields, problems: Problems) -> None:
    eks = spec.repair.eks
    if eks is None:
        return
    given = eks.model_dump(exclude_none=True)
    if is_karpenter(spec):
        problems.add(("repair", "eks"), "repair.eks settings are for EKS managed node groups; Karpenter repairs "
                     "every NodePool by its NodeRepair feature gate, with no per-pool settings (allowed on a "
                     "Karpenter pool: repair.mode)", given)
        return
    if repair_enabled(spec) is not True:
        why = "off" if spec.repair.mode is RepairMode.OFF else "auto, which leaves a CPU pool's repair off"
        problems.add(("repair", "eks"), f"repair.eks sets how EKS repairs, but repair.mode is {why}; set "
                     "repair.mode on (allowed with eks: on, or auto on a GPU pool)", given)
    for count, percentage in _PAIRS:
        if count in given and percentage in given:
            problems.add(("repair", "eks", percentage), f"give repair.eks.{count} or repair.eks.{percentage}, not "
                         "both (EKS takes one of the pair)", given[percentage])
