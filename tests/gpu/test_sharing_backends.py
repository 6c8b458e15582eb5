"""Exact provider inputs for time-sliced and MIG pools on EKS and GKE."""
import base64

from nodepools.backends.aws import EksContext, translate_pool
from nodepools.backends.gcp import GkeContext, translate
from nodepools.spec import PoolSpec

CTX = EksContext(cluster_name="prod", subnet_ids=("subnet-0000000a",), cluster_security_group_id="sg-00000c1a")
GKE = GkeContext(project="my-project", location="europe-west4")
BASE_LABELS = {"nodepools.io/pool-class": "gpu-inference", "nodepools.io/pool": "infer",
               "nodepools.io/capacity": "on-demand", "nvidia.com/gpu.present": "true"}


def pool(instance_type: str, **sharing) -> PoolSpec:
    return PoolSpec(name="infer", pool_class="gpu-inference", instance_types=[instance_type], gpu_sharing=sharing)


def resource_tags(plan) -> dict[str, str]:
    prefix = "k8s.io/cluster-autoscaler/node-template/"
    return {t.key.removeprefix(prefix): t.value for t in plan.asg_tags
            if t.key.startswith(prefix + "resources/") or t.key.startswith(prefix + "autoscaling-options/scaledowngpu")}


def test_time_sliced_eks_pool_selects_its_device_plugin_config_and_advertises_replicas():
    plan = translate_pool(pool("g6.12xlarge", mode="time-slicing", replicas=4), CTX)
    assert plan.node_group["labels"] == {
        **BASE_LABELS, "nodepools.io/accelerator": "nvidia-l4", "nodepools.io/gpu-sharing": "time-slicing",
        "k8s.amazonaws.com/accelerator": "nvidia-l4", "nvidia.com/device-plugin.config": "time-slicing-4"}
    # 4 L4 x 4 replicas; the GPU scale-down threshold is half of one replica's share.
    assert resource_tags(plan) == {"resources/nvidia.com/gpu": "16",
                                   "autoscaling-options/scaledowngpuutilizationthreshold": "0.03125"}
    assert "user_data" not in plan.launch_template


def test_mig_eks_pool_boots_pre_partitioned_and_advertises_slices():
    plan = translate_pool(pool("p4d.24xlarge", mode="mig", profile="2g.10gb"), CTX)
    assert plan.node_group["labels"] == {
        **BASE_LABELS, "nodepools.io/accelerator": "nvidia-a100", "nodepools.io/gpu-sharing": "mig",
        "nodepools.io/mig-profile": "2g.10gb", "nvidia.com/device-plugin.config": "mig-2g.10gb"}
    # No k8s.amazonaws.com/accelerator: the autoscaler would hold a node without allocatable
    # nvidia.com/gpu as ResourceUnready; the slices are sized from the resources tag instead.
    assert resource_tags(plan) == {"resources/nvidia.com/mig-2g.10gb": "24"}
    assert not any("k8s.amazonaws.com/accelerator" in t.key for t in plan.asg_tags)
    assert base64.b64decode(plan.launch_template["user_data"]).decode() == "\n".join([
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="//nodepools-mig//"',
        "",
        "--//nodepools-mig//",
        'Content-Type: text/x-shellscript; charset="us-ascii"',
        "",
        "#!/bin/bash",
        "# nodepools: split every GPU into 3 x MIG 2g.10gb before the kubelet starts",
        "set -euo pipefail",
        "nvidia-smi -mig 1",
        "for gpu in $(nvidia-smi --query-gpu=index --format=csv,noheader); do",
        '  nvidia-smi mig -i "$gpu" -cgi 2g.10gb,2g.10gb,2g.10gb -C',
        "done",
        "",
        "--//nodepools-mig//--",
        ""])


def test_whole_gpu_eks_pool_is_unchanged_by_sharing_support():
    plan = translate_pool(pool("g6.xlarge"), CTX)
    assert "nvidia.com/device-plugin.config" not in plan.node_group["labels"]
    assert resource_tags(plan)["resources/nvidia.com/gpu"] == "1"


def test_time_sliced_gke_pool_sets_gpu_sharing_config():
    plan = translate(pool("g2-standard-24", mode="time-slicing", replicas=3), GKE)
    (accelerator,) = plan.args["node_config"]["guest_accelerators"]
    assert accelerator == {
        "type": "nvidia-l4", "count": 2, "gpu_driver_installation_config": {"gpu_driver_version": "DEFAULT"},
        "gpu_sharing_config": {"gpu_sharing_strategy": "TIME_SHARING", "max_shared_clients_per_gpu": 3}}
    assert {k: plan.node_labels[k] for k in plan.node_labels if "gpu-sharing" in k or "shared" in k} == {
        "nodepools.io/gpu-sharing": "time-slicing", "cloud.google.com/gke-gpu-sharing-strategy": "time-sharing",
        "cloud.google.com/gke-max-shared-clients-per-gpu": "3"}
    # Our labels go on the nodes; GKE's own are not sent.
    assert "cloud.google.com/gke-gpu-sharing-strategy" not in plan.args["node_config"]["labels"]


