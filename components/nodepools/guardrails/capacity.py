"""Pool capacity from max_nodes and the instance table, and Kubernetes quantity spelling.

A pool may list several instance types of one GPU count but different sizes
(``m6i.xlarge``, ``m6i.2xlarge``). Quotas and ceilings use the *smallest* listed
type: that is the capacity the pool is sure to have at ``max_nodes``, so a quota
derived from it never promises capacity the autoscaler may not deliver.
Exact arithmetic (``Fraction``) keeps shares like 0.45 free of float noise.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable

from nodepools.spec.pool import PoolSpec


@dataclass(frozen=True)
class Capacity:
    """cpu in millicores, memory in MiB, GPUs as a count."""

    cpu_millicores: int = 0
    memory_mib: int = 0
    gpus: int = 0

    def __add__(self, other: "Capacity") -> "Capacity":
        return Capacity(self.cpu_millicores + other.cpu_millicores, self.memory_mib + other.memory_mib,
                        self.gpus + other.gpus)

    def share(self, fraction: float) -> "Capacity":
        """``fraction`` of cpu and memory, rounded down (a quota never exceeds the share)."""
        f = Fraction(str(fraction))
        return Capacity(int(self.cpu_millicores * f), int(self.memory_mib * f), int(self.gpus * f))


def node_capacity(pool: PoolSpec) -> Capacity:
    """One node of ``pool``: its smallest instance type."""
    cpu = min(t.vcpu for t in pool.instances) * 1000
    memory = min(int(Fraction(str(t.memory_gib)) * 1024) for t in pool.instances)
    return Capacity(cpu, memory, pool.gpus_per_node)


def max_capacity(pool: PoolSpec) -> Capacity:
    """``pool`` at ``max_nodes``."""
    node = node_capacity(pool)
    return Capacity(node.cpu_millicores * pool.max_nodes, node.memory_mib * pool.max_nodes,
                    node.gpus * pool.max_nodes)


def total_capacity(pools: Iterable[PoolSpec]) -> Capacity:
    total = Capacity()
    for pool in pools:
        total = total + max_capacity(pool)
    return total


def largest_node(pools: Iterable[PoolSpec]) -> Capacity:
    """The largest per-node cpu and memory among ``pools`` (each pool at its smallest type)."""
    nodes = [node_capacity(p) for p in pools]
    return Capacity(max(n.cpu_millicores for n in nodes), max(n.memory_mib for n in nodes),
                    max(n.gpus for n in nodes))


def cpu_quantity(millicores: int) -> str:
    """``4000`` -> ``"4"``, ``5850`` -> ``"5850m"``."""
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def memory_quantity(mib: int) -> str:
    """``16384`` -> ``"16Gi"``, ``7372`` -> ``"7372Mi"``."""
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"
