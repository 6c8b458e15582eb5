"""Cloud-neutral, pure pool specs (no provider SDK imports)."""
from nodepools.spec.contract import WorkloadContract, workload_contract
from nodepools.spec.errors import describe
from nodepools.spec.instances import INSTANCE_TYPES, GpuModel, InstanceType, lookup
from nodepools.spec.pool import CustomCapacity, GpuSpec, PlacementStrategy, PoolSpec, Taint
from nodepools.spec.presets import PRESETS, NetworkTopology, preset

__all__ = [
    "INSTANCE_TYPES", "PRESETS", "CustomCapacity", "GpuModel", "GpuSpec", "InstanceType", "NetworkTopology",
    "PlacementStrategy",
    "PoolSpec", "Taint", "WorkloadContract", "describe", "lookup", "preset", "workload_contract",
]
