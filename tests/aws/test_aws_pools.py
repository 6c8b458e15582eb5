"""The four pool classes on EKS under Pulumi's mock engine: exact provider inputs in wire form."""
import json

import pytest
from google.protobuf import json_format

from nodepools.backends.aws import EksCluster
from nodepools.components.pools import NodePool
from nodepools.offline.engine import run_program

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
TAG = "aws:autoscaling/tag:Tag"
ACCOUNT = "123456789012"  # nodepools.offline.fakes
NT = "k8s.io/cluster-autoscaler/node-template/"


def four_pools():
    cluster = EksCluster("prod", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000c1a", tags={"env": "prod"})
    NodePool("web", dict(pool_class="resident", instance_types=["m7i.xlarge", "m6i.xlarge"]), cluster)
    NodePool("jobs", dict(pool_class="batch", instance_types=["c7g.2xlarge"], capacity="spot", max_nodes=20), cluster)
    NodePool("infer", dict(pool_class="gpu-inference", instance_types=["g6.xlarge"], min_nodes=2), cluster)
    NodePool("train", dict(pool_class="gpu-training", instance_types=["p5.48xlarge"], placement="compact", subnet_ids=["subnet-0000000a"]), cluster)


@pytest.fixture(scope="module")
def up():
    return run_program(four_pools, preview=False)


@pytest.fixture(scope="module")
def preview():
    return run_program(four_pools, preview=True)


def wire(registration) -> dict:
    return json_format.MessageToDict(registration.wire)


def one(run, type_token, name):
    [match] = [r for r in run.resources if r.type == type_token and r.name == name]
    return match


def pool_labels(pool, cls, capacity, gpu=None):
    labels = {"nodepools.io/pool-class": cls, "nodepools.io/pool": pool, "nodepools.io/capacity": capacity}
    if gpu:
        labels.update({"nvidia.com/gpu.present": "true", "nodepools.io/accelerator": gpu,
                       "k8s.amazonaws.com/accelerator": gpu})
    return labels


def taint(key, value):
    return {"key": key, "value": value, "effect": "NO_SCHEDULE"}


GPU_TAINT = taint("nvidia.com/gpu", "present")
EXPECTED = {
    "web": dict(amiType="AL2023_x86_64_STANDARD", capacityType="ON_DEMAND", instanceTypes=["m7i.xlarge", "m6i.xlarge"],
                labels=pool_labels("web", "resident", "on-demand"), taints=[],
                scalingConfig={"minSize": 2.0, "maxSize": 6.0, "desiredSize": 2.0},
                updateConfig={"maxUnavailable": 1.0}, subnetIds=["subnet-0000000a", "subnet-0000000b"]),
    "jobs": dict(amiType="AL2023_ARM_64_STANDARD", capacityType="SPOT", instanceTypes=["c7g.2xlarge"],
                 labels=pool_labels("jobs", "batch", "spot"), taints=[taint("nodepools.io/pool-class", "batch")],
                 scalingConfig={"minSize": 0.0, "maxSize": 20.0, "desiredSize": 0.0},
                 updateConfig={"maxUnavailablePercentage": 33.0}, subnetIds=["subnet-0000000a", "subnet-0000000b"]),
    "infer": dict(amiType="AL2023_x86_64_NVIDIA", capacityType="ON_DEMAND", instanceTypes=["g6.xlarge"],
                  labels=pool_labels("infer", "gpu-inference", "on-demand", "nvidia-l4"),
                  taints=[taint("nodepools.io/pool-class", "gpu-inference"), GPU_TAINT],
                  scalingConfig={"minSize": 2.0, "maxSize": 4.0, "desiredSize": 2.0},
                  updateConfig={"maxUnavailable": 1.0}, subnetIds=["subnet-0000000a", "subnet-0000000b"],
                  nodeRepairConfig={"enabled": True}),
    "train": dict(amiType="AL2023_x86_64_NVIDIA", capacityType="SPOT", instanceTypes=["p5.48xlarge"],
                  labels=pool_labels("train", "gpu-training", "spot", "nvidia-h100"),
                  taints=[taint("nodepools.io/pool-class", "gpu-training"), GPU_TAINT],
                  scalingConfig={"minSize": 0.0, "maxSize": 4.0, "desiredSize": 0.0},
                  updateConfig={"maxUnavailablePercentage": 33.0}, subnetIds=["subnet-0000000a"],
                  nodeRepairConfig={"enabled": True}),
}
CLASSES = {"web": "resident", "jobs": "batch", "infer": "gpu-inference", "train": "gpu-training"}


def aws_tags(pool):
    return {"env": "prod", "nodepools.io/pool": pool, "nodepools.io/pool-class": CLASSES[pool]}


@pytest.mark.parametrize("pool", list(EXPECTED))
def test_node_group_inputs(up, pool):
    group = one(up, NODE_GROUP, pool)
    assert wire(group) == {
        "clusterName": "prod", "nodeRoleArn": f"arn:aws:iam::{ACCOUNT}:role/{pool}-node-role",
        "launchTemplate": {"id": f"{pool}-nodes-id", "version": "1"}, "tags": aws_tags(pool), **EXPECTED[pool]}
    assert group.ignore_changes == ["scalingConfig.desiredSize"]
    assert group.parent == one(up, "nodepools:pools:NodePool", pool).urn


@pytest.mark.parametrize("pool, disk", [("web", 50.0), ("train", 200.0)])
def test_launch_template_security_settings(up, pool, disk):
    template = wire(one(up, LAUNCH_TEMPLATE, f"{pool}-nodes"))
    expected = {
        "description": f"nodepools {CLASSES[pool]} pool {pool}",
        "updateDefaultVersion": True,
        "metadataOptions": {"httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1.0},
        "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
            "volumeSize": disk, "volumeType": "gp3", "encrypted": "true", "deleteOnTermination": "true"}}],
        "tagSpecifications": [{"resourceType": "instance", "tags": aws_tags(pool)},
                              {"resourceType": "volume", "tags": aws_tags(pool)}],
        "tags": aws_tags(pool),
        "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false",
                               "deleteOnTermination": "true", "securityGroups": ["sg-00000c1a"]}],
    }
    if pool == "train":
        expected["placement"] = {"groupName": "train-placement"}
    assert template == expected


