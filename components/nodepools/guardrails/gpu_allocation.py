"""How a platform's GPU pools hand out their GPUs: NVIDIA's device plugin or its DRA driver.

docs/design.md section 11.4. ``device-plugin`` advertises ``nvidia.com/gpu`` (or a MIG
slice's resource) as a node's extended resource; ``dra`` installs NVIDIA's DRA driver for
GPUs instead (``nodepools.guardrails.dra_driver``), whose DeviceClass ``gpu.nvidia.com``
maps ``nvidia.com/gpu`` through ``extendedResourceName`` (KEP-5004), so a pod that asks
for ``nvidia.com/gpu`` keeps working and a pod may claim GPUs by attribute.

The default per cloud and minor (``DEFAULT_DRA_FROM``), read 2026-12-05:

- AWS recommends the DRA driver "for new deployments with Kubernetes versions 1.34 and
  later" (awsdocs/amazon-eks-user-guide: latest/ug/ml/device-management-nvidia-dra-device-plugin.adoc
  @43d79bd). A platform that exists already is not new: switching it moves every GPU pod
  to another allocator. The drop-in needs ``nvidia.com/gpu`` to map to the driver's class,
  which Kubernetes serves from 1.36 (``DRAExtendedResource`` beta, on by default; GA in
  1.37), and NVIDIA's chart refuses GPU allocation unless told a device plugin is gone
  "until KEP 5004 has reached GA in upstream Kubernetes"
  (kubernetes-sigs/dra-driver-nvidia-gpu: deployments/helm/dra-driver-nvidia-gpu/templates/
  validation.yaml@v0.4.1). So the EKS default is ``device-plugin`` through 1.36 and ``dra``
  from 1.37, the minor where both hold; ``dra`` is a choice from 1.36.
- GKE installs its own driver and device plugin. Its DRA path turns both off per node pool
  (``gpu-driver-version=disabled`` and the node label
  ``gke-no-default-nvidia-gpu-device-plugin=true``) and leaves the NVIDIA driver to a
  DaemonSet the platform installs itself; GKE refuses time-sharing and MIG with DRA
  ("Prepare GKE infrastructure for DRA workloads",
  https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra). nodepools does not
  install a GPU driver, so it refuses ``dra`` on GKE rather than make GPU nodes with none
  (``DRA_REFUSED``); the default there is always ``device-plugin``.
"""
from __future__ import annotations

from nodepools.spec.kube_versions import DRA_EXTENDED_RESOURCE, minor
from nodepools.vocabulary import Cloud, GpuAllocation

__all__ = ["DEFAULT_DRA_FROM", "DRA_REFUSED", "DRA_SINCE", "GpuAllocation", "default_allocation",
           "resolved_allocation"]

# The minor from which ``dra`` is allowed: pods' nvidia.com/gpu requests, the quotas and Kueue's
# flavors keep counting GPUs only where DeviceClass.spec.extendedResourceName is served
# (docs/kubernetes-facts.md section 6.4).
DRA_SINCE = DRA_EXTENDED_RESOURCE.since
# Per cloud, the first minor whose default is ``dra`` (None: never); see the module docstring.
DEFAULT_DRA_FROM: dict[Cloud, str | None] = {Cloud.AWS: "1.37", Cloud.GCP: None}
# Clouds on which nodepools refuses ``dra``, and why (the module docstring's sources).
DRA_REFUSED: dict[Cloud, str] = {
    Cloud.GCP: "GKE serves DRA GPUs only on node pools whose GPU driver installation is disabled "
               "(gpu-driver-version=disabled, label gke-no-default-nvidia-gpu-device-plugin=true), leaving the "
               "NVIDIA driver to a DaemonSet nodepools does not install, and refuses time-sharing and MIG there",
}


def default_allocation(cloud: Cloud, kubernetes_version: str) -> GpuAllocation:
    """The allocation a platform gets when it names none."""
    since = DEFAULT_DRA_FROM[cloud]
    dra = since is not None and minor(kubernetes_version) >= minor(since)
    return GpuAllocation.DRA if dra else GpuAllocation.DEVICE_PLUGIN


def resolved_allocation(chosen: GpuAllocation | None, cloud: Cloud, kubernetes_version: str) -> GpuAllocation:
    """``chosen``, or the cloud's default for the minor when None."""
    return chosen if chosen is not None else default_allocation(cloud, kubernetes_version)
