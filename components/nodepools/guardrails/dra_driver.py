"""NVIDIA's DRA driver for GPUs on the GPU pools, instead of the device plugin (``gpu_allocation: dra``).

docs/design.md section 11.4. Facts of the pinned chart (version, values keys, OCI reference,
the DeviceClasses its templates publish) are vendored from
kubernetes-sigs/dra-driver-nvidia-gpu at the release tag
(``upstream/chart_dra-driver-nvidia-gpu.json``, ``tools/refresh_upstream.py``).

- The release (``dra_driver_release``): the chart at ``charts.nvidia_dra_driver`` in
  ``kube-system`` (the chart refuses ``default``), values:
  ``resourceApiVersion: resource.k8s.io/v1`` (never the chart's guess from discovery);
  ``resources.gpus.enabled`` with ``gpuResourcesEnabledOverride``: the chart's guard against
  a device plugin on the same nodes, which nodepools installs nowhere on a DRA platform
  (``gpu-allocation-single`` holds every stack to it); ``resources.computeDomains.enabled:
  false``: ComputeDomains are Multi-Node NVLink for GB200-class systems, off in AWS's install
  guide too; the kubelet plugin placed like the device plugin (the GPU pools' taints
  tolerated, ``nvidia.com/gpu.present=true`` required, ``system-node-critical``).
- DeviceClasses: the chart publishes ``gpu.nvidia.com`` (with ``extendedResourceName:
  nvidia.com/gpu`` on ``resource.k8s.io/v1``), ``mig.nvidia.com`` and ``vfio.gpu.nvidia.com``
  (``published_classes``: what the cluster keeps, for the plan and the tests). nodepools adds
  one per MIG profile of its MIG pools (``profile_classes``: ``mig-<profile>.nodepools.io``,
  mapping ``nvidia.com/mig-<profile>``), so a pod asking for the slice's resource, and the
  quota and warm capacity counting it, keep working. The MIG slices are the pool's own,
  partitioned at boot (``backends/aws/mig.py``): the driver's static MIG, which needs no
  partitionable devices (its DynamicMIG does, alpha and off in 0.4.1).
- Quotas (``dra_quota_hard``): a claim counts against ``<class>.deviceclass.resource.k8s.io/devices``,
  never ``requests.nvidia.com/gpu``, so every namespace's quota caps each class: whole GPUs
  for ``gpu.nvidia.com``, slices of the pool's MIG profile for the MIG classes.
- Kueue (``kueue_device_class_mappings``): ``deviceClassMappings`` counts claims of
  ``gpu.nvidia.com`` as ``nvidia.com/gpu``, the resource the ClusterQueues already cover
  (kubernetes-sigs/kueue: apis/config/v1beta2/configuration_types.go@v0.19.2; an extended
  resource request resolving to a mapped class counts under the same name:
  pkg/dra/extended_resources.go@v0.19.2).
"""
from __future__ import annotations

from typing import Any, Sequence

from nodepools import vocabulary as v
from nodepools.guardrails import derive, upstream
from nodepools.guardrails.addon_placement import tolerations_for
from nodepools.guardrails.addons import Chart, HelmRelease
from nodepools.guardrails.gpu_allocation import GpuAllocation, resolved_allocation
from nodepools.guardrails.spec_fields import ADDON_NAMESPACE, GuardrailsFields
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.kube_versions import DRA_EXTENDED_RESOURCE, minor
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import GpuSharingMode, slots_per_node
from nodepools.vocabulary import Cloud, PoolClass

RELEASE_NAME = "dra-driver-nvidia-gpu"
RESOURCE_API_VERSION = "resource.k8s.io/v1"
# The chart's values switches nodepools sets (the classes each turns on: the vendored facts' ``enabled_by``).
SWITCHES = {"resources.gpus.enabled": True, "resources.computeDomains.enabled": False}
_MIG_SELECTOR = "device.driver == '{driver}' && device.attributes['{driver}'].type == 'mig' && " \
                "device.attributes['{driver}'].profile == '{profile}'"


def uses_dra(spec: GuardrailsFields, cloud: Cloud) -> bool:
    """The platform's GPU pools take their GPUs from NVIDIA's DRA driver."""
    return resolved_allocation(spec.gpu_allocation, cloud, spec.kubernetes_version) is GpuAllocation.DRA


def chart_facts(spec: GuardrailsFields) -> dict[str, Any]:
    """The vendored facts of the chart release ``charts.nvidia_dra_driver`` (the checks refuse any other)."""
    return upstream.dra_driver_charts()[spec.charts.nvidia_dra_driver]


