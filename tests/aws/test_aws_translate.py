"""The pure EKS translator: PoolSpec + cluster context -> plain data, no engine."""
import pytest

from nodepools.backends.aws import EksContext, translate_pool
from nodepools.backends.aws.iam import autoscaler_policy, irsa_trust_policy
from nodepools.backends.aws.tags import gpu_scale_down_options
from nodepools.spec import PoolSpec

CTX = EksContext(cluster_name="prod", subnet_ids=("subnet-0000000a", "subnet-0000000b"), cluster_security_group_id="sg-00000c1a",
                 tags={"team": "ml"})


def spec(**fields) -> PoolSpec:
    return PoolSpec(**fields)


def tag_map(plan) -> dict[str, tuple[str, str, bool]]:
    return {t.resource_name: (t.key, t.value, t.propagate_at_launch) for t in plan.asg_tags}


def test_gpu_inference_node_group_args():
    plan = translate_pool(spec(name="infer", pool_class="gpu-inference", instance_types=["g6.xlarge", "g6.2xlarge"]),
                          CTX)
    assert plan.node_group == {
        "cluster_name": "prod",
        "node_role_arn": None,
        "subnet_ids": ["subnet-0000000a", "subnet-0000000b"],
        "ami_type": "AL2023_x86_64_NVIDIA",
        "capacity_type": "ON_DEMAND",
        "instance_types": ["g6.xlarge", "g6.2xlarge"],
        "labels": {
            "nodepools.io/pool-class": "gpu-inference", "nodepools.io/pool": "infer",
            "nodepools.io/capacity": "on-demand", "nvidia.com/gpu.present": "true",
            "nodepools.io/accelerator": "nvidia-l4", "k8s.amazonaws.com/accelerator": "nvidia-l4",
        },
        "taints": [
            {"key": "nodepools.io/pool-class", "value": "gpu-inference", "effect": "NO_SCHEDULE"},
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"},
        ],
        "scaling_config": {"min_size": 1, "max_size": 4, "desired_size": 1},
        "update_config": {"max_unavailable": 1},
        "tags": {"team": "ml", "nodepools.io/pool": "infer", "nodepools.io/pool-class": "gpu-inference"},
        # GPU pools repair by default (docs/design.md section 9); EKS leaves repair off without it.
        "node_repair_config": {"enabled": True},
    }
    assert plan.placement_group is None


@pytest.mark.parametrize("instance_type, gpu, ami", [
    ("m7i.large", False, "AL2023_x86_64_STANDARD"),
    ("m7g.large", False, "AL2023_ARM_64_STANDARD"),
    ("g5.xlarge", True, "AL2023_x86_64_NVIDIA"),
])
def test_ami_type_follows_gpu_and_architecture(instance_type, gpu, ami):
    cls = "gpu-training" if gpu else "batch"
    assert translate_pool(spec(name="p", pool_class=cls, instance_types=[instance_type]), CTX).node_group["ami_type"] == ami


def test_arm_gpu_custom_type_gets_arm_nvidia_ami():
    pool = spec(name="p", pool_class="gpu-training", instance_types=["g5g.xlarge"],
                custom_capacity={"g5g.xlarge": {"vcpu": 4, "memory_gib": 8, "architecture": "arm64", "gpu_count": 1,
                                                "gpu_model": "nvidia-t4"}})
    assert translate_pool(pool, CTX).node_group["ami_type"] == "AL2023_ARM_64_NVIDIA"


def test_user_taints_keep_their_effect_and_empty_values_are_omitted():
    pool = spec(name="jobs", pool_class="batch", instance_types=["c7i.xlarge"], capacity="spot",
                taints=[{"key": "example.com/drain", "effect": "NoExecute"},
                        {"key": "example.com/soft", "value": "x", "effect": "PreferNoSchedule"}])
    plan = translate_pool(pool, CTX)
    assert plan.node_group["taints"] == [
        {"key": "nodepools.io/pool-class", "value": "batch", "effect": "NO_SCHEDULE"},
        {"key": "example.com/drain", "effect": "NO_EXECUTE"},
        {"key": "example.com/soft", "value": "x", "effect": "PREFER_NO_SCHEDULE"},
    ]
    tags = tag_map(plan)
    assert tags["jobs-ca-taint-example.com/drain"] == (
        "k8s.io/cluster-autoscaler/node-template/taint/example.com/drain", ":NoExecute", False)
    assert tags["jobs-ca-taint-example.com/soft"] == (
        "k8s.io/cluster-autoscaler/node-template/taint/example.com/soft", "x:PreferNoSchedule", False)
    assert plan.node_group["capacity_type"] == "SPOT"
    assert plan.node_group["update_config"] == {"max_unavailable_percentage": 33}


