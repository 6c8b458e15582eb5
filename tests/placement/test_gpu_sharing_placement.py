"""Placement verdicts for time-sliced and MIG pools, each row naming the Kubernetes rule it rests on."""
import pytest

from nodepools.inventory.pools import read_pool
from nodepools.placement.analysis import Fit, Reason, judge

from placement_builders import GPU_TAINT, class_taint, eks_pool

GKE = "gcp:container/nodePool:NodePool"
CLASS = "nodepools.io/pool-class"
TOLERATE_CLASS = {"key": CLASS, "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"}
TOLERATE_GPU = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}


def shared_eks(name, instance_type, **sharing_labels):
    return eks_pool(name, [instance_type], [class_taint("gpu-inference"), GPU_TAINT],
                    {CLASS: "gpu-inference", "nodepools.io/pool": name, **sharing_labels})


def gke(name, machine, accelerator, count, **extra):
    props = {"cluster": "prod", "name": name, "nodeConfig": {
        "machineType": machine, "labels": {CLASS: "gpu-inference"},
        "taints": [class_taint("gpu-inference"), GPU_TAINT],
        "guestAccelerators": [{"type": accelerator, "count": count, **extra}]}}
    return read_pool(GKE, props, f"urn:pulumi:dev::p::{GKE}::{name}", name)