def test_compact_training_pool_has_cluster_placement_group(up):
    [group] = up.of_type("aws:ec2/placementGroup:PlacementGroup")
    assert (group.name, wire(group)) == ("train-placement", {"strategy": "cluster", "tags": aws_tags("train")})


def expected_tags(pool, labels, taints, gpus=None, options=None):
    tags = {"k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/prod": "owned"}
    tags.update({f"{NT}label/{k}": val for k, val in labels.items()})
    tags.update({f"{NT}taint/{k}": val for k, val in taints.items()})
    if gpus:
        tags[f"{NT}resources/nvidia.com/gpu"] = gpus
    tags.update({f"{NT}autoscaling-options/{k}": val for k, val in (options or {}).items()})
    return tags


AUTOSCALER_TAGS = {
    "web": expected_tags("web", {**pool_labels("web", "resident", "on-demand"),
                                 "eks.amazonaws.com/capacityType": "ON_DEMAND"}, {}),
    "jobs": expected_tags("jobs", {**pool_labels("jobs", "batch", "spot"), "eks.amazonaws.com/capacityType": "SPOT"},
                          {"nodepools.io/pool-class": "batch:NoSchedule"}),
    "infer": expected_tags("infer", {**pool_labels("infer", "gpu-inference", "on-demand", "nvidia-l4"),
                                     "eks.amazonaws.com/capacityType": "ON_DEMAND"},
                           {"nodepools.io/pool-class": "gpu-inference:NoSchedule", "nvidia.com/gpu": "present:NoSchedule"},
                           "1", {"scaledowngpuutilizationthreshold": "0.5", "scaledownunneededtime": "20m0s"}),
    "train": expected_tags("train", {**pool_labels("train", "gpu-training", "spot", "nvidia-h100"),
                                     "eks.amazonaws.com/capacityType": "SPOT"},
                           {"nodepools.io/pool-class": "gpu-training:NoSchedule", "nvidia.com/gpu": "present:NoSchedule"},
                           "8", {"scaledowngpuutilizationthreshold": "0.0625", "scaledownunneededtime": "5m0s"}),
}


@pytest.mark.parametrize("pool", list(AUTOSCALER_TAGS))
def test_autoscaler_tags_on_the_node_groups_asg(up, pool):
    group = one(up, NODE_GROUP, pool)
    tags = [r for r in up.of_type(TAG) if r.parent == group.parent]
    inputs = [wire(t) for t in tags]
    assert {w["tag"]["key"]: w["tag"]["value"] for w in inputs} == AUTOSCALER_TAGS[pool]
    assert len(inputs) == len(AUTOSCALER_TAGS[pool])
    assert {w["tag"]["propagateAtLaunch"] for w in inputs} == {False}
    assert {w["autoscalingGroupName"] for w in inputs} == {f"eks-{pool}-fake-asg"}
    for tag in tags:
        assert tag.dependencies == [group.urn], tag.name
        assert tag.property_dependencies["autoscalingGroupName"] == [group.urn]


