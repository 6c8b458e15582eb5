"""NVIDIA device plugin Helm values (EKS).

The chart's default affinity ORs two NFD labels with ``nvidia.com/gpu.present``;
with NFD/GFD off (their default) the DaemonSet lands nowhere (docs/kubernetes-facts.md
section 3). Our GPU pools set ``nvidia.com/gpu.present=true`` themselves, so the
affinity requires exactly that label, and GFD stays off. The chart's default
tolerations (``CriticalAddonsOnly`` Exists, ``nvidia.com/gpu`` Exists) are
replaced by tolerations of exactly the GPU pools' taints (Helm replaces lists).
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails.addons import NVIDIA_DEVICE_PLUGIN_CHART, HelmRelease
from nodepools.guardrails.addon_placement import tolerations_for
from nodepools.guardrails.device_plugin_config import config_values
from nodepools.guardrails.spec import ADDON_NAMESPACE, GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.vocabulary import LABEL_GPU_PRESENT, LABEL_GPU_PRESENT_VALUE, PRIORITY_CLASS_SYSTEM_NODE_CRITICAL

RELEASE_NAME = "nvidia-device-plugin"


def device_plugin_values(cluster: ClusterPools) -> dict[str, Any]:
    gpu_pools = [p for p in cluster.pools if p.has_gpu]
    values: dict[str, Any] = {
        "tolerations": tolerations_for(t for p in gpu_pools for t in p.node_taints),
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": LABEL_GPU_PRESENT, "operator": "In", "values": [LABEL_GPU_PRESENT_VALUE]}]},
        ]}}},
        "priorityClassName": PRIORITY_CLASS_SYSTEM_NODE_CRITICAL,
        "gfd": {"enabled": False},
    }
    if (config := config_values(gpu_pools)) is not None:
        values["config"] = config
    return values


def device_plugin_release(cluster: ClusterPools, spec: GuardrailsSpec) -> HelmRelease | None:
    """The release, or None when the cluster has no GPU pool."""
    if not any(p.has_gpu for p in cluster.pools):
        return None
    return HelmRelease("nvidia-device-plugin", RELEASE_NAME, NVIDIA_DEVICE_PLUGIN_CHART,
                       spec.charts.nvidia_device_plugin, ADDON_NAMESPACE, device_plugin_values(cluster))
