"""What a stack exports per pool, for app stacks reading it through a StackReference.

``pools[<name>]`` is the pool's ``PoolOutputs`` (``nodepools.spec.outputs``), the same
shape and spelling the NodePool component registers and the multi-language components
return: ``poolName``, ``poolClass``, ``provisioner``, ``capacity``, ``minNodes`` (None for
a Karpenter pool), ``maxNodes``, ``instanceTypes``, ``gpu`` (``{model, countPerNode,
resource, sharing, memoryGibPerRequest}`` or None), ``nodeLabels``, ``nodeTaints``
(Kubernetes shape) and ``contract``: the ``tolerations``, ``affinity`` and
``nodeSelector`` a pod template needs to land on the pool.
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi

from nodepools.components.pools import NodePool

# The config keys each stack export is built from (the cluster's settings reach every one:
# its system nodes shape the layout, its zones the pools, its cloud the alerts).
EXPORT_SOURCES = {"cluster": {"cluster"}, "layout": {"layout", "pools", "cluster"}, "pools": {"pools", "cluster"},
                  "alerts": {"guardrails", "cluster"}}


def pools_outputs(pools: Mapping[str, NodePool]) -> dict[str, dict[str, Any]]:
    return {name: pool.outputs.as_dict() for name, pool in pools.items()}


def exported(name: str, value: Any, secret_keys: frozenset[str]) -> Any:
    """``value`` as the stack exports it under ``name``: a secret when a config key it is built
    from is marked secret, so ``pulumi stack output`` and StackReferences keep the marking."""
    if EXPORT_SOURCES[name] & secret_keys:
        return pulumi.Output.secret(value)
    return value
