"""GPU quota entries per namespace, one per GPU resource name the cluster's pools offer.

docs/design.md section 7: a quota that caps ``requests.nvidia.com/gpu`` but not
``requests.nvidia.com/mig-1g.10gb`` leaves MIG slices unbounded, because a
ResourceQuota only constrains the resources its ``hard`` lists. So every
namespace's quota names every GPU resource any pool of the cluster offers: the
class's own pools' units at max_nodes (GPUs x replicas for time-slicing, slices
x GPUs for MIG), 0 for the others. Only the ``requests.`` form is enforced for
extended resources (docs/kubernetes-facts.md section 4).
"""
from __future__ import annotations

from typing import Sequence

from nodepools import vocabulary as v
from nodepools.guardrails import derive
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import gpu_resource, slots_per_node
from nodepools.vocabulary import PoolClass


def units_at_max(pools: Sequence[PoolSpec]) -> dict[str, int]:
    """GPU resource name -> units the pools offer at max_nodes, ``nvidia.com/gpu`` always first."""
    out = {v.GPU_RESOURCE: 0}
    for pool in pools:
        name = gpu_resource(pool)
        if name is not None:
            out[name] = out.get(name, 0) + slots_per_node(pool) * pool.max_nodes
    return out


def gpu_quota_hard(pools: Sequence[PoolSpec], pool_class: PoolClass) -> dict[str, str]:
    names = units_at_max(pools)
    own = units_at_max(derive.of_class(pools, pool_class)) if pool_class.has_gpu else {}
    return {v.QUOTA_REQUESTS_PREFIX + name: str(own.get(name, 0)) for name in names}


def gpu_quota_zero(pools: Sequence[PoolSpec]) -> dict[str, str]:
    return {v.QUOTA_REQUESTS_PREFIX + name: "0" for name in units_at_max(pools)}