POOLS = {
    "whole-l4": shared_eks("whole-l4", "g6.12xlarge"),
    "ts-l4": shared_eks("ts-l4", "g6.12xlarge", **{"nodepools.io/gpu-sharing": "time-slicing",
                                                   "nvidia.com/device-plugin.config": "time-slicing-4"}),
    "mig-a100": shared_eks("mig-a100", "p4d.24xlarge", **{"nodepools.io/gpu-sharing": "mig",
                                                          "nodepools.io/mig-profile": "1g.5gb"}),
    "plain-a100": shared_eks("plain-a100", "p4d.24xlarge"),
    "gke-mig": gke("gke-mig", "a2-highgpu-1g", "nvidia-tesla-a100", 1, gpuPartitionSize="1g.5gb"),
    "gke-ts": gke("gke-ts", "g2-standard-8", "nvidia-l4", 1,
                  gpuSharingConfig={"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 3}),
}


def pod(resource, count, tolerations=(TOLERATE_CLASS, TOLERATE_GPU)):
    return {"containers": [{"name": "c", "image": "i", "resources": {"limits": {resource: count}}}],
            "tolerations": list(tolerations)}


def pods(resource, count):
    """``count`` containers of one share each (a time-sliced share is one per container)."""
    return {"containers": [{"name": f"c{i}", "image": "i", "resources": {"limits": {resource: 1}}}
                           for i in range(count)], "tolerations": [TOLERATE_CLASS, TOLERATE_GPU]}


@pytest.mark.parametrize("pool, spec, fit, reason, detail, rule", [
    ("ts-l4", pods("nvidia.com/gpu", 16), Fit.FITS, None, "",
     "time-slicing advertises GPUs x replicas of nvidia.com/gpu (device plugin sharing.timeSlicing)"),
    ("ts-l4", pods("nvidia.com/gpu", 17), Fit.NO, Reason.SIZE,
     "too big for g6.12xlarge: requests nvidia.com/gpu 17 > allocatable 16",
     "a pod fits only where allocatable covers its requests (NodeResourcesFit)"),
    ("ts-l4", pod("nvidia.com/gpu", 2), Fit.NO, Reason.SIZE,
     "container 'c' requests nvidia.com/gpu 2 on time-sliced GPUs: at most 1 per container (a replica is a share "
     "of one GPU)", "device plugin failRequestsGreaterThanOne; GKE time-sharing allows 1 per container"),
    ("gke-ts", pod("nvidia.com/gpu", 2), Fit.NO, Reason.SIZE,
     "container 'c' requests nvidia.com/gpu 2 on time-sliced GPUs: at most 1 per container (a replica is a share "
     "of one GPU)", "GKE time-sharing: at most 1 nvidia.com/gpu per container"),
    ("whole-l4", pod("nvidia.com/gpu", 5), Fit.NO, Reason.SIZE,
     "too big for g6.12xlarge: requests nvidia.com/gpu 5 > allocatable 4", "NodeResourcesFit"),
    ("mig-a100", pod("nvidia.com/mig-1g.5gb", 56), Fit.FITS, None, "",
     "MIG mixed strategy: 7 slices x 8 GPUs of nvidia.com/mig-1g.5gb"),
    ("mig-a100", pod("nvidia.com/mig-1g.5gb", 57), Fit.NO, Reason.SIZE,
     "too big for p4d.24xlarge: requests nvidia.com/mig-1g.5gb 57 > allocatable 56", "NodeResourcesFit"),
    ("mig-a100", pod("nvidia.com/gpu", 1), Fit.NO, Reason.SIZE,
     "too big for p4d.24xlarge: requests nvidia.com/gpu 1 > allocatable 0",
     "mixed strategy leaves no whole nvidia.com/gpu on a partitioned node"),
    ("mig-a100", pod("nvidia.com/mig-2g.10gb", 1), Fit.NO, Reason.SIZE,
     "too big for p4d.24xlarge: requests nvidia.com/mig-2g.10gb 1 > allocatable 0",
     "one profile per pool: other slice sizes are not advertised"),
    ("mig-a100", pod("nvidia.com/mig-1g.5gb", 1, [TOLERATE_CLASS]), Fit.NO, Reason.TAINT,
     "untolerated taint nvidia.com/gpu=present:NoSchedule",
     "ExtendedResourceToleration adds tolerations only for taints keyed by a requested resource: "
     "nvidia.com/mig-1g.5gb does not tolerate nvidia.com/gpu"),
    ("whole-l4", pod("nvidia.com/gpu", 1, [TOLERATE_CLASS]), Fit.FITS, None, "",
     "ExtendedResourceToleration: a nvidia.com/gpu request tolerates the nvidia.com/gpu taint"),
    ("whole-l4", pod("nvidia.com/mig-1g.5gb", 1), Fit.NO, Reason.SIZE,
     "too big for g6.12xlarge: requests nvidia.com/mig-1g.5gb 1 > allocatable 0",
     "L4 has no MIG (compute capability 8.9 Ada, not in the MIG supported-GPU list)"),
    ("plain-a100", pod("nvidia.com/mig-1g.5gb", 1), Fit.UNKNOWN, Reason.SIZE,
     "nvidia.com/mig-1g.5gb on p4d.24xlarge is not modelled: cannot judge size",
     "an undeclared MIG layout may be made at run time (GPU Operator MIG manager)"),
    ("gke-mig", pod("nvidia.com/gpu", 7), Fit.FITS, None, "",
     "GKE's device plugin advertises each MIG partition as nvidia.com/gpu"),
    ("gke-mig", pod("nvidia.com/mig-1g.5gb", 1), Fit.NO, Reason.SIZE,
     "too big for a2-highgpu-1g: requests nvidia.com/mig-1g.5gb 1 > allocatable 0",
     "GKE names no mig-* resource"),
    ("gke-ts", pods("nvidia.com/gpu", 3), Fit.FITS, None, "", "GKE time-sharing: maxSharedClientsPerGpu x GPUs"),
    ("gke-ts", pods("nvidia.com/gpu", 4), Fit.NO, Reason.SIZE,
     "too big for g2-standard-8: requests nvidia.com/gpu 4 > allocatable 3", "NodeResourcesFit"),
])
def test_shared_gpu_verdicts(pool, spec, fit, reason, detail, rule):
    verdict = judge(spec, POOLS[pool])
    assert (verdict.fit, verdict.reason, verdict.detail) == (fit, reason, detail), rule


# ---- DRA: a claim is no extended resource, so no toleration is added for it ----

from nodepools.inventory.resource import Resource  # noqa: E402
from nodepools.inventory.stack_model import StackModel  # noqa: E402
from nodepools.placement import analyze  # noqa: E402
from suite_dates import PINNED  # noqa: E402

DRA = "kubernetes:resource.k8s.io/v1"


def dra_stack(tolerations):
    resources = [
        Resource.of(f"{DRA}:DeviceClass", "gpu", {
            "metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression":
                                                                       "device.driver == 'gpu.nvidia.com'"}}]}},
            urn="urn:dc"),
        Resource.of(f"{DRA}:ResourceClaimTemplate", "one-gpu", {
            "metadata": {"name": "one-gpu", "namespace": "inference"},
            "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}}}},
            urn="urn:rct"),
        Resource.of("kubernetes:apps/v1:Deployment", "llm", {
            "metadata": {"name": "llm", "namespace": "inference"}, "spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "g"}]}}],
                "resourceClaims": [{"name": "g", "resourceClaimTemplateName": "one-gpu"}],
                "tolerations": list(tolerations)}}}}, urn="urn:dep"),
    ]
    pool = POOLS["whole-l4"]
    return StackModel([Resource.of(pool.type, pool.name, {
        "clusterName": "prod", "nodeGroupName": pool.name, "instanceTypes": ["g6.12xlarge"],
        "labels": {CLASS: "gpu-inference", "nodepools.io/pool": pool.name},
        "taints": [class_taint("gpu-inference"), GPU_TAINT]}, urn=pool.urn), *resources], today=PINNED)


@pytest.mark.parametrize("tolerations, fit, detail, rule", [
    ([TOLERATE_CLASS], Fit.NO, "untolerated taint nvidia.com/gpu=present:NoSchedule",
     "ExtendedResourceToleration reads container resources only; a DRA claim adds no toleration"),
    ([TOLERATE_CLASS, TOLERATE_GPU], Fit.FITS, "", "tolerations match every hard taint (TaintToleration)"),
])
def test_dra_claims_request_a_gpu_but_need_the_gpu_toleration(tolerations, fit, detail, rule):
    report = analyze(dra_stack(tolerations))
    verdict = report.verdict("llm", "whole-l4")
    assert (verdict.fit, verdict.detail) == (fit, detail), rule
    summary = report.summary("llm")
    assert summary.requests_gpu is True and summary.gpu_pools_without_gpu == ()
