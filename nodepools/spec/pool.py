"""The cloud-neutral pool spec: one validated model per node pool.

Nothing here imports a provider SDK. Every cross-field rule reports all of its
problems at once (``nodepools.spec.errors``), naming the field and the allowed
values, so a bad spec fails before any resource is registered.
"""
from __future__ import annotations

from enum import Enum
from functools import cached_property
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nodepools.spec.errors import Problems
from nodepools.spec.instances import GpuModel, InstanceType, lookup
from nodepools.spec.presets import preset
from nodepools.spec.syntax import dns_label_error, label_key_error, label_value_error
from nodepools import vocabulary as v
from nodepools.vocabulary import Architecture, CapacityType, Cloud, PoolClass, TaintEffect

# Label keys the pool sets from its own spec; a user label may not override them.
RESERVED_LABEL_KEYS = frozenset({
    v.LABEL_POOL_CLASS, v.LABEL_POOL, v.LABEL_CAPACITY, v.LABEL_ACCELERATOR,
    v.LABEL_GPU_PRESENT, v.LABEL_AWS_ACCELERATOR,
})
POOL_NAME_MAX = 40  # GKE node pool names are limited to 40 characters; EKS to 63.
MAX_NODES_LIMIT = 1000


class PlacementStrategy(str, Enum):
    """``spread`` (default) across zones, or ``compact``: one zone, short network
    path between nodes (AWS cluster placement group / GKE compact placement), for
    gang-scheduled training whose collectives are latency bound."""

    SPREAD = "spread"
    COMPACT = "compact"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GpuSpec(_Strict):
    """The GPU of every node of a pool. Derived from the instance table when omitted."""

    model: GpuModel
    count_per_node: int = Field(ge=1, le=16)


class CustomCapacity(_Strict):
    """Per-node capacity of an instance type that is not in the instance table."""

    vcpu: int = Field(ge=1, le=1024)
    memory_gib: float = Field(gt=0, le=32768)
    architecture: Architecture = Architecture.X86_64
    gpu_count: int = Field(default=0, ge=0, le=16)
    gpu_model: GpuModel | None = None


class Taint(_Strict):
    """A node taint in Kubernetes spelling; effect defaults to NoSchedule."""

    key: str
    value: str = ""
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    def as_k8s(self) -> dict[str, str]:
        out = {"key": self.key, "effect": self.effect.value}
        if self.value:
            out["value"] = self.value
        return out


