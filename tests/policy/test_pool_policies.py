"""Pool and cluster-plumbing policies over the real pack: each edit of the compliant
stack fires exactly the expected policies on exactly the expected resources."""
import pytest
from policy_builders import (CLASS, CURRENT_MINOR, GKE_POOL, GPU, TAG, Resource, eks_pool, fired, golden, taint,
                             toleration)
from suite_dates import PINNED


def test_the_compliant_stack_fires_nothing(check):
    assert check(golden()) == []


def test_untainted_batch_pool(check):
    fx = golden().edit("jobs", lambda p: p.update(taints=[]))
    diags = check(fx)
    assert fired(diags) == {("pool-taints", fx.urn("jobs"))}
    [d] = diags
    assert d.level == "mandatory"
    assert "NodeGroup 'jobs': taints: a batch pool has no NoSchedule/NoExecute taint" in d.message
    assert "Fix: add {key: nodepools.io/pool-class, value: batch, effect: NO_SCHEDULE} to taints" in d.message


def test_second_untainted_resident_pool_in_one_cluster(check):
    fx = golden().add(eks_pool("web2", "resident", "m6i.xlarge", lo=1, hi=2))
    diags = check(fx)
    assert fired(diags) == {("pool-taints", fx.urn("web2"))}
    assert "pool 'web' is already this cluster's one untainted resident/default pool" in diags[0].message


def test_untainted_resident_pools_of_two_clusters_are_fine(check):
    other = Resource.of("aws:eks/cluster:Cluster", "staging", {"name": "staging", "version": CURRENT_MINOR})
    fx = golden().add(other, eks_pool("web-staging", "resident", "m6i.xlarge", lo=1, hi=2, cluster="staging"))
    assert fired(check(fx)) == set()


def test_gpu_pool_without_gpu_taint(check):
    fx = golden().edit("infer", lambda p: p.update(taints=[taint(CLASS, "gpu-inference")]))
    diags = check(fx)
    assert fired(diags) == {("gpu-pool-taint", fx.urn("infer"))}
    assert "Fix: add {key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE} to taints" in diags[0].message


def test_gpu_taint_with_no_execute_effect_is_not_the_gpu_taint(check):
    taints = [taint(CLASS, "gpu-inference"), taint(GPU, "present", "NO_EXECUTE")]
    fx = golden().edit("infer", lambda p: p.update(taints=taints))
    assert ("gpu-pool-taint", fx.urn("infer")) in fired(check(fx))


def test_fully_untainted_gpu_pool_is_caught_four_ways(check):
    fx = golden().edit("infer", lambda p: p.update(taints=[]))
    assert fired(check(fx)) == {
        ("gpu-pool-taint", fx.urn("infer")), ("pool-taints", fx.urn("infer")),
        ("gpu-nodes-gpu-only", fx.urn("api")), ("gpu-nodes-gpu-only", fx.urn("nightly"))}


def test_spot_inference_pool(check):
    fx = golden().edit("infer", lambda p: p.update(capacityType="SPOT"))
    diags = check(fx)
    assert fired(diags) == {("inference-on-demand", fx.urn("infer")), ("resident-off-spot", fx.urn("llm")),
                            ("spot-checkpointing", fx.urn("llm"))}
    pool = next(d for d in diags if d.policy == "inference-on-demand")
    assert "capacityType: a gpu-inference pool is on spot/preemptible capacity" in pool.message
    assert "Fix: set capacityType to ON_DEMAND" in pool.message


def test_batch_pool_with_idle_minimum(check):
    fx = golden().edit("jobs", lambda p: p["scalingConfig"].update(minSize=1.0))
    diags = check(fx)
    assert fired(diags) == {("scale-to-zero", fx.urn("jobs"))}
    assert "scalingConfig.minSize: a batch pool keeps 1 idle node(s) between jobs. " \
           "Fix: set scalingConfig.minSize to 0" in diags[0].message


