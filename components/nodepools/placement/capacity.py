"""How much of one node of a pool a pod may request: allocatable = capacity minus
the system reservation, judged per resource.

Capacity comes from the instance table (``nodepools.spec.instances``). The
reservation is the tiered kube-reserved formula GKE documents
(https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes,
"Memory and CPU reservations") and the EKS AMIs use for CPU
(awslabs/amazon-eks-ami, bootstrap ``get_cpu_millicores_to_reserve``):

- CPU: 6% of the first core, 1% of the next core, 0.5% of the next 2 cores,
  0.25% of every core above 4;
- memory: 25% of the first 4 GiB, 20% of the next 4 GiB, 10% of the next 8 GiB,
  6% of the next 112 GiB, 2% above 128 GiB, plus the kubelet's 100 MiB hard
  eviction threshold (GKE's worked example: 150 GiB leaves 140.1423 GiB).

EKS AMIs reserve memory per max pods instead (11 MiB x pods + 255 MiB), less
than these tiers on large nodes, but the kernel also keeps memory that never
shows in the kubelet's capacity; one formula for both clouds is the documented
approximation, so a pod within a few percent of a node's size is a borderline
verdict. GPUs: the instance type's count (or the GKE accelerator
block's). DaemonSet pods, pod overhead and ephemeral storage are not modelled.
An instance type missing from the table cannot be sized: its cpu and memory are
UNKNOWN, never "fits".
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from nodepools.inventory import gpu_offer
from nodepools.inventory.pools import PoolView
from nodepools.inventory.quantities import GIB
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.placement.taints import is_extended_resource
from nodepools.inventory.tri import Tri
from nodepools.spec.instances import lookup
from nodepools.vocabulary import GPU_RESOURCE, is_gpu_resource

MIB = float(2**20)
EVICTION_HARD_MEMORY_BYTES = 100 * MIB
# (size of the tier, fraction reserved); the last tier is unbounded.
CPU_TIERS = ((1.0, 0.06), (1.0, 0.01), (2.0, 0.005), (float("inf"), 0.0025))
MEMORY_TIERS_GIB = ((4.0, 0.25), (4.0, 0.20), (8.0, 0.10), (112.0, 0.06), (float("inf"), 0.02))
# How a size check says the instance type is absent from the table (the only unknown size
# other rules than schedulable look past: docs/design.md section 8).
NOT_IN_TABLE = "is not in the instance table"
# Requested resources no table entry sizes; judged "fits" (not modelled, see above).
_NOT_MODELLED = ("ephemeral-storage", "pods")


def _tiered(amount: float, tiers: tuple[tuple[float, float], ...]) -> float:
    reserved, rest = 0.0, amount
    for size, fraction in tiers:
        step = min(rest, size)
        reserved += step * fraction
        rest -= step
        if rest <= 0:
            break
    return reserved


def reserved_cpu(cores: float) -> float:
    return _tiered(cores, CPU_TIERS)


def reserved_memory_bytes(memory_bytes: float) -> float:
    """kube-reserved memory plus the eviction threshold."""
    return _tiered(memory_bytes / GIB, MEMORY_TIERS_GIB) * GIB + EVICTION_HARD_MEMORY_BYTES


@dataclass(frozen=True)
class NodeSize:
    """Allocatable of one node of ``instance_type``; each figure a float or UNKNOWN."""

    instance_type: Any
    cpu: Any  # cores
    memory: Any  # bytes
    gpus: Any
    # The pool the node belongs to: GPU resources follow its sharing (inventory/gpu_offer.py).
    pool: PoolView

    def allocatable(self, resource: str) -> Any:
        if resource == "cpu":
            return self.cpu
        if resource == "memory":
            return self.memory
        if is_gpu_resource(resource):
            if is_unknown(self.gpus):
                return UNKNOWN
            return gpu_offer.per_node(replace(self.pool, gpu_count=self.gpus), resource)
        if resource.startswith("hugepages-") or is_extended_resource(resource):
            return UNKNOWN  # pre-allocated hugepages / other device plugins: not modelled
        return None  # not judged


def node_sizes(pool: PoolView) -> list[NodeSize]:
    """One entry per instance type the pool may launch (one entry of UNKNOWNs when
    the types themselves are unknown)."""
    types = pool.instance_types
    if is_unknown(types) or not types:
        return [NodeSize(UNKNOWN, UNKNOWN, UNKNOWN, pool.gpu_count, pool)]
    sizes = []
    for name in types:
        entry = lookup(name)
        # One type: the reader's count also covers a GKE accelerator block on a
        # machine type the table lacks (n1 + T4); several types: each its own.
        # A pool read as GPU-less (a Karpenter CPU family the table lacks) has none on any type.
        gpus = pool.gpu_count if len(types) == 1 or pool.gpu_count == 0 else (
            float(entry.gpu_count) if entry else UNKNOWN)
        if entry is None:
            sizes.append(NodeSize(name, UNKNOWN, UNKNOWN, gpus, pool))
            continue
        memory = entry.memory_gib * GIB
        cpu = entry.vcpu - reserved_cpu(entry.vcpu)
        sizes.append(NodeSize(name, cpu, memory - reserved_memory_bytes(memory), gpus, pool))
    return sizes


def _format(resource: str, amount: float) -> str:
    if resource == "memory":
        return f"{amount / GIB:.2f}Gi"
    return f"{round(amount, 3):g}"


def fits_node(requests: Mapping[str, float], size: NodeSize) -> tuple[Tri, str]:
    """Whether a pod with these effective requests fits an empty node of ``size``."""
    undecided = ""
    for resource in sorted(requests, key=lambda r: (r not in ("cpu", "memory", GPU_RESOURCE), r)):
        wanted = requests[resource]
        if wanted <= 0 or resource in _NOT_MODELLED:
            continue
        have = size.allocatable(resource)
        if have is None:
            continue
        if is_unknown(have):
            undecided = undecided or _why_unknown(resource, size)
        elif wanted > have:
            return False, (f"too big for {size.instance_type}: requests {resource} {_format(resource, wanted)} "
                           f"> allocatable {_format(resource, have)}")
    return (UNKNOWN, undecided) if undecided else (True, "")


def _why_unknown(resource: str, size: NodeSize) -> str:
    if is_unknown(size.instance_type):
        return "instance types unknown at preview: cannot judge size"
    if resource in ("cpu", "memory"):
        return f"instance type {size.instance_type} {NOT_IN_TABLE}: cannot judge size"
    return f"{resource} on {size.instance_type} is not modelled: cannot judge size"


def fits_pool(requests: Mapping[str, float], pool: PoolView) -> tuple[Tri, str]:
    """Fits when it fits one node of some instance type of the pool; too big only
    when too big for every type (the reason names the first)."""
    answers = [fits_node(requests, size) for size in node_sizes(pool)]
    if any(a is True for a, _ in answers):
        return True, ""
    undecided = [why for a, why in answers if is_unknown(a)]
    if undecided:
        return UNKNOWN, undecided[0]
    return False, answers[0][1]