class PoolSpec(_Strict):
    """One node pool.

    Defaults come from the class preset (``nodepools.spec.presets``): capacity
    (on-demand; spot for gpu-training), min/max nodes (resident 2/6, batch 0/10,
    gpu-inference 1/4, gpu-training 0/4) and ``disk_size_gib`` (50; 200 for GPU
    classes). ``zones`` and ``subnet_ids`` empty mean "the cluster's". ``dedicated``
    adds the class taint to a resident pool (other classes always carry it).
    """

    name: str
    pool_class: PoolClass
    instance_types: list[str] = Field(min_length=1, max_length=20)
    capacity: CapacityType
    min_nodes: int = Field(ge=0, le=MAX_NODES_LIMIT)
    max_nodes: int = Field(ge=1, le=MAX_NODES_LIMIT)
    gpu: GpuSpec | None = None
    disk_size_gib: int = Field(ge=20, le=16384)
    zones: list[str] = Field(default_factory=list)
    subnet_ids: list[str] = Field(default_factory=list)
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[Taint] = Field(default_factory=list)
    dedicated: bool = False
    placement: PlacementStrategy = PlacementStrategy.SPREAD
    custom_capacity: dict[str, CustomCapacity] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _fill_class_defaults(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        try:
            chosen = preset(PoolClass(data.get("pool_class")))
        except ValueError:
            return data  # the field validator reports the bad class
        defaults = {
            "capacity": chosen.default_capacity,
            "min_nodes": chosen.default_min_nodes,
            "max_nodes": chosen.default_max_nodes,
            "disk_size_gib": chosen.default_disk_size_gib,
        }
        return {**defaults, **{k: val for k, val in data.items() if val is not None}}

    @model_validator(mode="after")
    def _check(self) -> "PoolSpec":
        problems = Problems()
        self._check_name(problems)
        self._check_class_rules(problems)
        types = self._check_instance_types(problems)
        if types:
            self._check_gpu(problems, types)
        self._check_labels_and_taints(problems)
        problems.raise_if_any("PoolSpec")
        return self

    def _check_name(self, problems: Problems) -> None:
        if err := dns_label_error(self.name, POOL_NAME_MAX):
            problems.add("name", f"pool name {err}", self.name)

    def _check_class_rules(self, problems: Problems) -> None:
        rules = preset(self.pool_class)
        if self.capacity not in rules.allowed_capacity:
            allowed = ", ".join(c.value for c in rules.allowed_capacity)
            problems.add("capacity", f"capacity {self.capacity.value!r} is not allowed for class "
                         f"{self.pool_class.value} (allowed: {allowed}): it must not be interrupted", self.capacity.value)
        if self.min_nodes < rules.min_nodes_floor:
            problems.add("min_nodes", f"min_nodes must be >= {rules.min_nodes_floor} for class "
                         f"{self.pool_class.value}: its capacity must stay up (got {self.min_nodes})", self.min_nodes)
        if self.min_nodes > self.max_nodes:
            problems.add("min_nodes", f"min_nodes ({self.min_nodes}) must be <= max_nodes ({self.max_nodes})",
                         self.min_nodes)
        if self.placement is PlacementStrategy.COMPACT:
            if not rules.compact_placement_allowed:
                problems.add("placement", f"placement 'compact' is allowed for classes batch and gpu-training only, "
                             f"not {self.pool_class.value} (one zone would take availability from it)", "compact")
            elif len(self.zones) > 1 or len(self.subnet_ids) > 1:
                problems.add("placement", "placement 'compact' needs one zone: give at most one entry in zones "
                             "and subnet_ids", "compact")

    def _check_instance_types(self, problems: Problems) -> list[InstanceType]:
        resolved: list[InstanceType] = []
        seen: set[str] = set()
        for i, name in enumerate(self.instance_types):
            if name in seen:
                problems.add(("instance_types", i), f"instance type {name!r} is listed twice", name)
                continue
            seen.add(name)
            entry = self._resolve(name)
            if entry is None:
                problems.add(("instance_types", i), f"unknown instance type {name!r}: it is not in the instance "
                             f"table (nodepools.spec.instances); give its capacity in custom_capacity[{name!r}] "
                             "(vcpu, memory_gib, gpu_count, gpu_model)", name)
            else:
                resolved.append(entry)
        for name in self.custom_capacity:
            if name not in self.instance_types:
                problems.add(("custom_capacity", name), f"custom_capacity names {name!r}, which is not in "
                             f"instance_types (allowed: {', '.join(self.instance_types)})", name)
        clouds = {t.cloud for t in resolved if t.cloud is not None}
        if len(clouds) > 1:
            problems.add("instance_types", "instance types mix clouds "
                         f"({', '.join(sorted(c.value for c in clouds))}); a pool lives on one cloud", self.instance_types)
        for field, what in (("architecture", "architecture"), ("gpu_count", "GPU count")):
            values = {getattr(t, field) for t in resolved}
            if len(values) > 1:
                detail = ", ".join(f"{t.name}={getattr(t, field).value if isinstance(getattr(t, field), Enum) else getattr(t, field)}"
                                   for t in resolved)
                problems.add("instance_types", f"instance types of one pool must agree on {what} ({detail}): "
                             "the scheduler and the autoscaler treat a pool's nodes as identical", self.instance_types)
        if len(resolved) != len(self.instance_types):
            return []
        return resolved

    def _resolve(self, name: str) -> InstanceType | None:
        custom = self.custom_capacity.get(name)
        if custom is not None:
            return InstanceType(name, None, custom.vcpu, custom.memory_gib, custom.architecture,  # type: ignore[arg-type]
                                custom.gpu_model, custom.gpu_count)
        return lookup(name)

    def _check_gpu(self, problems: Problems, types: list[InstanceType]) -> None:
        requires_gpu = preset(self.pool_class).requires_gpu
        for i, t in enumerate(types):
            if requires_gpu and not t.has_gpu:
                problems.add(("instance_types", i), f"{t.name!r} has no GPU; class {self.pool_class.value} needs GPU "
                             "instance types (AWS g5, g6, g6e, p4d, p5; GCP g2, a2, a3)", t.name)
            if not requires_gpu and t.has_gpu:
                problems.add(("instance_types", i), f"{t.name!r} has {t.gpu_count} GPU(s); class "
                             f"{self.pool_class.value} must not use GPU instance types (use gpu-inference or "
                             "gpu-training)", t.name)
        if not requires_gpu:
            if self.gpu is not None:
                problems.add("gpu", f"class {self.pool_class.value} takes no gpu (allowed only for gpu-inference and "
                             "gpu-training)", self.gpu.model_dump(mode="json"))
            return
        models = {t.gpu_model for t in types if t.gpu_model is not None}
        if len(models) > 1:
            problems.add("instance_types", "instance types of one pool must share one GPU model (got "
                         f"{', '.join(sorted(m.value for m in models))})", self.instance_types)
        if self.gpu is None:
            if not models:
                problems.add("gpu", f"class {self.pool_class.value} needs gpu.model (allowed: "
                             f"{', '.join(m.value for m in GpuModel)}) and gpu.count_per_node", None)
            return
        if models and self.gpu.model not in models:
            problems.add(("gpu", "model"), f"gpu.model {self.gpu.model.value!r} disagrees with the instance types' "
                         f"GPU ({', '.join(sorted(m.value for m in models))})", self.gpu.model.value)
        counts = {t.gpu_count for t in types if t.gpu_count}
        if counts and self.gpu.count_per_node not in counts:
            problems.add(("gpu", "count_per_node"), f"gpu.count_per_node {self.gpu.count_per_node} disagrees with "
                         f"the instance types' GPU count ({', '.join(map(str, sorted(counts)))})", self.gpu.count_per_node)

    def _check_labels_and_taints(self, problems: Problems) -> None:
        for key, value in self.labels.items():
            if key in RESERVED_LABEL_KEYS:
                problems.add(("labels", key), f"label {key!r} is set by the pool from its spec and cannot be "
                             f"overridden (reserved: {', '.join(sorted(RESERVED_LABEL_KEYS))})", value)
            elif err := label_key_error(key):
                problems.add(("labels", key), err, key)
            if err := label_value_error(value):
                problems.add(("labels", key), err, value)
        builtin = {(t["key"], t["effect"]) for t in self._builtin_taints()}
        for i, taint in enumerate(self.taints):
            if err := label_key_error(taint.key):
                problems.add(("taints", i, "key"), err.replace("label key", "taint key"), taint.key)
            if err := label_value_error(taint.value):
                problems.add(("taints", i, "value"), err.replace("label value", "taint value"), taint.value)
            if taint.key == v.TAINT_POOL_CLASS_KEY or (taint.key, taint.effect.value) in builtin:
                problems.add(("taints", i, "key"), f"taint {taint.key!r} is set by the pool from its class "
                             "and cannot be given again", taint.key)

    # ---- derived contract ---------------------------------------------------

    @cached_property
    def instances(self) -> tuple[InstanceType, ...]:
        return tuple(self._resolve(n) for n in self.instance_types)  # type: ignore[misc]

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

    def _builtin_taints(self) -> list[dict[str, str]]:
        taints = []
        if preset(self.pool_class).class_taint_by_default or self.dedicated:
            taints.append(v.class_taint(self.pool_class))
        if self.has_gpu:
            taints.append(v.gpu_taint())
        return taints

    @property
    def node_taints(self) -> list[Taint]:
        """Every taint the pool's nodes carry: class taint, GPU taint, then the user's."""
        builtin = [Taint(key=t["key"], value=t["value"], effect=TaintEffect(t["effect"])) for t in self._builtin_taints()]
        return builtin + list(self.taints)

    @property
    def node_labels(self) -> dict[str, str]:
        """Contract labels (design.md section 2) plus the user's. Cloud-specific
        labels (``k8s.amazonaws.com/accelerator``) are added by the backend."""
        labels = {
            v.LABEL_POOL_CLASS: self.pool_class.value,
            v.LABEL_POOL: self.name,
            v.LABEL_CAPACITY: self.capacity.value,
        }
        if self.has_gpu and self.gpu_model is not None:
            labels[v.LABEL_GPU_PRESENT] = v.LABEL_GPU_PRESENT_VALUE
            labels[v.LABEL_ACCELERATOR] = self.gpu_model.value
        return {**self.labels, **labels}