def test_resident_pool_scaling_to_zero_also_needs_autoscaler_tags(check):
    fx = golden().edit("web", lambda p: p["scalingConfig"].update(minSize=0.0))
    diags = check(fx)
    assert fired(diags) == {("scale-to-zero", fx.urn("web")), ("autoscaler-hints", fx.urn("web"))}
    hints = next(d for d in diags if d.policy == "autoscaler-hints")
    assert f"missing {TAG}label/nodepools.io/pool-class=resident" in hints.message


def test_missing_gpu_resource_tag(check):
    fx = golden().drop("train-tag-3")
    diags = check(fx)
    assert fired(diags) == {("autoscaler-hints", fx.urn("train"))}
    assert f"missing {TAG}resources/nvidia.com/gpu=8" in diags[0].message


def test_taint_tag_with_eks_effect_spelling_is_dropped_by_the_autoscaler(check):
    fx = golden().edit("jobs-tag-0", lambda p: p["tag"].update(value="batch:NO_SCHEDULE"))
    diags = check(fx)
    assert fired(diags) == {("autoscaler-hints", fx.urn("jobs"))}
    assert f"{TAG}taint/nodepools.io/pool-class is 'batch:NO_SCHEDULE', want 'batch:NoSchedule'" in diags[0].message


def test_gpu_pools_without_device_plugin(check):
    fx = golden().drop("nvidia-device-plugin")
    diags = check(fx)
    assert fired(diags) == {("gpu-device-plugin", fx.urn("infer")), ("gpu-device-plugin", fx.urn("train"))}
    assert all(d.level == "advisory" and "no NVIDIA device plugin in the stack" in d.message for d in diags)


def test_device_plugin_missing_a_pool_taint(check):
    fx = golden().edit("nvidia-device-plugin", lambda p: p["values"].update(
        tolerations=[toleration(CLASS, "gpu-inference"), toleration(GPU, "present")]))
    diags = check(fx)
    assert fired(diags) == {("gpu-device-plugin", fx.urn("train"))}
    assert "does not tolerate nodepools.io/pool-class=gpu-training:NoSchedule of pool 'train'" in diags[0].message


def test_device_plugin_without_node_selection_lands_on_the_resident_pool(check):
    def unselective(props):
        props["values"].update(affinity={})
        props["namespace"] = "nvidia"
    fx = golden().edit("nvidia-device-plugin", unselective)
    diags = check(fx)
    assert fired(diags) == {("gpu-device-plugin", fx.urn("nvidia-device-plugin"))}
    assert [d.message.split("\n")[1] for d in diags] == [
        "Release 'nvidia-device-plugin' in namespace 'nvidia': values.tolerations/nodeSelector/affinity: lands on "
        "non-GPU pool 'web', where it fails to initialise. Fix: select GPU nodes only, e.g. nodeSelector "
        "nvidia.com/gpu.present: 'true'"]


def test_a_plugin_in_a_system_namespace_is_never_reported_as_a_workload(check):
    """docs/design.md section 6: the rule judges GPU pools' coverage; kube-system is out of scope."""
    fx = golden().edit("nvidia-device-plugin", lambda p: p["values"].update(affinity={}))
    assert check(fx) == []


def test_device_plugin_as_a_daemonset(check):
    daemonset = Resource.of("kubernetes:apps/v1:DaemonSet", "dp", {"metadata": {"namespace": "kube-system"}, "spec": {
        "template": {"spec": {"nodeSelector": {"nvidia.com/gpu.present": "true"}, "tolerations": [
            toleration(CLASS, "gpu-inference"), toleration(CLASS, "gpu-training"), toleration(GPU)],
            "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"}]}}}})
    assert fired(check(golden().drop("nvidia-device-plugin").add(daemonset))) == set()


def test_bottlerocket_nvidia_bundles_the_plugin(check):
    fx = golden().drop("nvidia-device-plugin").edit("infer", lambda p: p.update(amiType="BOTTLEROCKET_x86_64_NVIDIA"))
    assert fired(check(fx)) == {("gpu-device-plugin", fx.urn("train"))}


