"""The app side of the workload contract: what an app stack puts in its pod specs.

A platform stack exports every pool's contract (``pools.<name>.contract``); an
app stack reads it through a StackReference, so the tolerations and affinity it
deploys are exactly the platform's. Without a platform stack (a first preview,
a test) the contract is derived from the pool's spec, exactly as the platform
derives it.
"""
from __future__ import annotations

import weakref
from typing import Any, Mapping

import pulumi
from pulumi.runtime.settings import get_monitor

from nodepools.spec.contract import workload_contract
from nodepools.spec.pool import PoolSpec


def pool_contract(pool: PoolSpec | Mapping[str, Any], platform_stack: str | None = None) -> pulumi.Output:
    """The pool's ``{"tolerations", "affinity", "nodeSelector"}``: from ``platform_stack``
    (``org/project/stack``) when given, else from ``pool`` (a PoolSpec or its fields)."""
    if platform_stack:
        name = pool.name if isinstance(pool, PoolSpec) else pool["name"]
        pools = _platform_pools(platform_stack)
        return pools.apply(lambda exported: exported[name]["contract"])
    spec = pool if isinstance(pool, PoolSpec) else PoolSpec.model_validate(dict(pool))
    return pulumi.Output.from_input(workload_contract(spec).as_dict())


# One StackReference per platform stack and run, however many pools an app reads:
# a second StackReference of the same name would be a duplicate URN. Keyed by the
# run's monitor so each program (and each unit test's set_mocks) starts afresh.
_REFERENCES: "weakref.WeakKeyDictionary[Any, dict[str, pulumi.Output]]" = weakref.WeakKeyDictionary()


def _platform_pools(platform_stack: str) -> pulumi.Output:
    monitor = get_monitor()
    try:
        per_run = _REFERENCES.setdefault(monitor, {}) if monitor is not None else {}
    except TypeError:  # a monitor that cannot be weakly referenced: no sharing, still correct per call
        per_run = {}
    if platform_stack not in per_run:
        per_run[platform_stack] = pulumi.StackReference(platform_stack).require_output("pools")
    return per_run[platform_stack]
