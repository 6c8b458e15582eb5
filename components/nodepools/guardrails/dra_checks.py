"""Rules of ``gpu_allocation`` against the cloud, the minor, the pools and the add-ons, checked by the gate.

docs/design.md section 11.4. With ``dra`` (chosen, or the cloud's default for the minor):

- not on a cloud in ``DRA_REFUSED`` (GKE: why is there);
- not below ``DRA_SINCE`` (1.36): ``nvidia.com/gpu`` maps to the driver's class only where
  ``DeviceClass.spec.extendedResourceName`` is served, and the platform's own quotas, Kueue
  flavors and warm capacity count ``nvidia.com/gpu``;
- a chart release nodepools has vendored facts of (``charts.nvidia_dra_driver``);
- no device plugin already on those pools (``addons.device_plugin.existing``,
  ``addons.gpu_operator``): both would hand out the same GPUs (``gpu-allocation-single``);
- no time-sliced pool: the driver time-slices per claim, behind its alpha
  ``TimeSlicingSettings`` gate (off by default: pkg/featuregates/featuregates.go@v0.4.1), not
  per node as the device plugin's config does;
- no Karpenter GPU pool: the pinned Karpenter (1.14) provisions no node for a DRA claim;
  Karpenter does from 1.15 (awsdocs/amazon-eks-user-guide: latest/ug/ml/device-management.adoc).
"""
from __future__ import annotations

from nodepools.guardrails import upstream
from nodepools.guardrails.dra_driver import uses_dra
from nodepools.guardrails.gpu_allocation import DRA_REFUSED, DRA_SINCE, GpuAllocation
from nodepools.guardrails.spec_fields import GuardrailsFields
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.kube_versions import minor
from nodepools.spec.sharing import GpuSharingMode
from nodepools.vocabulary import Cloud

Root = tuple[str | int, ...]


def gpu_allocation_problems(cloud: Cloud, cluster: ClusterPools, spec: GuardrailsFields, problems: Problems,
                            root: Root = (), spec_root: Root = ("spec",)) -> None:
    """Every problem of the platform's GPU allocation (locations: pools under ``root``, the
    guardrails' fields under ``spec_root``)."""
    if not uses_dra(spec, cloud):
        return
    where = spec_root + ("gpu_allocation",)
    dra = GpuAllocation.DRA.value
    if cloud in DRA_REFUSED:
        problems.add(where, f"gpu_allocation {dra!r} is not available on {cloud.value}: {DRA_REFUSED[cloud]} "
                     f"(allowed on {cloud.value}: {GpuAllocation.DEVICE_PLUGIN.value})", dra)
        return
    if minor(spec.kubernetes_version) < minor(DRA_SINCE):
        problems.add(where, f"gpu_allocation {dra!r} needs Kubernetes {DRA_SINCE} or newer, where "
                     "DeviceClass.spec.extendedResourceName is served (beta, on by default) and maps nvidia.com/gpu to "
                     "the DRA driver's GPUs; on " + spec.kubernetes_version + " pods asking for nvidia.com/gpu, the "
                     "quotas and Kueue's flavors would count GPUs no node offers (allowed on "
                     f"{spec.kubernetes_version}: {GpuAllocation.DEVICE_PLUGIN.value}; or kubernetes_version "
                     f"{DRA_SINCE} or newer)", dra)
    known = upstream.dra_driver_charts()
    version = spec.charts.nvidia_dra_driver
    if version not in known:
        problems.add(spec_root + ("charts", "nvidia_dra_driver"), f"NVIDIA DRA driver chart {version} is not in "
                     "nodepools' table of checked releases, whose values and DeviceClasses are read from each "
                     f"release (allowed: {', '.join(sorted(known))})", version)
    _device_plugin_problems(spec, problems, spec_root)
    for i, pool in enumerate(cluster.pools):
        if not pool.has_gpu:
            continue
        if pool.gpu_sharing.mode is GpuSharingMode.TIME_SLICING:
            problems.add(root + ("pools", i, "gpu_sharing", "mode"), f"pool {pool.name!r} time-slices its GPUs, "
                         "which NVIDIA's DRA driver does per claim behind its alpha TimeSlicingSettings gate (off by "
                         f"default), not per node; with gpu_allocation {dra!r} share by "
                         f"{GpuSharingMode.MIG.value} or not at all (allowed: {GpuSharingMode.NONE.value}, "
                         f"{GpuSharingMode.MIG.value})", pool.gpu_sharing.mode.value)
        if is_karpenter(pool):
            problems.add(root + ("pools", i, "provisioner"), f"GPU pool {pool.name!r} is provisioned by Karpenter "
                         f"{spec.charts.karpenter}, which launches no node for a DRA claim (Karpenter provisions for "
                         f"DRA from 1.15); with gpu_allocation {dra!r} use provisioner managed (allowed: managed)",
                         "karpenter")


def _device_plugin_problems(spec: GuardrailsFields, problems: Problems, spec_root: Root) -> None:
    """A device plugin the cluster runs already would serve the same GPUs as the DRA driver."""
    addons, dra = spec.addons, GpuAllocation.DRA.value
    why = (f"with gpu_allocation {dra!r} NVIDIA's DRA driver serves the GPU pools, and a device plugin beside it "
           "hands out the same GPUs twice (AWS: 'silent oversubscription')")
    if addons.device_plugin.existing:
        problems.add(spec_root + ("addons", "device_plugin", "existing"), f"addons.device_plugin.existing says the "
                     f"cluster runs a device plugin; {why}; remove that plugin and set addons.device_plugin.enabled: "
                     f"false, or use gpu_allocation {GpuAllocation.DEVICE_PLUGIN.value!r}", True)
    if addons.gpu_operator:
        problems.add(spec_root + ("addons", "gpu_operator"), f"addons.gpu_operator says the GPU Operator runs the "
                     f"device plugin; {why}; turn its device plugin off and set addons.gpu_operator: false, or use "
                     f"gpu_allocation {GpuAllocation.DEVICE_PLUGIN.value!r}", True)