def test_mig_gke_pool_sets_gpu_partition_size():
    plan = translate(pool("a2-ultragpu-1g", mode="mig", profile="1g.10gb"), GKE)
    (accelerator,) = plan.args["node_config"]["guest_accelerators"]
    assert accelerator == {
        "type": "nvidia-a100-80gb", "count": 1, "gpu_driver_installation_config": {"gpu_driver_version": "DEFAULT"},
        "gpu_partition_size": "1g.10gb"}
    assert plan.node_labels["cloud.google.com/gke-gpu-partition-size"] == "1g.10gb"
    assert plan.args["node_config"]["labels"]["nodepools.io/mig-profile"] == "1g.10gb"


# ---- through the engine: the SDKs' own wire names, and nothing registered on bad input ----

import pytest  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from nodepools.backends.aws import EksCluster  # noqa: E402
from nodepools.backends.gcp import GkeCluster  # noqa: E402
from nodepools.components.pools import NodePool  # noqa: E402
from nodepools.offline.engine import run_program, run_program_capture  # noqa: E402
from nodepools.spec import describe  # noqa: E402
from nodepools.vocabulary import TYPE_GKE_NODE_POOL  # noqa: E402



def inference_pool(name, target, **spec):
    return NodePool(name, dict(pool_class="gpu-inference", **spec), target)


def training_pool(name, target, **spec):
    return NodePool(name, dict(pool_class="gpu-training", **spec), target)


def test_gke_sharing_reaches_the_provider_in_its_wire_spelling():
    def program():
        target = GkeCluster("main", location="us-central1", project="my-project")
        inference_pool("ts", target, instance_types=["g2-standard-8"], gpu_sharing={"mode": "time-slicing",
                                                                                       "replicas": 2})
        inference_pool("mig", target, instance_types=["a2-highgpu-1g"], gpu_sharing={"mode": "mig",
                                                                                        "profile": "1g.5gb"})
    run = run_program(program, preview=False)
    accelerators = {r.name: r.inputs["nodeConfig"]["guestAccelerators"][0] for r in run.of_type(TYPE_GKE_NODE_POOL)}
    assert accelerators["ts"]["gpuSharingConfig"] == {"gpuSharingStrategy": "TIME_SHARING",
                                                     "maxSharedClientsPerGpu": 2.0}
    assert accelerators["mig"]["gpuPartitionSize"] == "1g.5gb"
    assert "gpuSharingConfig" not in accelerators["mig"]


def test_mig_user_data_reaches_the_launch_template():
    def program():
        inference_pool("mig", EksCluster("prod", ["subnet-0000000a"], cluster_security_group_id="sg-00000000"),
                         instance_types=["p5.48xlarge"], gpu_sharing={"mode": "mig", "profile": "3g.40gb"})
    run = run_program(program, preview=False)
    (template,) = run.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    script = base64.b64decode(template.inputs["userData"]).decode()
    assert '  nvidia-smi mig -i "$gpu" -cgi 3g.40gb,3g.40gb -C' in script.splitlines()


@pytest.mark.parametrize("build, expected", [
    (lambda t: training_pool("train", t, instance_types=["p4d.24xlarge"],
                               gpu_sharing={"mode": "mig", "profile": "1g.5gb"}),
     "gpu_sharing.mode: gpu_sharing mode 'mig' is not allowed for class gpu-training (allowed: none); only "
     "gpu-inference pools share GPUs, training takes whole GPUs"),
    (lambda t: inference_pool("infer", t, instance_types=["g5.xlarge"],
                                gpu_sharing={"mode": "mig", "profile": "1g.5gb"}),
     "gpu_sharing.mode: gpu_sharing mode 'mig' needs a MIG-capable GPU (allowed: nvidia-a100, nvidia-a100-80gb, "
     "nvidia-h100); nvidia-a10g does not support MIG"),
    (lambda t: inference_pool("infer", t, instance_types=["p5.48xlarge"],
                                gpu_sharing={"mode": "mig", "profile": "1g.5gb"}),
     "gpu_sharing.profile: MIG profile '1g.5gb' does not exist on nvidia-h100 (allowed: 1g.10gb, 1g.20gb, "
     "2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)"),
])
def test_bad_sharing_registers_nothing(build, expected):
    run, error = run_program_capture(lambda: build(EksCluster("prod", ["subnet-0000000a"], cluster_security_group_id="sg-00000000")))
    assert isinstance(error, ValidationError), error
    assert describe(error) == [expected]
    assert [r for r in run.resources if r.custom] == []