def test_tags_register_at_preview_and_depend_on_their_node_group(preview):
    # The ASG name is unknown at preview; the tags must still be there, linked by dependency.
    groups = {r.urn: r.name for r in preview.of_type(NODE_GROUP)}
    by_pool = {}
    for tag in preview.of_type(TAG):
        [urn] = tag.dependencies
        by_pool.setdefault(groups[urn], set()).add(tag.inputs["tag"]["key"])
    assert by_pool == {pool: set(tags) for pool, tags in AUTOSCALER_TAGS.items()}


def test_tag_resource_names_derive_from_keys(up):
    names = {r.name for r in up.of_type(TAG) if r.name.startswith("infer-")}
    assert names == {
        "infer-ca-enabled", "infer-ca-cluster", "infer-ca-resource-nvidia.com/gpu",
        "infer-ca-option-scaledowngpuutilizationthreshold", "infer-ca-option-scaledownunneededtime",
        "infer-ca-taint-nodepools.io/pool-class", "infer-ca-taint-nvidia.com/gpu",
        "infer-ca-label-nodepools.io/pool-class", "infer-ca-label-nodepools.io/pool",
        "infer-ca-label-nodepools.io/capacity", "infer-ca-label-nvidia.com/gpu.present",
        "infer-ca-label-nodepools.io/accelerator", "infer-ca-label-k8s.amazonaws.com/accelerator",
        "infer-ca-label-eks.amazonaws.com/capacityType"}


def test_node_role_and_its_policy_attachments(up):
    role = one(up, "aws:iam/role:Role", "web-node-role")
    assert json.loads(wire(role)["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    attachments = [r for r in up.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                   if r.name.startswith("web-")]
    assert sorted((a.name, wire(a)["role"], wire(a)["policyArn"]) for a in attachments) == [
        ("web-node-AmazonEC2ContainerRegistryPullOnly", "web-node-role-id",
         "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly"),
        ("web-node-AmazonEKSWorkerNodePolicy", "web-node-role-id", "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"),
        ("web-node-AmazonEKS_CNI_Policy", "web-node-role-id", "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"),
    ]
    # The node group waits for every attachment: nodes cannot join without them.
    assert {a.urn for a in attachments} <= set(one(up, NODE_GROUP, "web").dependencies)


def test_existing_node_role_creates_no_role():
    def program():
        cluster = EksCluster("prod", ["subnet-0000000a"], node_role_arn="arn:aws:iam::111122223333:role/nodes",
                             node_security_group_ids=["sg-00000c1a"])
        NodePool("web", dict(pool_class="resident", instance_types=["m7i.xlarge"]), cluster)

    run = run_program(program, preview=False)
    assert [r.type for r in run.resources if r.type.startswith("aws:iam")] == []
    assert wire(one(run, NODE_GROUP, "web"))["nodeRoleArn"] == "arn:aws:iam::111122223333:role/nodes"
    assert wire(one(run, LAUNCH_TEMPLATE, "web-nodes"))["networkInterfaces"] == [{
        "deviceIndex": 0.0, "associatePublicIpAddress": "false", "deleteOnTermination": "true",
        "securityGroups": ["sg-00000c1a"]}]


def test_same_program_registers_identical_inputs_twice(up):
    again = run_program(four_pools, preview=False)
    assert sorted((r.urn, r.wire.SerializeToString(deterministic=True)) for r in again.resources) == sorted(
        (r.urn, r.wire.SerializeToString(deterministic=True)) for r in up.resources)


def test_explicit_provider_reaches_every_resource():
    import pulumi_aws as aws

    def program():
        west = aws.Provider("west", region="us-west-2")
        NodePool("train", dict(pool_class="gpu-training", instance_types=["g5.xlarge"], placement="compact"), EksCluster("prod", ["subnet-0000000a"], cluster_security_group_id="sg-00000c1a", provider=west))

    run = run_program(program, preview=False)
    [provider] = run.of_type("pulumi:providers:aws")
    children = [r for r in run.resources if r.type.startswith("aws:")]
    assert len(children) > 10
    assert {r.provider.rsplit("::", 1)[0] for r in children} == {provider.urn}
