"""Karpenter NodePool rules (docs/design.md section 7): spend caps and disruption of running jobs.

- ``pool-spend-cap``: a NodePool without ``spec.limits``, or a GPU-capable one whose
  limits omit ``nvidia.com/gpu``, can buy capacity without bound.
- ``training-disruption``: a gpu-training or batch NodePool that consolidates
  underutilized nodes (``WhenEmptyOrUnderutilized``, also the CRD's default)
  evicts running jobs to save money, unless their pods carry
  ``karpenter.sh/do-not-disrupt: "true"``.
"""
from __future__ import annotations

from typing import Iterator

from nodepools import vocabulary as v
from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import as_dict, dig, is_unknown
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.podpaths import NODE_AGENT_KINDS, meta_path, subject
from nodepools.policies.rules_placement import definite, maybe, pool_names, verdicts_by_workload
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView

JOB_CLASSES = (v.PoolClass.GPU_TRAINING, v.PoolClass.BATCH)
UNDERUTILIZED = "WhenEmptyOrUnderutilized"
# The CRD's default consolidationPolicy (karpenter.sh_nodepools.yaml@v1.14.1).
DEFAULT_POLICY = UNDERUTILIZED


@one_per_resource
def check_pool_spend_cap(res: Resource, settings: Settings) -> Iterator[Finding]:
    if res.type != v.TYPE_KARPENTER_NODE_POOL:
        return
    pool = read_pool(res.type, res.props, res.urn, res.name)
    limits = dig(res.props, "spec", "limits")
    meta_name = dig(res.props, "metadata", "name")
    name = subject_of(res.type, meta_name if isinstance(meta_name, str) else res.name)
    if is_unknown(limits):
        yield unknown(res.urn, name, "spec.limits")
        return
    limits = as_dict(limits)
    if not limits:
        yield Finding(res.urn, name, "spec.limits", "the NodePool has no limits, so Karpenter can launch nodes "
                      "(GPU nodes included) without bound", "set spec.limits cpu and memory (and nvidia.com/gpu on "
                      "GPU pools) to the pool's maximum size")
        return
    gpu = pool.is_gpu if pool is not None else False
    if v.GPU_RESOURCE not in limits:
        if gpu is True:
            yield Finding(res.urn, name, "spec.limits", "a GPU-capable NodePool whose limits omit nvidia.com/gpu "
                          "can buy GPUs without bound", "add nvidia.com/gpu to spec.limits (GPUs per node x "
                          "maximum nodes)")
        elif is_unknown(gpu):
            yield unknown(res.urn, name, "spec.template.spec.requirements",
                          why="whether the NodePool can launch GPU nodes is unknown")


def _consolidates_running_nodes(res: Resource) -> object:
    policy = dig(res.props, "spec", "disruption", "consolidationPolicy", default=DEFAULT_POLICY)
    return policy if is_unknown(policy) else policy == UNDERUTILIZED


def _do_not_disrupt(annotations: object) -> object:
    if is_unknown(annotations):
        return annotations
    value = as_dict(annotations).get(v.ANNOTATION_KARPENTER_DO_NOT_DISRUPT)
    return value if is_unknown(value) else value == "true"


@one_per_resource
def check_training_disruption(stack: StackView, settings: Settings) -> Iterator[Finding]:
    consolidating = {r.urn: _consolidates_running_nodes(r) for r in stack.of_type(v.TYPE_KARPENTER_NODE_POOL)}
    verdicts = verdicts_by_workload(stack)
    for ref in stack.workloads:
        if ref.workload.kind in NODE_AGENT_KINDS:
            continue
        for template in ref.workload.templates:
            mine = [x for x in verdicts[ref.workload.urn] if x.template.role == template.role
                    and x.pool.urn in consolidating and x.pool.pool_class in JOB_CLASSES]
            risky = [x for x in mine if definite(x) and consolidating[x.pool.urn] is True]
            possible = [x for x in mine if consolidating[x.pool.urn] is not False
                        and (maybe(x) or (definite(x) and is_unknown(consolidating[x.pool.urn])))]
            protected = _do_not_disrupt(template.annotations)
            if protected is True or not (risky or possible):
                continue
            field = f"{meta_path(ref.workload, template)}.annotations"
            if risky and protected is False:
                yield Finding(ref.res.urn, subject(ref), field,
                              f"it can land on NodePool(s) {pool_names(risky)}, whose consolidationPolicy "
                              f"{UNDERUTILIZED} evicts running pods to save money, and its pods lack "
                              f"{v.ANNOTATION_KARPENTER_DO_NOT_DISRUPT}: \"true\"",
                              f"annotate the pod template {v.ANNOTATION_KARPENTER_DO_NOT_DISRUPT}: \"true\", or set "
                              "the NodePool's spec.disruption.consolidationPolicy to WhenEmpty", ref.namespace)
            else:
                yield unknown(ref.res.urn, subject(ref), field, ref.namespace,
                              "whether a consolidating Karpenter pool can evict it is unknown")