def dra_driver_values(cluster: ClusterPools) -> dict[str, Any]:
    gpu_pools = [p for p in cluster.pools if p.has_gpu]
    return {
        "resourceApiVersion": RESOURCE_API_VERSION,
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": SWITCHES["resources.gpus.enabled"]},
                      "computeDomains": {"enabled": SWITCHES["resources.computeDomains.enabled"]}},
        "kubeletPlugin": {
            "priorityClassName": v.PRIORITY_CLASS_SYSTEM_NODE_CRITICAL,
            "tolerations": tolerations_for(t for p in gpu_pools for t in p.node_taints),
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": v.LABEL_GPU_PRESENT, "operator": "In",
                                       "values": [v.LABEL_GPU_PRESENT_VALUE]}]}]}}},
        },
    }


def dra_driver_release(cluster: ClusterPools, spec: GuardrailsFields) -> HelmRelease | None:
    """The release, or None without a GPU pool."""
    if not any(p.has_gpu for p in cluster.pools):
        return None
    chart = Chart(chart_facts(spec)["oci_reference"], None)
    return HelmRelease("dra-driver", RELEASE_NAME, chart, spec.charts.nvidia_dra_driver, ADDON_NAMESPACE,
                       dra_driver_values(cluster))


def serves_extended_resource(kubernetes_version: str) -> bool:
    """The minor keeps ``DeviceClass.spec.extendedResourceName`` (KEP-5004 on by default)."""
    return minor(kubernetes_version) >= minor(DRA_EXTENDED_RESOURCE.since)


def _device_class(name: str, expression: str, extended: str | None, spec: GuardrailsFields) -> dict[str, Any]:
    body: dict[str, Any] = {"selectors": [{"cel": {"expression": expression}}]}
    if extended is not None and serves_extended_resource(spec.kubernetes_version):
        body["extendedResourceName"] = extended
    return {"apiVersion": RESOURCE_API_VERSION, "kind": "DeviceClass", "metadata": {"name": name}, "spec": body}


def published_classes(spec: GuardrailsFields) -> list[dict[str, Any]]:
    """The DeviceClasses the release publishes with nodepools' values, as the cluster keeps them
    (an ``extendedResourceName`` only on a minor that serves it: the API server drops a field
    whose feature gate is off)."""
    out = []
    for found in chart_facts(spec)["device_classes"]:
        if not SWITCHES.get(found["enabled_by"], False):
            continue
        extended = found.get("extended_resource_name") if found.get("extended_resource_api") == \
            RESOURCE_API_VERSION else None
        out.append(_device_class(found["name"], found["expression"], extended, spec))
    return out


def _mig_profiles(pools: Sequence[PoolSpec]) -> list[str]:
    return sorted({str(p.gpu_sharing.profile) for p in pools
                   if p.has_gpu and p.gpu_sharing.mode is GpuSharingMode.MIG})


def profile_classes(cluster: ClusterPools, spec: GuardrailsFields) -> list[dict[str, Any]]:
    """nodepools' DeviceClass per MIG profile of the cluster's MIG pools."""
    return [_device_class(v.dra_mig_profile_class(profile),
                          _MIG_SELECTOR.format(driver=v.NVIDIA_DRA_DRIVER, profile=profile),
                          v.mig_resource(profile), spec)
            for profile in _mig_profiles(cluster.pools)]


def dra_units(pools: Sequence[PoolSpec]) -> dict[str, int]:
    """GPU DeviceClass -> devices the pools offer at max_nodes: whole GPUs, or slices of a MIG profile."""
    out = {v.DRA_CLASS_GPU: 0, v.DRA_CLASS_MIG: 0, v.DRA_CLASS_VFIO: 0}
    out.update({v.dra_mig_profile_class(p): 0 for p in _mig_profiles(pools)})
    for pool in pools:
        if not pool.has_gpu:
            continue
        units = slots_per_node(pool) * pool.max_nodes
        if pool.gpu_sharing.mode is GpuSharingMode.MIG:
            out[v.DRA_CLASS_MIG] += units
            out[v.dra_mig_profile_class(str(pool.gpu_sharing.profile))] += units
        else:
            out[v.DRA_CLASS_GPU] += units
    return out


def dra_quota_hard(pools: Sequence[PoolSpec], pool_class: PoolClass, zero: bool = False) -> dict[str, str]:
    """The DRA entries of a namespace's quota: its class's devices per class (0 for the others)."""
    names = dra_units(pools)
    own = dra_units(derive.of_class(pools, pool_class)) if pool_class.has_gpu and not zero else {}
    return {v.dra_quota_key(name): str(own.get(name, 0)) for name in names}


def kueue_device_class_mappings(spec: GuardrailsFields, cluster: ClusterPools) -> list[dict[str, Any]]:
    """Kueue's ``resources.deviceClassMappings``: claims of the GPU class count as nvidia.com/gpu.
    Queued pools take whole GPUs (MIG is for gpu-inference pools only), so one mapping does."""
    if not uses_dra(spec, cluster.cloud):
        return []
    return [{"name": v.GPU_RESOURCE, "deviceClassNames": [v.DRA_CLASS_GPU]}]
