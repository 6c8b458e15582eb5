"""docs/design.md sections 3 and 11.4, `gpu-allocation-single`: one allocator hands out a GPU pool's GPUs.
Every case through the real pack over gRPC: the device plugin beside the GPU Operator's DRA driver fires,
each alone is silent, and so is every other installer of either (charts, DaemonSets, GPUCluster)."""
import pytest

from nodepools.guardrails.dra_driver import dra_driver_values
from nodepools.offline.analyzer import UNKNOWN_WIRE
from nodepools.inventory.resource import Resource
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.pool import PoolSpec

from karpenter_builders import k_taint, node_pool, req
from policy_builders import CLASS, GPU, golden, toleration

RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_CLUSTER = "kubernetes:nvidia.com/v1alpha1:GPUCluster"
CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
ALL_GPU_POOLS = [toleration(CLASS, "gpu-inference"), toleration(CLASS, "gpu-training"), toleration(GPU)]
PLUGIN = "Release 'nvidia-device-plugin' in namespace 'kube-system'"
FIX = ("Fix: keep one per pool: remove one, or select this pool out of its node affinity (nodepools: "
       "guardrails.gpu_allocation device-plugin or dra)")


def operator_dra(tolerations=ALL_GPU_POOLS) -> Resource:
    """The GPU Operator (v26.7.0) deploying its DRA stack: a GPUCluster, no ClusterPolicy."""
    return Resource.of(RELEASE, "gpu-operator", {"chart": "gpu-operator", "namespace": "gpu-operator",
                                                 "version": "v26.7.0", "values": {
                                                     "clusterPolicy": {"deployCR": False},
                                                     "gpuCluster": {"deployCR": True},
                                                     "daemonsets": {"tolerations": tolerations}}})


def gpu_cluster() -> Resource:
    return Resource.of(GPU_CLUSTER, "gpu-cluster", {"apiVersion": "nvidia.com/v1alpha1", "kind": "GPUCluster",
                                                    "metadata": {"name": "gpu-cluster"},
                                                    "spec": {"draDriver": {},
                                                             "daemonsets": {"tolerations": ALL_GPU_POOLS}}})


