"""The cross-field rules of one ``PoolSpec``; each adds every problem it finds.

Kept apart from the model so the model stays a readable list of fields and the
derived contract. Messages name the field and the allowed values.
"""
from __future__ import annotations

from enum import Enum
from typing import Any

from nodepools import vocabulary as v
from nodepools.vocabulary import PoolClass
from nodepools.spec.errors import Problems
from nodepools.spec.instances import GpuModel, InstanceType, lookup
from nodepools.spec.karpenter import check_karpenter_pool
from nodepools.spec.node_labels import node_label_error
from nodepools.spec.node_taints import controller_taint_error
from nodepools.spec.pool_fields import PoolFields
from nodepools.spec.presets import NetworkTopology, PlacementStrategy, preset
from nodepools.spec.repair import check_repair
from nodepools.spec.sharing import check_sharing
from nodepools.spec.syntax import dns_label_error, label_key_error, label_value_error
from nodepools.spec.warm import check_warm

POOL_NAME_MAX = 40  # GKE node pool names are limited to 40 characters; EKS to 63.
# Label keys the pool sets from its own spec; a user label may not override them.
RESERVED_LABEL_KEYS = frozenset({
    v.LABEL_POOL_CLASS, v.LABEL_POOL, v.LABEL_CAPACITY, v.LABEL_ACCELERATOR,
    v.LABEL_GPU_PRESENT, v.LABEL_AWS_ACCELERATOR,
})


def check_pool(spec: PoolFields, problems: Problems) -> None:
    check_name(spec, problems)
    check_class_rules(spec, problems)
    types = check_instance_types(spec, problems)
    if types:
        check_gpu(spec, problems, types)
        check_sharing(spec, problems)
    check_labels_and_taints(spec, problems)
    check_karpenter_pool(spec, problems)
    check_warm(spec, problems, types)
    check_repair(spec, problems)


def check_name(spec: PoolFields, problems: Problems) -> None:
    if err := dns_label_error(spec.name, POOL_NAME_MAX):
        problems.add("name", f"pool name {err}", spec.name)

def check_class_rules(spec: PoolFields, problems: Problems) -> None:
    rules = preset(spec.pool_class)
    if spec.capacity not in rules.allowed_capacity:
        allowed = ", ".join(c.value for c in rules.allowed_capacity)
        problems.add("capacity", f"capacity {spec.capacity.value!r} is not allowed for class "
                     f"{spec.pool_class.value} (allowed: {allowed}): it must not be interrupted", spec.capacity.value)
    if spec.min_nodes < rules.min_nodes_floor:
        problems.add("min_nodes", f"min_nodes must be >= {rules.min_nodes_floor} for class "
                     f"{spec.pool_class.value}: its capacity must stay up (got {spec.min_nodes})", spec.min_nodes)
    if spec.min_nodes > spec.max_nodes:
        problems.add("min_nodes", f"min_nodes ({spec.min_nodes}) must be <= max_nodes ({spec.max_nodes})",
                     spec.min_nodes)
    if spec.network_topology is not None and spec.pool_class is not PoolClass.GPU_TRAINING:
        problems.add("network_topology", "network_topology is for pool_class gpu-training only (allowed there: "
                     f"{', '.join(t.value for t in NetworkTopology)}); this pool's pool_class is "
                     f"{spec.pool_class.value}: remove network_topology", spec.network_topology.value)
    if spec.placement is PlacementStrategy.COMPACT:
        if not rules.compact_placement_allowed:
            problems.add("placement", f"placement 'compact' is allowed for classes batch and gpu-training only, "
                         f"not {spec.pool_class.value} (one zone would take availability from it)", "compact")
        elif len(spec.zones) > 1 or len(spec.subnet_ids) > 1:
            problems.add("placement", "placement 'compact' needs one zone: give at most one entry in zones "
                         "and subnet_ids", "compact")
    for field in ("zones", "subnet_ids"):
        duplicate_problems(field, getattr(spec, field), problems)


_LISTED = {"subnet_ids": "subnet", "zones": "zone", "default_zones": "zone", "node_security_group_ids": "security group"}


def duplicate_problems(field: str, values: list[Any], problems: Problems) -> None:
    """Each entry of ``values`` given again (a subnet, zone or security group twice is one, not two)."""
    first: dict[Any, int] = {}
    what = _LISTED.get(field, "value")
    for i, value in enumerate(values):
        if value in first:
            problems.add((field, i), f"{what} {value!r} is listed twice (first at {field}[{first[value]}])", value)
        first.setdefault(value, i)

