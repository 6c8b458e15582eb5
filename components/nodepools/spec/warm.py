"""Warm capacity of a gpu-inference pool: spare replicas kept ready for the first seconds of a spike.

docs/design.md section 9.4 ("Inference that keeps up with load"). A new replica on a
cold pool waits for a GPU node to boot, its driver and device plugin to come up, and
the model to load; warm capacity keeps ``replicas`` replica-shaped slots free on the
pool, so a new replica waits for the model load only. The guardrails decide what
holds the slots (``nodepools.guardrails.warm``: a CapacityBuffer where the autoscaler
serves one, else placeholder pods that real pods preempt).

One replica's shape is ``gpus_per_replica`` of the pool's GPU resource (whole GPUs,
one time-slice, or one MIG slice: ``nodepools.spec.sharing.gpu_resource``) plus,
optionally, its cpu and memory. On a shared pool a replica is exactly one unit: a
time-sliced request for more than one is refused by the device plugin
(``failRequestsGreaterThanOne``) and by GKE, and a MIG slice is one device to the
process using it, so several slices are not one replica's GPU (a larger model takes
a larger profile, not more slices).
"""
from __future__ import annotations

from nodepools.spec.errors import Problems
from nodepools.spec.instances import InstanceType
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.options import GpuSharingMode, WarmCapacity
from nodepools.spec.pool_fields import PoolFields
from nodepools.spec.sharing import gpu_resource, slots_per_node
from nodepools.vocabulary import PoolClass

WARM_CLASSES = (PoolClass.GPU_INFERENCE,)


def replicas_per_node(spec: PoolFields) -> int:
    """Warm replicas one node of ``spec`` holds (by its GPU units)."""
    warm = spec.warm
    return slots_per_node(spec) // warm.gpus_per_replica if warm is not None else 0


def warm_units(spec: PoolFields) -> int:
    """Units of ``gpu_resource(spec)`` the pool's warm capacity holds."""
    return spec.warm.replicas * spec.warm.gpus_per_replica if spec.warm is not None else 0


def check_warm(spec: PoolFields, problems: Problems, types: list[InstanceType]) -> None:
    """Every problem of ``spec.warm``; the shape rules only once ``types`` resolved."""
    warm = spec.warm
    if warm is None:
        return
    if spec.pool_class not in WARM_CLASSES:
        problems.add("warm", f"warm capacity is for gpu-inference pools only (this pool's class is "
                     f"{spec.pool_class.value}; allowed: {', '.join(c.value for c in WARM_CLASSES)}): it keeps "
                     "model-server replicas ready, queued classes wait for capacity by design",
                     warm.model_dump(mode="json"))
        return
    if not is_karpenter(spec) and spec.min_nodes == spec.max_nodes:
        problems.add("warm", f"warm capacity needs a pool that scales (min_nodes < max_nodes); this pool's "
                     f"{spec.max_nodes} nodes are always up, so it is warm already: drop warm or raise max_nodes",
                     warm.model_dump(mode="json"))
    if not types or not spec.gpus_per_node:
        return  # the instance types' own problems (no GPU) are reported by pool_rules
    _check_shape(spec, warm, problems, types)


def _check_shape(spec: PoolFields, warm: WarmCapacity, problems: Problems, types: list[InstanceType]) -> None:
    mode, resource = spec.gpu_sharing.mode, gpu_resource(spec)
    if mode is GpuSharingMode.MIG and warm.gpus_per_replica != 1:
        problems.add(("warm", "gpus_per_replica"), f"a warm replica on a MIG pool is one {spec.gpu_sharing.profile} "
                     f"slice ({resource}): a slice is one device to the model server, so {warm.gpus_per_replica} "
                     "slices are not one replica's GPU and the buffer cannot hold that shape (allowed: 1; a larger "
                     "model takes a larger MIG profile)", warm.gpus_per_replica)
        return
    if mode is GpuSharingMode.TIME_SLICING and warm.gpus_per_replica != 1:
        problems.add(("warm", "gpus_per_replica"), f"a warm replica on a time-sliced pool requests one share of "
                     f"{resource} (allowed: 1): the device plugin and GKE refuse more than one per container",
                     warm.gpus_per_replica)
        return
    if mode is GpuSharingMode.NONE and warm.gpus_per_replica > spec.gpus_per_node:
        problems.add(("warm", "gpus_per_replica"), f"warm.gpus_per_replica ({warm.gpus_per_replica}) is more than "
                     f"one node's GPUs (allowed: 1-{spec.gpus_per_node})", warm.gpus_per_replica)
        return
    node_cpu, node_mib = min(t.vcpu for t in types) * 1000, min(int(t.memory_gib * 1024) for t in types)
    for field, value, ceiling, unit in (("cpu_millicores", warm.cpu_millicores, node_cpu, "millicores"),
                                        ("memory_mib", warm.memory_mib, node_mib, "MiB")):
        if value is not None and value > ceiling:
            problems.add(("warm", field), f"warm.{field} ({value}) is more than one node of the pool has "
                         f"({ceiling} {unit}; allowed: 1-{ceiling})", value)
    per_node = replicas_per_node(spec)
    most = per_node * spec.max_nodes
    if warm.replicas > most:
        problems.add(("warm", "replicas"), f"warm.replicas ({warm.replicas}) is more than the pool holds at "
                     f"max_nodes ({spec.max_nodes} nodes x {per_node} replica(s) per node = {most}; allowed: "
                     f"1-{most})", warm.replicas)
