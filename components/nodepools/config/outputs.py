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

from nodepools.components.pools import NodePool


def pools_outputs(pools: Mapping[str, NodePool]) -> dict[str, dict[str, Any]]:
    return {name: pool.outputs.as_dict() for name, pool in pools.items()}
