"""Thin pool components: one ``NodePool`` and a class-named subclass per pool class.

The component validates its spec (and the target's cloud-specific rules)
*before* calling ``super().__init__``, so a bad spec registers nothing, not even
the component itself. Everything else is the backend's job.
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi

from nodepools.backends.base import ClusterTarget, RegisteredPool
from nodepools.spec.contract import WorkloadContract, workload_contract
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import COMPONENT_NODE_POOL, PoolClass


class NodePool(pulumi.ComponentResource):
    """One node pool of any class, on the cloud of ``cluster``.

    ``spec`` is a ``PoolSpec`` or its fields as a mapping (``name`` defaults to the
    resource name). Outputs: ``pool_name``, ``pool_class``, ``node_labels``,
    ``node_taints`` and ``contract`` (tolerations + required node affinity a
    workload needs to land here).
    """

    spec: PoolSpec
    contract: WorkloadContract
    registered: RegisteredPool

    def __init__(self, resource_name: str, spec: PoolSpec | Mapping[str, Any], cluster: ClusterTarget,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        if not isinstance(spec, PoolSpec):
            spec = PoolSpec.model_validate({"name": resource_name, **dict(spec)})
        cluster.check_pool(spec)
        super().__init__(COMPONENT_NODE_POOL, resource_name, None, opts)
        self.spec = spec
        self.contract = workload_contract(spec)
        self.registered = cluster.register_pool(spec, parent=self)
        self.node_labels = dict(self.registered.node_labels or spec.node_labels)
        self.node_taints = [t.as_k8s() for t in spec.node_taints]
        self.register_outputs({
            "poolName": spec.name,
            "poolClass": spec.pool_class.value,
            "capacity": spec.capacity.value,
            "nodeLabels": self.node_labels,
            "nodeTaints": self.node_taints,
            "contract": self.contract.as_dict(),
            "gpuResource": self.contract.gpu_resource,
        })


class _ClassPool(NodePool):
    pool_class: PoolClass

    def __init__(self, resource_name: str, cluster: ClusterTarget, *, opts: pulumi.ResourceOptions | None = None,
                 **fields: Any) -> None:
        super().__init__(resource_name, {**fields, "pool_class": self.pool_class}, cluster, opts)


class ResidentPool(_ClassPool):
    """Always-on services: on-demand, min >= 1, untainted unless ``dedicated=True``."""

    pool_class = PoolClass.RESIDENT


class BatchPool(_ClassPool):
    """Bursty jobs: tainted ``nodepools.io/pool-class=batch``, scales to zero."""

    pool_class = PoolClass.BATCH


class GpuInferencePool(_ClassPool):
    """Model serving: GPU, on-demand only, min >= 1, class and GPU taints."""

    pool_class = PoolClass.GPU_INFERENCE


class GpuTrainingPool(_ClassPool):
    """Training: GPU, spot by default, scales to zero, class and GPU taints."""

    pool_class = PoolClass.GPU_TRAINING
