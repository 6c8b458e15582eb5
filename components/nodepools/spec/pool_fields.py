"""The fields of a pool spec and what follows from them (its node labels and taints,
its instances and GPUs), without the rules: ``PoolFields``.

The rules (``pool_rules``, ``sharing``, ``karpenter``) read a pool through this class,
and ``nodepools.spec.pool.PoolSpec`` adds the validator that runs them, so the rules
sit between the two and no import runs in a circle. Nothing here imports a provider SDK.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import Field, model_validator

from nodepools import vocabulary as v
from nodepools.spec.model import RealNumber, StrictModel, WholeNumber
from nodepools.spec.instances import GpuModel, InstanceType, lookup
from nodepools.spec.options import GpuSharing, KarpenterOptions, NodeRepair, WarmCapacity
from nodepools.spec.presets import NetworkTopology, PlacementStrategy, class_defaults, preset, preset_default
from nodepools.vocabulary import Architecture, CapacityType, Cloud, PoolClass, Provisioner, TaintEffect

MAX_NODES_LIMIT = 1000


class GpuSpec(StrictModel):
    """The GPU of every node of a pool. Derived from the instance table when omitted."""

    model: GpuModel
    count_per_node: WholeNumber = Field(ge=1, le=16)


class CustomCapacity(StrictModel):
    """Per-node capacity of an instance type that is not in the instance table."""

    vcpu: WholeNumber = Field(ge=1, le=1024)
    memory_gib: RealNumber = Field(gt=0, le=32768)
    architecture: Architecture = Architecture.X86_64
    gpu_count: WholeNumber = Field(default=0, ge=0, le=16)
    gpu_model: GpuModel | None = None


class Taint(StrictModel):
    """A node taint in Kubernetes spelling; effect defaults to NoSchedule."""

    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    def as_k8s(self) -> dict[str, str]:
        out = {"key": self.key, "effect": self.effect.value}
        if self.value:
            out["value"] = self.value
        return out


class PoolFields(StrictModel):
    """The fields of one node pool and what follows from them; ``PoolSpec`` is this
    with its rules enforced (build pools as ``PoolSpec``)."""

    name: str
    pool_class: PoolClass
    instance_types: list[str] = Field(min_length=1, max_length=20)
    # Preset-filled: optional on input, always set once built (``_fill_class_defaults``).
    capacity: CapacityType = Field(default=None, **preset_default("capacity"))
    min_nodes: WholeNumber = Field(default=None, ge=0, le=MAX_NODES_LIMIT, **preset_default("min_nodes"))
    max_nodes: WholeNumber = Field(default=None, ge=1, le=MAX_NODES_LIMIT, **preset_default("max_nodes"))
    gpu: GpuSpec | None = None
    disk_size_gib: WholeNumber = Field(default=None, ge=20, le=16384, **preset_default("disk_size_gib"))
    zones: list[str] = Field(default_factory=list)
    subnet_ids: list[str] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    dedicated: bool = False
    placement: PlacementStrategy = Field(PlacementStrategy.AUTO, description=(
        "auto (default: compact for a gpu-training pool of more than one node where the instance type allows it, "
        "set when the pool is created), spread or compact; nodepools.spec.presets.PlacementStrategy."))
    custom_capacity: dict[str, CustomCapacity] = Field(default_factory=dict)
    provisioner: Provisioner = Provisioner.MANAGED
    karpenter: KarpenterOptions | None = None
    # Default: none (whole GPUs); nodepools.spec.sharing.
    gpu_sharing: GpuSharing = Field(default_factory=GpuSharing)
    network_topology: NetworkTopology | None = Field(None, description=(
        "gpu-training pools only: auto (the default for them: the flavor points at the cloud's Kueue Topology "
        "where the cloud labels every node with its network position) or off."))
    # docs/design.md sections 9.4 and 9.5: spare replicas kept ready (gpu-inference only; nodepools.spec.warm)
    # and node auto-repair (on for GPU pools unless opted out; nodepools.spec.repair).
    warm: WarmCapacity | None = Field(None, description="Spare replica-shaped capacity kept ready "
                                      "(gpu-inference pools only). Default: none.")
    repair: NodeRepair = Field(default_factory=NodeRepair, description="Node auto-repair. Default: mode auto "
                               "(on for GPU pools, the provider's default elsewhere).")

    @model_validator(mode="before")
    @classmethod
    def _fill_class_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        try:
            pool_class = PoolClass(data.get("pool_class"))
        except ValueError:
            # The field validator reports the bad class; fill placeholders so the
            # fields the class would have defaulted are not also reported missing.
            pool_class = PoolClass.BATCH
        defaults = class_defaults(pool_class)
        return {**defaults, **{k: val for k, val in data.items() if not (val is None and k in defaults)}}

    def resolve_instance(self, name: str) -> InstanceType | None:
        custom = self.custom_capacity.get(name)
        if custom is not None:
            return InstanceType(name, None, custom.vcpu, custom.memory_gib, custom.architecture,  # type: ignore[arg-type]
                                custom.gpu_model, custom.gpu_count)
        return lookup(name)

    # ---- derived contract ---------------------------------------------------

    @cached_property
    def instances(self) -> tuple[InstanceType, ...]:
        return tuple(self.resolve_instance(n) for n in self.instance_types)  # type: ignore[misc]

    @property
    def architecture(self) -> Architecture:
        return self.instances[0].architecture

    @property
    def cloud(self) -> Cloud | None:
        """The cloud the instance types belong to (None when all are custom)."""
        return next((t.cloud for t in self.instances if t.cloud is not None), None)

    @property
    def gpu_model(self) -> GpuModel | None:
        if self.gpu is not None:
            return self.gpu.model
        return next((t.gpu_model for t in self.instances if t.gpu_model), None)

    @property
    def gpus_per_node(self) -> int:
        if self.gpu is not None:
            return self.gpu.count_per_node
        return self.instances[0].gpu_count

    @property
    def has_gpu(self) -> bool:
        return self.pool_class.has_gpu

    @property
    def is_tainted(self) -> bool:
        return bool(self.node_taints)

    def builtin_taints(self) -> list[dict[str, str]]:
        taints = []
        if preset(self.pool_class).class_taint_by_default or self.dedicated:
            taints.append(v.class_taint(self.pool_class))
        if self.has_gpu:
            taints.append(v.gpu_taint())
        return taints

    @property
    def node_taints(self) -> list[Taint]:
        """Every taint the pool's nodes carry: class taint, GPU taint, then the user's."""
        builtin = [Taint(key=t["key"], value=t["value"], effect=TaintEffect(t["effect"])) for t in self.builtin_taints()]
        return builtin + list(self.taints)

    @property
    def node_labels(self) -> dict[str, str]:
        """Contract labels (docs/design.md section 2) plus the user's. Cloud-specific
        labels (``k8s.amazonaws.com/accelerator``) are added by the backend."""
        labels = {
            v.LABEL_POOL_CLASS: self.pool_class.value,
            v.LABEL_POOL: self.name,
            v.LABEL_CAPACITY: self.capacity.value,
        }
        if self.has_gpu and self.gpu_model is not None:
            labels[v.LABEL_GPU_PRESENT] = v.LABEL_GPU_PRESENT_VALUE
            labels[v.LABEL_ACCELERATOR] = self.gpu_model.value
            labels.update(self.gpu_sharing.node_labels())
        return {**self.labels, **labels}
