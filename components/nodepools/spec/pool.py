"""The cloud-neutral pool spec: one validated model per node pool.

``PoolSpec`` is ``PoolFields`` (``spec/pool_fields.py``: the fields, their defaults and
what follows from them) with its rules enforced: every cross-field rule reports all of
its problems at once (``nodepools.spec.errors``), naming the field and the allowed
values, so a bad spec fails before any resource is registered. Nothing here imports a
provider SDK.
"""
from __future__ import annotations

from typing import Any

from pydantic import model_validator

from nodepools.spec import pool_rules
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import check_given_fields
from nodepools.spec.pool_fields import MAX_NODES_LIMIT, CustomCapacity, GpuSpec, PoolFields, Taint
from nodepools.spec.presets import PlacementStrategy

__all__ = ["MAX_NODES_LIMIT", "CustomCapacity", "GpuSpec", "PlacementStrategy", "PoolSpec", "Taint"]


class PoolSpec(PoolFields):
    """One node pool.

    ``capacity``, ``min_nodes``, ``max_nodes`` and ``disk_size_gib`` default from the class
    preset (``nodepools.spec.presets.PRESETS``; each field's description states its default
    per class). ``zones`` and ``subnet_ids`` empty mean "the cluster's". ``dedicated``
    adds the class taint to a resident pool (other classes always carry it).
    ``provisioner`` (default ``managed``): an EKS managed node group, or
    ``karpenter`` (a Karpenter NodePool + EC2NodeClass, EKS only; options in
    ``karpenter``, see ``nodepools.spec.karpenter``).
    """

    @model_validator(mode="wrap")
    @classmethod
    def _check(cls, data: Any, handler: Any) -> "PoolSpec":
        # The one gate of the pool rules. An instance passed those rules when it was
        # built and is frozen, so nested in PlatformArgs/ClusterPools/StackConfig it
        # is trusted, not checked again (``model_copy(update=...)`` skips validation,
        # as pydantic documents: build changed specs with ``model_validate``).
        if isinstance(data, cls):
            return data
        spec = handler(data)
        problems = Problems()
        pool_rules.check_pool(spec, problems)
        if isinstance(data, dict):
            check_given_fields(data, spec, problems)
        problems.raise_if_any("PoolSpec")
        return spec
