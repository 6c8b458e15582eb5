"""A pool's node auto-repair as an EKS managed node group spells it (``node_repair_config``).

pulumi-aws ``aws.eks.NodeGroup`` ``node_repair_config`` (``NodeGroupNodeRepairConfigArgs``:
``enabled`` and the four thresholds; wire name ``nodeRepairConfig``). EKS leaves repair
off unless ``enabled`` is true (the SDK's docstring: "Defaults to false"), so a GPU
pool sends it always. It is updated in place: the EKS API's UpdateNodegroupConfig takes
``nodeRepairConfig`` (docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig),
and CloudFormation lists ``AWS::EKS::Nodegroup NodeRepairConfig`` as "Update requires: No
interruption"; turning it on replaces no node group (tests/stacks/test_stacks_update.py).
"""
from __future__ import annotations

from typing import Any

from nodepools.spec.pool import PoolSpec
from nodepools.spec.repair import repair_enabled


def node_repair_config(spec: PoolSpec) -> dict[str, Any] | None:
    """The node group's ``node_repair_config``, or None where the pool leaves EKS's default (a CPU pool
    on ``auto``: nothing is sent, so a stack from before repair existed sees no change)."""
    enabled = repair_enabled(spec)
    if enabled is None:
        return None
    config: dict[str, Any] = {"enabled": enabled}
    if enabled and spec.repair.eks is not None:
        config.update(spec.repair.eks.model_dump(exclude_none=True))
    return config
