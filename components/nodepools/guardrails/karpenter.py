"""Karpenter's Helm release: the official chart from its OCI registry, pinned, on the system pool.

Values are keys of the chart at the pinned release (aws/karpenter-provider-aws:
charts/karpenter/values.yaml@v1.14.1): ``settings.clusterName`` and
``settings.interruptionQueue`` (the SQS queue the stack creates),
``serviceAccount`` (IRSA role annotation), ``nodeSelector``/``tolerations``
(the system pool: a managed node group, so Karpenter never runs on nodes it
provisions; the chart's own affinity also keeps it off ``karpenter.sh/nodepool``
nodes), ``controller.resources`` (the getting-started guide's 1 cpu / 1 GiB,
requests equal to limits: the controller must not be evicted under pressure).
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails.addons import Chart, HelmRelease
from nodepools.guardrails.addon_placement import system_placement
from nodepools.guardrails.repair import karpenter_repair_gate
from nodepools.guardrails.spec import ADDON_NAMESPACE, GuardrailsSpec
from nodepools.guardrails.warm import karpenter_buffer_gate
from nodepools.spec.cluster import ClusterPools
from nodepools.vocabulary import ANNOTATION_IRSA_ROLE_ARN

KARPENTER_CHART = Chart("oci://public.ecr.aws/karpenter/karpenter", None)
RELEASE_NAME = "karpenter"
NAMESPACE = ADDON_NAMESPACE
SERVICE_ACCOUNT = "karpenter"
CONTROLLER_RESOURCES = {"cpu": "1", "memory": "1Gi"}


def karpenter_values(cluster: ClusterPools, cluster_name: Any, queue_name: Any, role_arn: Any) -> dict[str, Any]:
    """``cluster_name``, ``queue_name`` and ``role_arn`` may be Pulumi outputs; they are placed, never read."""
    return {
        "fullnameOverride": RELEASE_NAME,
        "settings": {"clusterName": cluster_name, "interruptionQueue": queue_name},
        "serviceAccount": {"create": True, "name": SERVICE_ACCOUNT,
                           "annotations": {ANNOTATION_IRSA_ROLE_ARN: role_arn}},
        **system_placement(cluster),
        "controller": {"resources": {"requests": dict(CONTROLLER_RESOURCES), "limits": dict(CONTROLLER_RESOURCES)}},
    }


def feature_gates(cluster: ClusterPools, spec: GuardrailsSpec) -> dict[str, bool]:
    """``settings.featureGates`` we turn on (docs/design.md sections 9.4, 9.5): ``nodeRepair`` when a
    Karpenter pool repairs (``guardrails/repair.py``), ``capacityBuffer`` when a Karpenter pool
    keeps warm capacity (``guardrails/warm.py``). Helm merges maps: the chart's other gates keep
    their defaults, and a stack that needs neither sends none."""
    gates = {"nodeRepair": karpenter_repair_gate(cluster), "capacityBuffer": karpenter_buffer_gate(cluster, spec)}
    return {gate: True for gate, on in gates.items() if on}


def karpenter_release(cluster: ClusterPools, spec: GuardrailsSpec, cluster_name: Any, queue_name: Any,
                      role_arn: Any) -> HelmRelease:
    values = karpenter_values(cluster, cluster_name, queue_name, role_arn)
    if gates := feature_gates(cluster, spec):
        values["settings"]["featureGates"] = gates
    return HelmRelease("karpenter", RELEASE_NAME, KARPENTER_CHART, spec.charts.karpenter, NAMESPACE, values)
