"""The cloud-neutral pool spec: one validated model per node pool.

Nothing here imports a provider SDK. Every cross-field rule reports all of its
problems at once (``nodepools.spec.errors``), naming the field and the allowed
values, so a bad spec fails before any resource is registered.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import Field, model_validator

from nodepools import vocabulary as v
from nodepools.spec import pool_rules
from nodepools.spec.errors import Problems
from nodepools.spec.model import StrictModel, WholeNumber
from nodepools.spec.instances import GpuModel, InstanceType, lookup
from nodepools.spec.karpenter import KarpenterOptions
from nodepools.spec.presets import NetworkTopology, PlacementStrategy, preset, preset_default
from nodepools.spec.sharing import GpuSharing, sharing_labels
from nodepools.vocabulary import Architecture, CapacityType, Cloud, PoolClass, Provisioner, TaintEffect

MAX_NODES_LIMIT = 1000


class GpuSpec(StrictModel):
    """The GPU of every node of a pool. Derived from the instance table when omitted."""

    model: GpuModel
    count_per_node: WholeNumber = Field(ge=1, le=16)


class CustomCapacity(StrictModel):
    """Per-node capacity of an instance type that is not in the instance table."""

    vcpu: WholeNumber = Field(ge=1, le=1024)
    memory_gib: float = Field(gt=0, le=32768)
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


class PoolSpec(StrictModel):
    """One node pool.

    Defaults come from the class preset (``nodepools.spec.presets``): capacity
    (on-demand; spot for gpu-training), min/max nodes (resident 2/6, batch 0/10,
    gpu-inference 1/4, gpu-training 0/4) and ``disk_size_gib`` (50; 200 for GPU
    classes). ``zones`` and ``subnet_ids`` empty mean "the cluster's". ``dedicated``
    adds the class taint to a resident pool (other classes always carry it).
    ``provisioner`` (default ``managed``): an EKS managed node group, or
    ``karpenter`` (a Karpenter NodePool + EC2NodeClass, EKS only; options in
    ``karpenter``, see ``nodepools.spec.karpenter``).
    """

    name: str
    pool_class: PoolClass
    instance_types: list[str] = Field(min_length=1, max_length=20)
    # Preset-filled: optional on input, always set once built (``_fill_class_defaults``).
    capacity: CapacityType = Field(default=None, **preset_default("default_capacity"))
    min_nodes: WholeNumber = Field(default=None, ge=0, le=MAX_NODES_LIMIT, **preset_default("default_min_nodes"))
    max_nodes: WholeNumber = Field(default=None, ge=1, le=MAX_NODES_LIMIT, **preset_default("default_max_nodes"))
    gpu: GpuSpec | None = None
    disk_size_gib: WholeNumber = Field(default=None, ge=20, le=16384, **preset_default("default_disk_size_gib"))
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

    @model_validator(mode="before")
    @classmethod
    def _fill_class_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        try:
            chosen = preset(PoolClass(data.get("pool_class")))
        except ValueError:
            # The field validator reports the bad class; fill placeholders so the
            # fields the class would have defaulted are not also reported missing.
            chosen = preset(PoolClass.BATCH)
        defaults = {
            "capacity": chosen.default_capacity,
            "min_nodes": chosen.default_min_nodes,
            "max_nodes": chosen.default_max_nodes,
            "disk_size_gib": chosen.default_disk_size_gib,
        }
        return {**defaults, **{k: val for k, val in data.items() if not (val is None and k in defaults)}}

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
        problems.raise_if_any("PoolSpec")
        return spec

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
            labels.update(sharing_labels(self))
        return {**self.labels, **labels}
