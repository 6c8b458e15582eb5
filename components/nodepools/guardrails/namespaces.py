"""Namespaces per workload class, their ResourceQuotas and LimitRanges.

- Every namespace is labelled ``nodepools.io/workload-class`` (how the policy
  pack resolves a workload's class when its pod template does not say).
- Every quota carries ``requests.nvidia.com/gpu`` (only the ``requests.`` prefix
  is enforced for extended resources, docs/kubernetes-facts.md section 4): 0 for a
  class without GPU pools, else the class's pools' GPUs at max_nodes; and one
  ``requests.nvidia.com/mig-<profile>`` per MIG profile the cluster offers
  (``gpu_quota.py``: shared pools count replicas and slices).
- The batch quota caps cpu and memory at ``batch_quota_share`` of the resident
  and batch pools' capacity at max_nodes, so batch can never take the services' room.
- With ``quota_priority_class_scopes`` each namespace also gets a quota admitting
  no pod whose PriorityClass is not its own (``pods: 0`` scoped ``PriorityClass
  NotIn [own]``), so a batch job cannot claim resident priority. Pods naming no
  class are refused too; extended resources are valid under a PriorityClass scope.
"""
from __future__ import annotations

from typing import Any, Sequence

from nodepools.guardrails import derive
from nodepools.guardrails.gpu_quota import gpu_quota_hard, gpu_quota_zero
from nodepools.guardrails.capacity import cpu_quantity, largest_node, memory_quantity, total_capacity
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import LABEL_WORKLOAD_CLASS, PRIORITY_CLASS_NAMES, PoolClass

QUOTA_NAME = "nodepools-quota"
FOREIGN_PRIORITY_QUOTA_NAME = "nodepools-foreign-priority"
LIMIT_RANGE_NAME = "nodepools-container-defaults"


def namespaces(spec: GuardrailsSpec, pools: Sequence[PoolSpec]) -> dict[PoolClass, dict[str, Any]]:
    names = spec.namespace_names
    return {c: {"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": names[c], "labels": {LABEL_WORKLOAD_CLASS: c.value}}}
            for c in derive.namespace_classes(pools)}


def gpu_quota(pools: Sequence[PoolSpec], pool_class: PoolClass) -> int:
    if not pool_class.has_gpu:
        return 0
    return total_capacity(derive.of_class(pools, pool_class)).gpus


def quota_hard(spec: GuardrailsSpec, pools: Sequence[PoolSpec], pool_class: PoolClass) -> dict[str, str]:
    hard = gpu_quota_hard(pools, pool_class)
    if pool_class is PoolClass.BATCH:
        share = total_capacity(derive.batch_share_pools(pools)).share(spec.batch_quota_share)
        hard["requests.cpu"] = cpu_quantity(share.cpu_millicores)
        hard["requests.memory"] = memory_quantity(share.memory_mib)
    return hard


def _quota(name: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": namespace},
            "spec": spec}


def resource_quotas(spec: GuardrailsSpec, pools: Sequence[PoolSpec]) -> list[tuple[PoolClass, dict[str, Any]]]:
    out = []
    names = spec.namespace_names
    for pool_class in derive.namespace_classes(pools):
        out.append((pool_class, _quota(QUOTA_NAME, names[pool_class],
                                       {"hard": quota_hard(spec, pools, pool_class)})))
        if spec.quota_priority_class_scopes:
            scope = {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "NotIn",
                                           "values": [PRIORITY_CLASS_NAMES[pool_class]]}]}
            out.append((pool_class, _quota(FOREIGN_PRIORITY_QUOTA_NAME, names[pool_class], {
                "hard": {"pods": "0", **gpu_quota_zero(pools)}, "scopeSelector": scope})))
    return out


def limit_ranges(spec: GuardrailsSpec, pools: Sequence[PoolSpec]) -> list[tuple[PoolClass, dict[str, Any]]]:
    """Container defaults (so a pod without resources is bounded) and a per-container
    max of one node of the largest pool serving the class."""
    limits = spec.limit_range
    out = []
    for pool_class in derive.namespace_classes(pools):
        serving = derive.serving_pools(pools, pool_class)
        if pool_class not in derive.LIMIT_RANGE_CLASSES or not serving:
            continue
        node = largest_node(serving)
        out.append((pool_class, {
            "apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": LIMIT_RANGE_NAME, "namespace": spec.namespace_names[pool_class]},
            "spec": {"limits": [{
                "type": "Container",
                "defaultRequest": {"cpu": cpu_quantity(limits.default_request_cpu_millicores),
                                   "memory": memory_quantity(limits.default_request_memory_mib)},
                "default": {"cpu": cpu_quantity(limits.default_limit_cpu_millicores),
                            "memory": memory_quantity(limits.default_limit_memory_mib)},
                "max": {"cpu": cpu_quantity(node.cpu_millicores), "memory": memory_quantity(node.memory_mib)},
            }]},
        }))
    return out