def test_autoscaler_tags_for_spot_training_pool():
    plan = translate_pool(spec(name="train", pool_class="gpu-training", instance_types=["p5.48xlarge"]), CTX)
    prefix = "k8s.io/cluster-autoscaler/node-template/"
    assert tag_map(plan) == {
        "train-ca-enabled": ("k8s.io/cluster-autoscaler/enabled", "true", False),
        "train-ca-cluster": ("k8s.io/cluster-autoscaler/prod", "owned", False),
        "train-ca-label-eks.amazonaws.com/capacityType": (prefix + "label/eks.amazonaws.com/capacityType", "SPOT", False),
        "train-ca-label-k8s.amazonaws.com/accelerator": (prefix + "label/k8s.amazonaws.com/accelerator", "nvidia-h100", False),
        "train-ca-label-nodepools.io/accelerator": (prefix + "label/nodepools.io/accelerator", "nvidia-h100", False),
        "train-ca-label-nodepools.io/capacity": (prefix + "label/nodepools.io/capacity", "spot", False),
        "train-ca-label-nodepools.io/pool": (prefix + "label/nodepools.io/pool", "train", False),
        "train-ca-label-nodepools.io/pool-class": (prefix + "label/nodepools.io/pool-class", "gpu-training", False),
        "train-ca-label-nvidia.com/gpu.present": (prefix + "label/nvidia.com/gpu.present", "true", False),
        "train-ca-taint-nodepools.io/pool-class": (prefix + "taint/nodepools.io/pool-class", "gpu-training:NoSchedule", False),
        "train-ca-taint-nvidia.com/gpu": (prefix + "taint/nvidia.com/gpu", "present:NoSchedule", False),
        "train-ca-resource-nvidia.com/gpu": (prefix + "resources/nvidia.com/gpu", "8", False),
        "train-ca-option-scaledowngpuutilizationthreshold": (
            prefix + "autoscaling-options/scaledowngpuutilizationthreshold", "0.0625", False),
        "train-ca-option-scaledownunneededtime": (prefix + "autoscaling-options/scaledownunneededtime", "5m0s", False),
    }


def test_tag_names_do_not_depend_on_order():
    a = spec(name="jobs", pool_class="batch", instance_types=["c7i.xlarge"], labels={"a": "1", "b": "2"},
             taints=[{"key": "x"}, {"key": "y"}])
    b = spec(name="jobs", pool_class="batch", instance_types=["c7i.xlarge"], labels={"b": "2", "a": "1"},
             taints=[{"key": "y"}, {"key": "x"}])
    assert tag_map(translate_pool(a, CTX)) == tag_map(translate_pool(b, CTX))


@pytest.mark.parametrize("instance_type, cls, expected", [
    ("g6.xlarge", "gpu-inference", {"scaledowngpuutilizationthreshold": "0.5", "scaledownunneededtime": "20m0s"}),
    ("g6.12xlarge", "gpu-inference", {"scaledowngpuutilizationthreshold": "0.125", "scaledownunneededtime": "20m0s"}),
    ("p4d.24xlarge", "gpu-training", {"scaledowngpuutilizationthreshold": "0.0625", "scaledownunneededtime": "5m0s"}),
    ("m7i.xlarge", "batch", {}),
])
def test_gpu_scale_down_threshold_sits_below_one_gpu(instance_type, cls, expected):
    assert gpu_scale_down_options(spec(name="p", pool_class=cls, instance_types=[instance_type])) == expected


def test_launch_template_is_locked_down():
    plan = translate_pool(spec(name="web", pool_class="resident", instance_types=["m7i.xlarge"], disk_size_gib=80),
                          EksContext(cluster_name="prod", subnet_ids=("s",), cluster_security_group_id="sg-0000000c",
                                     ebs_kms_key_arn="arn:kms"))
    lt = plan.launch_template
    assert lt["metadata_options"] == {"http_endpoint": "enabled", "http_tokens": "required",
                                      "http_put_response_hop_limit": 1}
    assert lt["block_device_mappings"] == [{"device_name": "/dev/xvda", "ebs": {
        "volume_size": 80, "volume_type": "gp3", "encrypted": "true", "delete_on_termination": "true",
        "kms_key_id": "arn:kms"}}]
    forbidden = {"key_name", "iam_instance_profile", "instance_type", "instance_market_options",
                 "hibernation_options", "instance_initiated_shutdown_behavior", "vpc_security_group_ids",
                 "security_group_names"}
    assert forbidden & set(lt) == set()


