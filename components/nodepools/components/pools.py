"""The thin pool component: one ``NodePool`` of any class.

The component validates its spec (and the target's cloud-specific rules)
*before* calling ``super().__init__``, so a bad spec registers nothing, not even
the component itself. Everything else is the backend's job.
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi

from nodepools.backends.base import ClusterTarget, RegisteredPool
from nodepools.components.validated import ValidatedPlatform
from nodepools.spec.contract import WorkloadContract, workload_contract
from nodepools.spec.outputs import PoolOutputs, pool_outputs
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import COMPONENT_NODE_POOL


class NodePool(pulumi.ComponentResource):
    """One node pool of any class, on the cloud of ``cluster``.

    ``spec`` is a ``PoolSpec`` or its fields as a mapping (``name`` defaults to the
    resource name). It is checked against the cloud's rules unless ``validated``
    (from ``validate_platform``) already covers it. Outputs: ``outputs``, a ``PoolOutputs``
    (class, capacity, sizes, GPUs, node labels and taints, and the ``contract``: tolerations +
    required node affinity a workload needs to land here), registered in its camelCase spelling.
    """

    spec: PoolSpec
    contract: WorkloadContract
    registered: RegisteredPool
    outputs: PoolOutputs

    def __init__(self, resource_name: str, spec: PoolSpec | Mapping[str, Any], cluster: ClusterTarget,
                 opts: pulumi.ResourceOptions | None = None, *, validated: ValidatedPlatform | None = None) -> None:
        if not isinstance(spec, PoolSpec):
            spec = PoolSpec.model_validate({"name": resource_name, **dict(spec)})
        if validated is None or not validated.covers_pool(spec, cluster):
            cluster.check_pool(spec)
        super().__init__(COMPONENT_NODE_POOL, resource_name, None, opts)
        self.spec = spec
        self.contract = workload_contract(spec)
        self.registered = cluster.register_pool(spec, parent=self)
        self.node_labels = dict(self.registered.node_labels or spec.node_labels)
        self.node_taints = [t.as_k8s() for t in spec.node_taints]
        self.outputs = pool_outputs(spec, self.contract, self.node_labels)
        self.register_outputs(self.outputs.as_dict())
