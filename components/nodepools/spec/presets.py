"""Class presets: docs/design.md section 1 as data.

Each class fixes what must hold (taints, whether GPUs are required, which
capacity types are allowed, the minimum-node floor) and defaults what a user may
change (capacity, min/max nodes, disk size).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping

from nodepools.vocabulary import CapacityType, PoolClass


class PlacementStrategy(str, Enum):
    """``auto`` (default): compact for a gpu-training pool of more than one node whose
    instance type the cloud can place compactly, set when the pool is created (a pool
    that already exists keeps its placement; ``nodepools.clouds.topology``), spread
    otherwise. ``spread`` across zones, or ``compact``: one zone, short network path
    between nodes (AWS cluster placement group / GKE compact placement), for
    gang-scheduled training whose collectives are latency bound; asked for explicitly
    it is applied to an existing pool too, which replaces it."""

    AUTO = "auto"
    SPREAD = "spread"
    COMPACT = "compact"


class NetworkTopology(str, Enum):
    """Whether a gpu-training pool's flavor points at its cloud's Kueue ``Topology``:
    ``auto`` (the default for gpu-training) where the cloud labels every node of the
    pool with its network position, ``off`` never (docs/design.md section 9.3)."""

    AUTO = "auto"
    OFF = "off"


@dataclass(frozen=True)
class ClassPreset:
    pool_class: PoolClass
    requires_gpu: bool
    allowed_capacity: tuple[CapacityType, ...]
    default_capacity: CapacityType
    # Resident capacity must stay (>= 1); batch and training scale to zero.
    min_nodes_floor: int
    default_min_nodes: int
    default_max_nodes: int
    default_disk_size_gib: int
    # Untainted by default only for resident (it is the cluster's default pool).
    class_taint_by_default: bool
    compact_placement_allowed: bool


PRESETS: dict[PoolClass, ClassPreset] = {
    PoolClass.RESIDENT: ClassPreset(
        PoolClass.RESIDENT, requires_gpu=False, allowed_capacity=(CapacityType.ON_DEMAND,),
        default_capacity=CapacityType.ON_DEMAND, min_nodes_floor=1, default_min_nodes=2,
        default_max_nodes=6, default_disk_size_gib=50, class_taint_by_default=False,
        compact_placement_allowed=False),
    PoolClass.BATCH: ClassPreset(
        PoolClass.BATCH, requires_gpu=False, allowed_capacity=(CapacityType.ON_DEMAND, CapacityType.SPOT),
        default_capacity=CapacityType.ON_DEMAND, min_nodes_floor=0, default_min_nodes=0,
        default_max_nodes=10, default_disk_size_gib=50, class_taint_by_default=True,
        compact_placement_allowed=True),
    # GPU images (CUDA, model weights) are large: 200 GiB keeps image pulls off the floor.
    PoolClass.GPU_INFERENCE: ClassPreset(
        PoolClass.GPU_INFERENCE, requires_gpu=True, allowed_capacity=(CapacityType.ON_DEMAND,),
        default_capacity=CapacityType.ON_DEMAND, min_nodes_floor=1, default_min_nodes=1,
        default_max_nodes=4, default_disk_size_gib=200, class_taint_by_default=True,
        compact_placement_allowed=False),
    PoolClass.GPU_TRAINING: ClassPreset(
        PoolClass.GPU_TRAINING, requires_gpu=True, allowed_capacity=(CapacityType.ON_DEMAND, CapacityType.SPOT),
        default_capacity=CapacityType.SPOT, min_nodes_floor=0, default_min_nodes=0,
        default_max_nodes=4, default_disk_size_gib=200, class_taint_by_default=True,
        compact_placement_allowed=True),
}


# The batch namespace's cpu/memory quota as a share of the resident and batch pools' capacity: the
# range the guardrails' ``batch_quota_share`` may take (docs/design.md section 3, namespace-quota),
# whose top is the most the pack's ``batchQuotaShare`` lets a batch quota claim by default.
BATCH_QUOTA_SHARE_RANGE = (0.40, 0.60)

# The PoolSpec fields a class preset fills when they are not given, and the preset attribute
# each takes its default from: the one list the model, its schema and the other languages'
# schema read (``class_defaults``, ``preset_default``, ``preset_values``).
PRESET_FIELDS: Mapping[str, str] = MappingProxyType({
    "capacity": "default_capacity",
    "min_nodes": "default_min_nodes",
    "max_nodes": "default_max_nodes",
    "disk_size_gib": "default_disk_size_gib",
})


def preset(pool_class: PoolClass) -> ClassPreset:
    return PRESETS[pool_class]


def class_defaults(pool_class: PoolClass) -> dict[str, Any]:
    """The values of ``PRESET_FIELDS`` for a pool of ``pool_class`` that gives none of them."""
    chosen = PRESETS[pool_class]
    return {field: getattr(chosen, attribute) for field, attribute in PRESET_FIELDS.items()}


def preset_values(field: str) -> str:
    """A preset-filled field's default per class, in words (``min_nodes``: "resident 2, batch 0, ...")."""
    return ", ".join(f"{c.value} {_plain(getattr(p, PRESET_FIELDS[field]))}" for c, p in PRESETS.items())


def preset_default(field: str) -> dict[str, Any]:
    """``Field`` arguments of a preset-filled ``PoolSpec`` field: its per-class default stated in
    its JSON schema's description, written when the schema is (from ``PRESETS`` as it is then),
    and no ``default`` there (the class decides)."""
    def schema(prop: dict[str, Any]) -> None:
        prop.pop("default", None)
        prop["description"] = f"Optional; default from the class preset: {preset_values(field)}."
    return {"json_schema_extra": schema}


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value