def check_instance_types(spec: PoolFields, problems: Problems) -> list[InstanceType]:
    resolved: list[InstanceType] = []
    seen: set[str] = set()
    for i, name in enumerate(spec.instance_types):
        if name in seen:
            problems.add(("instance_types", i), f"instance type {name!r} is listed twice", name)
            continue
        seen.add(name)
        entry = spec.resolve_instance(name)
        if entry is None:
            problems.add(("instance_types", i), f"unknown instance type {name!r}: it is not in the instance "
                         f"table (nodepools.spec.instances); give its capacity in custom_capacity[{name!r}] "
                         "(vcpu, memory_gib, gpu_count, gpu_model)", name)
        else:
            resolved.append(entry)
    for name in spec.custom_capacity:
        if name not in spec.instance_types:
            problems.add(("custom_capacity", name), f"custom_capacity names {name!r}, which is not in "
                         f"instance_types (allowed: {', '.join(spec.instance_types)})", name)
        elif (listed := lookup(name)) is not None:
            problems.add(("custom_capacity", name), f"custom_capacity names {name!r}, which the instance table "
                         f"lists ({listed.vcpu} vCPU, {listed.memory_gib:g} GiB, {listed.gpu_count} GPU): "
                         "custom_capacity is for types the table lacks, and would override what the cloud "
                         "launches; remove it", name)
    clouds = {t.cloud for t in resolved if t.cloud is not None}
    if len(clouds) > 1:
        problems.add("instance_types", "instance types mix clouds "
                     f"({', '.join(sorted(c.value for c in clouds))}); a pool lives on one cloud", spec.instance_types)
    for field, what in (("architecture", "architecture"), ("gpu_count", "GPU count")):
        values = {getattr(t, field) for t in resolved}
        if len(values) > 1:
            detail = ", ".join(f"{t.name}={getattr(t, field).value if isinstance(getattr(t, field), Enum) else getattr(t, field)}"
                               for t in resolved)
            problems.add("instance_types", f"instance types of one pool must agree on {what} ({detail}): "
                         "the scheduler and the autoscaler treat a pool's nodes as identical", spec.instance_types)
    if len(resolved) != len(spec.instance_types):
        return []
    return resolved

def check_gpu(spec: PoolFields, problems: Problems, types: list[InstanceType]) -> None:
    requires_gpu = preset(spec.pool_class).requires_gpu
    for i, t in enumerate(types):
        if requires_gpu and not t.has_gpu:
            problems.add(("instance_types", i), f"{t.name!r} has no GPU; class {spec.pool_class.value} needs GPU "
                         "instance types (AWS g5, g6, g6e, p4d, p5; GCP g2, a2, a3)", t.name)
        if not requires_gpu and t.has_gpu:
            problems.add(("instance_types", i), f"{t.name!r} has {t.gpu_count} GPU(s); class "
                         f"{spec.pool_class.value} must not use GPU instance types (use gpu-inference or "
                         "gpu-training)", t.name)
    if not requires_gpu:
        if spec.gpu is not None:
            problems.add("gpu", f"class {spec.pool_class.value} takes no gpu (allowed only for gpu-inference and "
                         "gpu-training)", spec.gpu.model_dump(mode="json"))
        return
    models = {t.gpu_model for t in types if t.gpu_model is not None}
    if len(models) > 1:
        problems.add("instance_types", "instance types of one pool must share one GPU model (got "
                     f"{', '.join(sorted(m.value for m in models))})", spec.instance_types)
    if spec.gpu is None:
        if not models:
            problems.add("gpu", f"class {spec.pool_class.value} needs gpu.model (allowed: "
                         f"{', '.join(m.value for m in GpuModel)}) and gpu.count_per_node", None)
        return
    if models and spec.gpu.model not in models:
        problems.add(("gpu", "model"), f"gpu.model {spec.gpu.model.value!r} disagrees with the instance types' "
                     f"GPU ({', '.join(sorted(m.value for m in models))})", spec.gpu.model.value)
    counts = {t.gpu_count for t in types if t.gpu_count}
    if counts and spec.gpu.count_per_node not in counts:
        problems.add(("gpu", "count_per_node"), f"gpu.count_per_node {spec.gpu.count_per_node} disagrees with "
                     f"the instance types' GPU count ({', '.join(map(str, sorted(counts)))})", spec.gpu.count_per_node)

def check_labels_and_taints(spec: PoolFields, problems: Problems) -> None:
    for key, value in spec.labels.items():
        if key in RESERVED_LABEL_KEYS:
            problems.add(("labels", key), f"label {key!r} is set by the pool from its spec and cannot be "
                         f"overridden (reserved: {', '.join(sorted(RESERVED_LABEL_KEYS))})", value)
        elif err := label_key_error(key) or node_label_error(key):
            problems.add(("labels", key), err, key)
        if err := label_value_error(value):
            problems.add(("labels", key), err, value)
    builtin = {(t["key"], t["effect"]) for t in spec.builtin_taints()}
    for i, taint in enumerate(spec.taints):
        if err := label_key_error(taint.key):
            problems.add(("taints", i, "key"), err.replace("label key", "taint key"), taint.key)
        elif err := controller_taint_error(taint.key):
            problems.add(("taints", i, "key"), err, taint.key)
        if err := label_value_error(taint.value):
            problems.add(("taints", i, "value"), err.replace("label value", "taint value"), taint.value)
        if taint.key == v.TAINT_POOL_CLASS_KEY or (taint.key, taint.effect.value) in builtin:
            problems.add(("taints", i, "key"), f"taint {taint.key!r} is set by the pool from its class "
                         "and cannot be given again", taint.key)