@pytest.mark.parametrize("cluster_sg, extra, expected", [
    ("sg-0000000c", (), ["sg-0000000c"]),
    ("sg-0000000c", ("sg-00000001", "sg-0000000c", "sg-00000002"), ["sg-0000000c", "sg-00000001", "sg-00000002"]),
    (None, ("sg-00000001", "sg-00000002"), ["sg-00000001", "sg-00000002"]),
])
def test_security_groups_go_on_an_interface_without_public_ip(cluster_sg, extra, expected):
    plan = translate_pool(spec(name="web", pool_class="resident", instance_types=["m7i.xlarge"]),
                          EksContext(cluster_name="prod", subnet_ids=("s",), cluster_security_group_id=cluster_sg,
                                     node_security_group_ids=extra))
    assert plan.launch_template["network_interfaces"] == [{
        "device_index": 0, "associate_public_ip_address": "false", "delete_on_termination": "true",
        "security_groups": expected}]
    assert "vpc_security_group_ids" not in plan.launch_template


def test_no_security_group_at_all_is_refused_by_the_translator():
    with pytest.raises(ValueError, match=r"no security group for the nodes: give EksCluster\(cluster_security_group_id"):
        translate_pool(spec(name="web", pool_class="resident", instance_types=["m7i.xlarge"]),
                       EksContext(cluster_name="prod", subnet_ids=("s",)))


def test_node_role_planned_only_without_existing_arn():
    pool = spec(name="web", pool_class="resident", instance_types=["m7i.xlarge"])
    role = translate_pool(pool, CTX).node_role
    assert role.resource_name == "web-node-role"
    assert role.assume_role_policy == {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    assert role.policy_arns == {
        "AmazonEKSWorkerNodePolicy": "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "AmazonEC2ContainerRegistryPullOnly": "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "AmazonEKS_CNI_Policy": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"}
    china = EksContext(cluster_name="prod", subnet_ids=("s",), cluster_security_group_id="sg-0000000c", partition="aws-cn",
                       attach_cni_policy=False)
    assert translate_pool(pool, china).node_role.policy_arns == {
        "AmazonEKSWorkerNodePolicy": "arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "AmazonEC2ContainerRegistryPullOnly": "arn:aws-cn:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly"}
    existing = EksContext(cluster_name="prod", subnet_ids=("s",), cluster_security_group_id="sg-0000000c",
                          node_role_arn="arn:aws:iam::111122223333:role/nodes")
    plan = translate_pool(pool, existing)
    assert (plan.node_role, plan.node_group["node_role_arn"]) == (None, "arn:aws:iam::111122223333:role/nodes")


def test_compact_pool_gets_cluster_placement_group_and_own_subnet():
    pool = spec(name="train", pool_class="gpu-training", instance_types=["p5.48xlarge"], placement="compact",
                subnet_ids=["subnet-000000ff"])
    plan = translate_pool(pool, CTX)
    assert plan.placement_group == {"strategy": "cluster", "tags": {
        "team": "ml", "nodepools.io/pool": "train", "nodepools.io/pool-class": "gpu-training"}}
    assert plan.node_group["subnet_ids"] == ["subnet-000000ff"]


def test_irsa_documents():
    trust = irsa_trust_policy("arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC",
                              "https://oidc.eks.us-west-2.amazonaws.com/id/ABC", "kube-system", "cluster-autoscaler")
    assert trust["Statement"][0]["Condition"] == {"StringEquals": {
        "oidc.eks.us-west-2.amazonaws.com/id/ABC:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
        "oidc.eks.us-west-2.amazonaws.com/id/ABC:aud": "sts.amazonaws.com"}}
    scale = autoscaler_policy("prod")["Statement"][1]
    assert scale == {"Sid": "ScaleOwnGroups", "Effect": "Allow",
                     "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
                     "Resource": "*",
                     "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/prod": "owned"}}}
