"""cluster-autoscaler Helm values (EKS): auto-discovery, GPU-fit scale-down, system pool.

Flags (docs/kubernetes-facts.md section 1.5 has the defaults; every name is checked
against the flags of each supported release, vendored in ``upstream/``):
- no ``scale-down-enabled``: true is its default, and it is deprecated in the
  flags of 1.35 and 1.36 (kubernetes/autoscaler:
  cluster-autoscaler/config/flags/flags.go@cluster-autoscaler-1.36.1).
- ``expendable-pods-priority-cutoff`` is set explicitly to the cutoff our
  PriorityClasses are built against (-10), so a chart default can never drift
  below batch/training and stop them triggering scale-up.
- ``scale-down-unneeded-time``/``delay-after-add`` 10m and both utilization
  thresholds 0.5: an idle GPU node is the most expensive thing in the cluster, so
  no longer grace than the defaults; the GPU threshold judges GPU nodes by GPU
  requests alone.
- ``ignore-daemonsets-utilization``: the device plugin and node agents run on
  every node and would otherwise keep near-idle GPU nodes above the threshold.
- ``skip-nodes-with-local-storage=false``: model servers and trainers use
  emptyDir caches, which by default pin a GPU node forever; running training
  gangs protect themselves with ``safe-to-evict: "false"`` instead.
- ``max-node-provision-time`` 20m: GPU nodes boot larger images and a driver;
  giving up at the 15m default backs a GPU group off mid-boot.
- ``expander=least-waste``: the group leaving the least idle cpu/memory, so a
  one-GPU pod does not wake an eight-GPU node.
- with atomic provisioning, the flags that serve ProvisioningRequests
  (``nodepools.guardrails.provisioning.AUTOSCALER_ARGS``).
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails import provisioning
from nodepools.guardrails.addons import CLUSTER_AUTOSCALER_CHART, CloudAddons, HelmRelease
from nodepools.guardrails.addon_placement import system_placement
from nodepools.guardrails.spec import ADDON_NAMESPACE, GuardrailsSpec
from nodepools.guardrails.warm import autoscaler_buffer_args, autoscaler_buffer_rules
from nodepools.spec.cluster import ClusterPools
from nodepools.vocabulary import (AUTOSCALER_PRIORITY_CUTOFF, CA_TAG_CLUSTER_PREFIX, CA_TAG_ENABLED,
                                  PRIORITY_CLASS_SYSTEM_CLUSTER_CRITICAL)

RELEASE_NAME = "cluster-autoscaler"
NAMESPACE = ADDON_NAMESPACE
SERVICE_ACCOUNT = "cluster-autoscaler"

EXTRA_ARGS: dict[str, str] = {
    "expendable-pods-priority-cutoff": str(AUTOSCALER_PRIORITY_CUTOFF),
    "scale-down-unneeded-time": "10m",
    "scale-down-delay-after-add": "10m",
    "scale-down-utilization-threshold": "0.5",
    "scale-down-gpu-utilization-threshold": "0.5",
    "ignore-daemonsets-utilization": "true",
    "skip-nodes-with-local-storage": "false",
    "max-node-provision-time": "20m",
    "expander": "least-waste",
}


def autoscaler_values(cluster: ClusterPools, spec: GuardrailsSpec, addons: CloudAddons, cluster_name: Any,
                      region: Any = None, role_arn: Any = None) -> dict[str, Any]:
    """``cluster_name``, ``region`` and ``role_arn`` may be Pulumi outputs; they are placed, never read."""
    annotations = {addons.identity_annotation: role_arn} if role_arn is not None and addons.identity_annotation else {}
    values: dict[str, Any] = {
        "cloudProvider": addons.autoscaler_cloud_provider,
        "autoDiscovery": {
            "clusterName": cluster_name,
            # Key-only tags; the chart renders them through tpl, so the cluster key is
            # this cluster's own and ASGs of other clusters never mix (facts 1.1).
            "tags": [CA_TAG_ENABLED, CA_TAG_CLUSTER_PREFIX + "{{ .Values.autoDiscovery.clusterName }}"],
        },
        "fullnameOverride": RELEASE_NAME,
        "image": {"tag": spec.autoscaler_image},
        "rbac": {"serviceAccount": {"create": True, "name": SERVICE_ACCOUNT, "annotations": annotations}},
        "priorityClassName": PRIORITY_CLASS_SYSTEM_CLUSTER_CRITICAL,
        **system_placement(cluster),
        # Warm capacity's buffer controller, when a pool's CapacityBuffer needs it (guardrails/warm.py).
        "extraArgs": {**EXTRA_ARGS, **provisioning.autoscaler_args(spec, cluster), **autoscaler_buffer_args(cluster, spec)},
    }
    if rules := autoscaler_buffer_rules(cluster, spec):
        values["rbac"]["additionalRules"] = rules
    if addons.autoscaler_region_value:
        values[addons.autoscaler_region_value] = region
    return values


def autoscaler_release(cluster: ClusterPools, spec: GuardrailsSpec, addons: CloudAddons, cluster_name: Any,
                       region: Any = None, role_arn: Any = None) -> HelmRelease:
    return HelmRelease("cluster-autoscaler", RELEASE_NAME, CLUSTER_AUTOSCALER_CHART, spec.charts.cluster_autoscaler,
                       NAMESPACE, autoscaler_values(cluster, spec, addons, cluster_name, region, role_arn))
