"""Which guardrails a cluster gets, derived from its pools and the spec.

One place answers "which namespaces exist", "which pools serve a class", "is
Kueue on", so the builders, the cross-checks and the component never disagree.
"""
from __future__ import annotations

from typing import Sequence

from nodepools.guardrails.spec_fields import GuardrailsFields, KueueMode
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import PoolClass

# With a resident pool, CPU work always has somewhere to run, so these namespaces
# always exist (batch without a batch pool runs off-peak on the resident pool);
# a GPU class's namespace exists only with a pool of that class. A platform over an
# attached cluster's own system nodes (no resident pool: docs/design.md section 9)
# gets a namespace only for the classes it has pools of: it owns no capacity for the rest.
ALWAYS_PRESENT = (PoolClass.RESIDENT, PoolClass.BATCH)
# Classes whose namespaces get a LimitRange: their pods are bursty and often
# written without resources (docs/design.md section 3, batch-limitrange).
LIMIT_RANGE_CLASSES = (PoolClass.BATCH, PoolClass.GPU_TRAINING)
# The capacity the batch share is taken from: the CPU pools. GPU nodes are kept
# for GPU work (gpu-nodes-gpu-only), so they are not capacity batch may use.
BATCH_SHARE_OF = (PoolClass.RESIDENT, PoolClass.BATCH)
# Classes Kueue queues. Inference is served, not queued: a model server waiting
# in a queue is an outage, so inference pools get no flavor.
QUEUED_CLASSES = (PoolClass.BATCH, PoolClass.GPU_TRAINING)


def of_class(pools: Sequence[PoolSpec], pool_class: PoolClass) -> list[PoolSpec]:
    return [p for p in pools if p.pool_class is pool_class]


def namespace_classes(pools: Sequence[PoolSpec]) -> list[PoolClass]:
    """Classes that get a namespace, in class order."""
    present = {p.pool_class for p in pools}
    always = ALWAYS_PRESENT if PoolClass.RESIDENT in present else ()
    return [c for c in PoolClass if c in always or c in present]


def serving_pools(pools: Sequence[PoolSpec], pool_class: PoolClass) -> list[PoolSpec]:
    """The pools a class's pods run on. Batch without a batch pool runs on the
    resident pool (off-peak CronJobs, docs/design.md shared-pool-off-peak)."""
    own = of_class(pools, pool_class)
    if not own and pool_class is PoolClass.BATCH:
        return of_class(pools, PoolClass.RESIDENT)
    return own


def batch_share_pools(pools: Sequence[PoolSpec]) -> list[PoolSpec]:
    return [p for p in pools if p.pool_class in BATCH_SHARE_OF]


def kueue_enabled(spec: GuardrailsFields, pools: Sequence[PoolSpec]) -> bool:
    if spec.kueue is KueueMode.AUTO:
        return bool(of_class(pools, PoolClass.GPU_TRAINING))
    return spec.kueue is KueueMode.ON


def queued_classes(pools: Sequence[PoolSpec]) -> list[PoolClass]:
    """Classes that get a Kueue ClusterQueue: queued classes that have pools."""
    return [c for c in QUEUED_CLASSES if of_class(pools, c)]


def alerts_namespace(spec: GuardrailsFields) -> str:
    return spec.alerts.namespace or spec.namespace_names[PoolClass.RESIDENT]
