"""The app side of the workload contract: what an app stack puts in its pod specs.

A platform stack exports every pool's contract (``pools.<name>.contract``); an
app stack reads it through a StackReference, so the tolerations and affinity it
deploys are exactly the platform's. Without a platform stack (a first preview,
a test) the contract is derived from the pool's spec, exactly as the platform
derives it.

Nothing is remembered between calls: a StackReference is either the app's own, passed in and
shared by every pool it reads, or made for the one pool read, named after the stack and the pool.
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi

from nodepools.spec.contract import workload_contract
from nodepools.spec.pool import PoolSpec


def pool_contract(pool: PoolSpec | Mapping[str, Any],
                  platform_stack: str | pulumi.StackReference | None = None) -> pulumi.Output:
    """The pool's ``{"tolerations", "affinity", "nodeSelector"}``, from the platform stack's ``pools``
    output when ``platform_stack`` is given, else from ``pool`` (a PoolSpec or its fields).

    ``platform_stack`` is a ``pulumi.StackReference`` the app made once (every pool read through it
    shares it), or the stack's name ``org/project/stack``: then this pool has a StackReference of
    its own, named ``<org/project/stack>/<pool>``, so a program reads each pool once by name (keep
    the Output, or pass a StackReference, to read one twice: a second reference of the same name
    is a duplicate URN)."""
    name = pool.name if isinstance(pool, PoolSpec) else pool["name"]
    if isinstance(platform_stack, pulumi.StackReference):
        reference = platform_stack
    elif platform_stack:
        reference = pulumi.StackReference(f"{platform_stack}/{name}", stack_name=platform_stack)
    else:
        spec = pool if isinstance(pool, PoolSpec) else PoolSpec.model_validate(dict(pool))
        return pulumi.Output.from_input(workload_contract(spec).as_dict())
    return reference.require_output("pools").apply(lambda exported: exported[name]["contract"])