def our_dra_release() -> Resource:
    """NVIDIA's DRA driver chart with the values nodepools' guardrails give it for the golden stack's GPU pools."""
    pools = [PoolSpec(name="web", pool_class="resident", instance_types=["m6i.xlarge"]),
             PoolSpec(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge"]),
             PoolSpec(name="train", pool_class="gpu-training", instance_types=["p4d.24xlarge"])]
    return Resource.of(RELEASE, "dra-driver", {
        "chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "namespace": "kube-system",
        "version": "0.4.1", "values": dra_driver_values(ClusterPools(cloud="aws", pools=pools))})


def dra_daemonset() -> Resource:
    """A hand-made DaemonSet running the driver's GPU kubelet plugin, tolerating everything."""
    return Resource.of("kubernetes:apps/v1:DaemonSet", "dra-gpu", {"metadata": {"name": "dra-gpu",
                                                                             "namespace": "kube-system"},
        "spec": {"selector": {"matchLabels": {"app": "dra"}}, "template": {
            "metadata": {"labels": {"app": "dra"}},
            "spec": {"tolerations": [{"operator": "Exists"}], "nodeSelector": {"nvidia.com/gpu.present": "true"},
                     "containers": [{"name": "gpus", "image": "registry.k8s.io/dra-driver-nvidia/"
                                    "dra-driver-nvidia-gpu:v0.4.1", "command": ["bash", "-c"],
                                    "args": ["gpu-kubelet-plugin -v $(LOG_VERBOSITY)"]}]}}}})


def single(diagnostics) -> list[tuple[str, str]]:
    return sorted((d.urn.rsplit("::", 1)[-1], d.message.split("\n", 1)[-1]) for d in diagnostics
                  if d.policy == "gpu-allocation-single")


def both(pool: str, driver: str, plugin: str = PLUGIN) -> tuple[str, str]:
    return pool, (f"aws:eks/nodeGroup:NodeGroup '{pool}': device plugin / DRA driver: both a device plugin ({plugin}) "
                  f"and a DRA driver ({driver}) land on this GPU pool: each hands out the same GPUs, so two pods can "
                  f"be given one. {FIX}")


def fired_on(diagnostics) -> set[str]:
    return {d.policy for d in diagnostics if not d.cannot_judge}


def test_the_device_plugin_beside_the_gpu_operators_dra_driver_fires_on_every_gpu_pool(check):
    driver = "Release 'gpu-operator' in namespace 'gpu-operator'"
    diagnostics = check(golden().add(operator_dra()))
    assert single(diagnostics) == [both("infer", driver), both("train", driver)]
    assert "gpu-allocation-single" in fired_on(diagnostics)


def test_the_device_plugin_alone_is_silent(check):
    assert single(check(golden())) == []


def test_the_gpu_operators_dra_driver_alone_is_silent_and_serves_the_gpu_pools(check):
    diagnostics = check(golden().drop("nvidia-device-plugin").add(operator_dra()))
    assert single(diagnostics) == []
    assert "gpu-device-plugin" not in {d.policy for d in diagnostics}  # the DRA driver serves the GPU pools


@pytest.mark.parametrize("driver, who", [
    (our_dra_release(), "Release 'dra-driver' in namespace 'kube-system'"),
    (gpu_cluster(), "GPUCluster 'gpu-cluster'"),
    (dra_daemonset(), "DaemonSet 'dra-gpu' in namespace 'kube-system'"),
])
def test_any_installer_of_a_dra_driver_beside_the_device_plugin_fires_and_alone_is_silent(check, driver, who):
    assert single(check(golden().add(driver))) == [both("infer", who), both("train", who)]
    alone = check(golden().drop("nvidia-device-plugin").add(driver))
    assert single(alone) == [] and "gpu-device-plugin" not in {d.policy for d in alone}


def test_the_gpu_operators_clusterpolicy_is_the_device_plugin_beside_a_dra_driver(check):
    policy = Resource.of(CLUSTER_POLICY, "cluster-policy", {"metadata": {"name": "cluster-policy"}, "spec": {
        "devicePlugin": {"enabled": True}, "daemonsets": {"tolerations": ALL_GPU_POOLS}}})
    fixture = golden().drop("nvidia-device-plugin").add(policy, our_dra_release())
    assert single(check(fixture)) == [both(p, "Release 'dra-driver' in namespace 'kube-system'",
                                           "ClusterPolicy 'cluster-policy'") for p in ("infer", "train")]


def test_only_the_pools_both_land_on_are_reported(check):
    training_only = operator_dra([toleration(CLASS, "gpu-training"), toleration(GPU)])
    assert [pool for pool, _ in single(check(golden().add(training_only)))] == ["train"]


def test_a_dra_driver_with_its_gpus_off_serves_no_gpu(check):
    compute_domains = our_dra_release()
    compute_domains.props["values"]["resources"]["gpus"]["enabled"] = False
    assert single(check(golden().add(compute_domains))) == []


def test_a_dra_driver_whose_node_selection_is_unknown_is_a_note_never_a_violation(check):
    diagnostics = check(golden().add(operator_dra(UNKNOWN_WIRE)))
    assert "gpu-allocation-single" not in fired_on(diagnostics)
    [note] = [d for d in diagnostics if d.policy == "gpu-allocation-single"]  # the pack lists them together
    why = ("cannot judge device plugin / DRA driver during preview: whether a device plugin and a DRA driver both "
           "land on it: Release 'gpu-operator' in namespace 'gpu-operator' may (chart, values, node selection or "
           "cluster unknown until the update runs)")
    assert note.cannot_judge and note.message.endswith(
        f"cannot judge 2 item(s): aws:eks/nodeGroup:NodeGroup 'infer': {why}; aws:eks/nodeGroup:NodeGroup 'train': "
        f"{why}")


def auto_mode_gpu_pool() -> Resource:
    """An EKS Auto Mode NodePool of GPU nodes: its NodeClass is eks.amazonaws.com's (docs/design.md section 10)."""
    pool = node_pool("auto-gpu", [req("eks.amazonaws.com/instance-family", "In", "g6")],
                     labels={CLASS: "gpu-inference", "nodepools.io/pool": "auto-gpu", "nvidia.com/gpu.present": "true"},
                     taints=[k_taint(CLASS, "gpu-inference"), k_taint(GPU, "present")], limits={"nvidia.com/gpu": 4.0})
    pool.props["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass",
                                                                   "name": "default"}
    return pool


def test_an_allocator_landing_on_an_eks_auto_mode_pool_doubles_auto_modes_own(check):
    auto = auto_mode_gpu_pool()
    [(pool, message)] = [f for f in single(check(golden().add(auto))) if f[0] == "auto-gpu"]
    assert message == (
        "NodePool 'auto-gpu': device plugin / DRA driver: EKS Auto Mode runs NVIDIA's device plugin and, from "
        f"Kubernetes 1.36, its DRA driver on this pool's nodes itself, and {PLUGIN} also lands there: two allocators "
        f"hand out the same GPUs. Fix: keep {PLUGIN} off EKS Auto Mode pools (node affinity or tolerations), or "
        "remove it")
    # The same pool as an ordinary Karpenter NodePool (EC2NodeClass): one allocator, the plugin.
    ordinary = auto_mode_gpu_pool()
    ordinary.props["spec"]["template"]["spec"]["nodeClassRef"] = {
        "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}
    assert [pool for pool, _ in single(check(golden().add(ordinary)))] == []


def test_an_auto_mode_pool_no_installed_allocator_reaches_is_silent(check):
    plugin_off_auto = golden().edit("nvidia-device-plugin", lambda p: p["values"].update(
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "nodepools.io/pool", "operator": "In", "values": ["infer", "train"]}]}]}}}))
    assert single(check(plugin_off_auto.add(auto_mode_gpu_pool()))) == []