def gke_gpu_pool(driver):
    config = {"machineType": "g2-standard-8", "labels": {CLASS: "gpu-inference"},
              "taints": [taint(CLASS, "gpu-inference"), taint(GPU, "present")],
              "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0, **(
                  {"gpuDriverInstallationConfig": {"gpuDriverVersion": driver}} if driver else {})}]}
    return Resource.of(GKE_POOL, "gke-infer", {"cluster": "dev", "name": "infer", "nodeConfig": config,
                                               "autoscaling": {"totalMinNodeCount": 1.0, "totalMaxNodeCount": 2.0}})


@pytest.mark.parametrize("driver, fires", [(None, True), ("INSTALLATION_DISABLED", True), ("DEFAULT", False),
                                           ("LATEST", False)])
def test_gke_gpu_pool_driver_installation(check, driver, fires):
    pool = gke_gpu_pool(driver)
    diags = check([pool])
    assert fired(diags) == ({("gpu-device-plugin", pool.urn)} if fires else set())
    if fires:
        assert "nodeConfig.guestAccelerators[0].gpuDriverInstallationConfig.gpuDriverVersion" in diags[0].message


@pytest.mark.parametrize("version, minimum, fires", [("1.30", None, True), ("1.35", None, False),
                                                     ("1.35", "1.36", True), ("1.35.1", None, False)])
def test_cluster_version(check, version, minimum, fires):
    """The minimum, judged on a day 1.35 is in standard support (test_cluster_version_support.py: the calendar)."""
    fx = golden().edit("prod", lambda p: p.update(version=version))
    config = {"cluster-version": {"today": PINNED.isoformat(), **({"minClusterVersion": minimum} if minimum else {})}}
    diags = check(fx, config)
    assert fired(diags) == ({("cluster-version", fx.urn("prod"))} if fires else set())
    if fires:
        assert f"version: version {version} is older than the minimum {minimum or '1.32'}" in diags[0].message


def test_no_throttling_alert(check):
    fx = golden().drop("cpu-contention")
    diags = check(fx)
    assert fired(diags) == {("throttling-monitoring", "")}
    assert "nothing alerts on CPU throttling or node CPU steal" in diags[0].message


def test_throttling_alert_without_steal(check):
    fx = golden().edit("cpu-contention", lambda p: p["spec"]["groups"][0]["rules"].pop())
    diags = check(fx)
    assert fired(diags) == {("throttling-monitoring", "")}
    assert "nothing alerts on node CPU steal" in diags[0].message


def test_no_alert_needed_without_batch_pools(check):
    fx = golden().drop("cpu-contention", "jobs", "jobs-tag-0", "jobs-tag-1")
    assert ("throttling-monitoring", "") not in fired(check(fx))


def test_the_default_pool_is_the_resident_one_never_a_gpu_pool(check):
    """docs/design.md section 6: an unlabelled untainted GPU node group sorted before the resident pool
    must not be taken as the default (the resident pool was blamed)."""
    gpu = eks_pool("a-gpu", "resident", "g6.xlarge", lo=0, hi=2)
    gpu.props["labels"] = {}
    fx = golden().add(gpu)
    diags = [d for d in check(fx) if d.policy == "pool-taints"]
    assert [(d.urn, d.message.split("\n")[1]) for d in diags] == [(fx.urn("a-gpu"), (
        "aws:eks/nodeGroup:NodeGroup 'a-gpu': taints: an untainted GPU pool, which is never the cluster's default "
        "pool: any pod can land on its GPU nodes. Fix: add {key: nvidia.com/gpu, value: present, effect: "
        "NO_SCHEDULE} to taints"))]
    cpu = eks_pool("a-cpu", "resident", "m6i.large", lo=1, hi=2)
    cpu.props["labels"] = {}
    fx = golden().add(cpu)
    assert [d.urn for d in check(fx) if d.policy == "pool-taints"] == [fx.urn("a-cpu")]
