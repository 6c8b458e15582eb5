"""Rules between the guardrails spec and the cluster's pools, checked before anything registers.

Errors (each names its field):
- a namespace configured for a GPU class the cluster has no pool of (its GPU
  quota would be 0: nothing could ever run there, almost surely a typo'd layout);
- ``kueue: on`` without a gpu-training pool (the ClusterQueue's GPU quota would be 0);
- with Kueue on, a queued pool with more than 8 taints (a ResourceFlavor holds at most 8 tolerations);
- LimitRange default limits larger than the largest node serving the namespace
  (the API server rejects a LimitRange whose default exceeds its max).

Allowed on purpose: a batch namespace without a batch pool (batch then runs
off-peak on the resident pool), ``kueue: auto``/``off`` without training pools.
"""
from __future__ import annotations

from typing import Sequence

from nodepools.guardrails import derive
from nodepools.guardrails.capacity import largest_node
from nodepools.guardrails.spec import GuardrailsSpec, KueueMode
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import PoolClass

KUEUE_MAX_TOLERATIONS = 8


def _pool_list(pools: Sequence[PoolSpec]) -> str:
    return ", ".join(f"{p.name} ({p.pool_class.value})" for p in pools)


def guardrail_problems(spec: GuardrailsSpec, pools: Sequence[PoolSpec], problems: Problems,
                       root: tuple[str | int, ...] = ()) -> None:
    """Add every problem between ``spec`` and ``pools`` to ``problems`` (locations under ``root``)."""
    present = {p.pool_class for p in pools}
    for pool_class, name in spec.namespaces.items():
        if pool_class.has_gpu and pool_class not in present:
            problems.add(root + ("namespaces", pool_class.value),
                         f"namespace {name!r} is configured for class {pool_class.value}, but the cluster has no "
                         f"{pool_class.value} pool (pools: {_pool_list(pools)}); add a {pool_class.value} pool "
                         f"or remove namespaces[{pool_class.value!r}]", name)
    if spec.kueue is KueueMode.ON and PoolClass.GPU_TRAINING not in present:
        problems.add(root + ("kueue",), "kueue 'on' needs a gpu-training pool: Kueue queues distributed training "
                     "and its ClusterQueue's GPU quota is the training pools' max GPUs (here 0); use 'auto' or "
                     f"'off' (pools: {_pool_list(pools)})", spec.kueue.value)
    if derive.kueue_enabled(spec, pools):
        for pool in pools:
            if pool.pool_class in derive.QUEUED_CLASSES and len(pool.node_taints) > KUEUE_MAX_TOLERATIONS:
                problems.add(root + ("kueue",), f"pool {pool.name!r} has {len(pool.node_taints)} taints; a Kueue "
                             f"ResourceFlavor holds at most {KUEUE_MAX_TOLERATIONS} tolerations (remove taints "
                             "or set kueue: off)", spec.kueue.value)
    _limit_range_problems(spec, pools, problems, root)


def _limit_range_problems(spec: GuardrailsSpec, pools: Sequence[PoolSpec], problems: Problems,
                          root: tuple[str | int, ...]) -> None:
    limits = spec.limit_range
    for pool_class in derive.LIMIT_RANGE_CLASSES:
        serving = derive.serving_pools(pools, pool_class)
        if not serving:
            continue
        node = largest_node(serving)
        for field, value, ceiling, unit in (
                ("default_limit_cpu_millicores", limits.default_limit_cpu_millicores, node.cpu_millicores, "m"),
                ("default_limit_memory_mib", limits.default_limit_memory_mib, node.memory_mib, " MiB")):
            if value > ceiling:
                problems.add(root + ("limit_range", field), f"{field} ({value}) is larger than the largest "
                             f"{pool_class.value} node ({ceiling}{unit}, pools: {_pool_list(serving)}); the "
                             "LimitRange max is one node", value)


def check_guardrails(spec: GuardrailsSpec, pools: Sequence[PoolSpec]) -> None:
    """Raise one pydantic ValidationError listing every problem between ``spec`` and ``pools``."""
    problems = Problems()
    guardrail_problems(spec, pools, problems)
    problems.raise_if_any("GuardrailsSpec")
