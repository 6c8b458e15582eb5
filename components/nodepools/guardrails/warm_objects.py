"""The warm-capacity objects of one cluster (docs/design.md section 9.4), as plain data.

``nodepools.guardrails.warm`` chooses each warm pool's mechanism; this module builds
what the Guardrails component registers: the ``nodepools-warm`` namespace and its
quota, the ``nodepools-overprovisioning`` PriorityClass, per pool a PodTemplate and a
CapacityBuffer or a placeholder Deployment, and the CapacityBuffer CRD where
cluster-autoscaler serves the buffers (its chart ships no CRDs; Karpenter's does, and
GKE has its own).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from nodepools import vocabulary as v
from nodepools.guardrails import upstream
from nodepools.guardrails.capacity import cpu_quantity, memory_quantity
from nodepools.guardrails.gpu_quota import units_at_max
from nodepools.guardrails.namespaces import QUOTA_NAME
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.guardrails.warm import Mechanism, Server, WarmChoice, karpenter_serves_buffers, serves, warm_choices
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.contract import workload_contract
from nodepools.spec.sharing import gpu_resource
from nodepools.spec.warm import warm_units
from nodepools.vocabulary import PoolClass

Obj = dict[str, Any]

ACTIVE_CAPACITY = "buffer.x-k8s.io/active-capacity"
# Upstream's own pause image, pinned (registry.k8s.io/pause: the kubelet's sandbox image of 1.32+).
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
# The pause binary runs as any user; 65535 is the image's own "nobody".
PAUSE_USER = 65535
OVERPROVISIONING_PRIORITY = -9
LABEL_NAME = "app.kubernetes.io/name"
LABEL_INSTANCE = "app.kubernetes.io/instance"


@dataclass
class WarmPlan:
    choices: list[WarmChoice]
    namespace: Obj
    quota: Obj
    priority_class: Obj
    pod_templates: list[Obj] = field(default_factory=list)
    buffers: list[Obj] = field(default_factory=list)
    placeholders: list[Obj] = field(default_factory=list)
    # The CRD to install (cluster-autoscaler's, of the release we run), None when another installs it.
    crd: Obj | None = None


def _meta(name: str) -> Obj:
    return {"name": name, "namespace": v.WARM_NAMESPACE, "labels": {LABEL_NAME: v.WARM_NAMESPACE}}


def replica_template(choice: WarmChoice) -> Obj:
    """One warm replica: the pool's GPU request, its tolerations and pool selector (its workload
    contract), nothing else the node must give. The pod is never meant to run work."""
    pool, warm = choice.pool, choice.pool.warm
    assert warm is not None
    amounts = {str(gpu_resource(pool)): str(warm.gpus_per_replica)}
    if warm.cpu_millicores is not None:
        amounts["cpu"] = cpu_quantity(warm.cpu_millicores)
    if warm.memory_mib is not None:
        amounts["memory"] = memory_quantity(warm.memory_mib)
    labels = {LABEL_NAME: v.WARM_NAMESPACE, LABEL_INSTANCE: choice.name,
              v.LABEL_PLACEHOLDER: v.LABEL_PLACEHOLDER_VALUE, v.LABEL_WORKLOAD_CLASS: PoolClass.GPU_INFERENCE.value}
    return {"metadata": {"labels": labels}, "spec": {
        **workload_contract(pool).as_dict(),
        "priorityClassName": v.PRIORITY_CLASS_OVERPROVISIONING,
        # Preempted, a placeholder gives its node up at once: the real pod is waiting for it.
        "terminationGracePeriodSeconds": 0,
        "automountServiceAccountToken": False,
        "securityContext": {"runAsNonRoot": True, "runAsUser": PAUSE_USER, "runAsGroup": PAUSE_USER,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{
            "name": "pause", "image": PAUSE_IMAGE,
            "resources": {"requests": dict(amounts), "limits": dict(amounts)},
            "securityContext": {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                "capabilities": {"drop": ["ALL"]}},
        }],
    }}


def _quota(cluster: ClusterPools, choices: Sequence[WarmChoice]) -> Obj:
    units = {name: 0 for name in units_at_max(cluster.pools)}
    for choice in choices:
        units[str(gpu_resource(choice.pool))] += warm_units(choice.pool)
    pods = sum(c.pool.warm.replicas for c in choices if c.mechanism is Mechanism.PLACEHOLDER and c.pool.warm)
    hard = {v.QUOTA_REQUESTS_PREFIX + name: str(count) for name, count in units.items()}
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": _meta(QUOTA_NAME),
            "spec": {"hard": {**hard, "pods": str(pods)}}}


def overprovisioning_class() -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": v.PRIORITY_CLASS_OVERPROVISIONING}, "value": OVERPROVISIONING_PRIORITY,
            "preemptionPolicy": "Never", "globalDefault": False,
            "description": "Warm-capacity placeholders: below every nodepools class, above cluster-autoscaler's "
                           "-10 cutoff (still scaled up for); never preempts, preempted by every class."}


def warm_plan(cluster: ClusterPools, spec: GuardrailsSpec) -> WarmPlan | None:
    """Every warm-capacity object of ``cluster``, or None when no pool keeps warm capacity."""
    choices = warm_choices(cluster, spec)
    if not choices:
        return None
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": v.WARM_NAMESPACE, "labels": {v.LABEL_WORKLOAD_CLASS: PoolClass.GPU_INFERENCE.value}}}
    plan = WarmPlan(choices, namespace, _quota(cluster, choices), overprovisioning_class())
    for choice in choices:
        replicas = choice.pool.warm.replicas if choice.pool.warm else 0
        template = replica_template(choice)
        if choice.mechanism is Mechanism.PLACEHOLDER:
            plan.placeholders.append({
                "apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(choice.name),
                "spec": {"replicas": replicas, "selector": {"matchLabels": {LABEL_INSTANCE: choice.name}},
                         "template": template}})
            continue
        plan.pod_templates.append({"apiVersion": "v1", "kind": "PodTemplate", "metadata": _meta(choice.name),
                                   "template": template})
        plan.buffers.append({"apiVersion": choice.api_version, "kind": "CapacityBuffer", "metadata": _meta(choice.name),
                             "spec": {"provisioningStrategy": ACTIVE_CAPACITY, "podTemplateRef": {"name": choice.name},
                                      "replicas": replicas}})
    if serves(choices, Server.CLUSTER_AUTOSCALER) and not karpenter_serves_buffers(cluster, spec):
        plan.crd = upstream.capacity_buffer_crd(str(spec.autoscaler_image))
    return plan
