"""What a stack exports per pool, for app stacks reading it through a StackReference.

Shape of ``pools[<name>]`` (camelCase, as the NodePool component's own outputs):
``poolClass``, ``provisioner``, ``capacity``, ``minNodes`` (None for a Karpenter pool:
Karpenter keeps no minimum), ``maxNodes``, ``instanceTypes``,
``gpu`` (``{model, countPerNode}`` or None), ``nodeLabels``, ``nodeTaints``
(Kubernetes shape) and ``contract``: the ``tolerations``, ``affinity`` and
``nodeSelector`` a pod template needs to land on the pool.
"""
from __future__ import annotations

from typing import Any, Mapping

from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.sharing import memory_per_slot_gib
from nodepools.components.pools import NodePool


def pool_outputs(pool: NodePool) -> dict[str, Any]:
    spec = pool.spec
    gpu = None
    if spec.has_gpu and spec.gpu_model is not None:
        # The resource an app requests here and the GPU memory one request gets (docs/design.md section 7).
        gpu = {"model": spec.gpu_model.value, "countPerNode": spec.gpus_per_node,
               "resource": pool.contract.gpu_resource, "sharing": spec.gpu_sharing.mode.value,
               "memoryGiBPerRequest": memory_per_slot_gib(spec)}
    return {
        "poolClass": spec.pool_class.value,
        "provisioner": spec.provisioner.value,
        "capacity": spec.capacity.value,
        "minNodes": None if is_karpenter(spec) else spec.min_nodes,
        "maxNodes": spec.max_nodes,
        "instanceTypes": list(spec.instance_types),
        "gpu": gpu,
        "nodeLabels": dict(pool.node_labels),
        "nodeTaints": list(pool.node_taints),
        "contract": pool.contract.as_dict(),
    }


def pools_outputs(pools: Mapping[str, NodePool]) -> dict[str, dict[str, Any]]:
    return {name: pool_outputs(pool) for name, pool in pools.items()}
