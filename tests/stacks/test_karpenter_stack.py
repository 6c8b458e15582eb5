"""stacks/Pulumi.aws-karpenter.yaml under mocks: exact Karpenter inputs, CRD-valid objects,
no cluster-autoscaler, and bad input refused by config path before anything registers."""
import json
import runpy
import sys
from pathlib import Path

import pytest
import yaml

from nodepools.offline.engine import run_program_capture

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "aws"))
from karpenter_schema import validate_karpenter  # noqa: E402

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
RELEASE = "kubernetes:helm.sh/v3:Release"
PREFIX = "np-aws-karpenter-karpenter"
QUEUE_ARN = f"arn:aws:sqs:us-west-2:123456789012:{PREFIX}-interruption"


@pytest.fixture(scope="module")
def up():
    root = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((root / "stacks" / "Pulumi.aws-karpenter.yaml").read_text())["config"]
    run, error = run_program_capture(lambda: runpy.run_path(str(root / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack="aws-karpenter", config=config, preview=False)
    assert error is None, error
    return run


def named(run, type_, name):
    [match] = [r for r in run.of_type(type_) if r.name == name]
    return match


def short(urns):
    return sorted(u.split("::")[-1] for u in urns)


def test_three_karpenter_pools_and_one_managed_system_group(up):
    assert [r.name for r in up.of_type("aws:eks/nodeGroup:NodeGroup")] == ["np-aws-karpenter-system"]
    assert sorted(r.inputs["metadata"]["name"] for r in up.of_type(NODE_POOL)) == ["batch", "inference", "training"]
    assert sorted(r.inputs["metadata"]["name"] for r in up.of_type(NODE_CLASS)) == ["batch", "inference", "training"]
    # Karpenter's nodes carry no ASG tags: only the system group's ASG is tagged.
    assert {r.name.split("-ca-")[0] for r in up.of_type("aws:autoscaling/tag:Tag")} == {"np-aws-karpenter-system"}


def test_no_managed_group_autoscales_so_no_cluster_autoscaler(up):
    releases = {r.inputs["name"] for r in up.of_type(RELEASE)}
    assert releases == {"karpenter", "kueue", "nvidia-device-plugin"}
    assert not [r for r in up.resources if "cluster-autoscaler" in r.name]


def test_every_karpenter_object_validates_against_the_crds(up):
    for r in up.of_type(NODE_POOL) + up.of_type(NODE_CLASS):
        obj = json.loads(json.dumps(r.inputs).replace('"httpPutResponseHopLimit": 1.0',
                                                      '"httpPutResponseHopLimit": 1'))
        validate_karpenter(obj)


def test_training_node_pool_exact_and_waits_for_the_chart(up):
    pool = named(up, NODE_POOL, "np-aws-karpenter-training-nodepool")
    assert pool.inputs["spec"] == {
        "template": {
            "metadata": {"labels": {"nodepools.io/pool-class": "gpu-training", "nodepools.io/pool": "training",
                                    "nodepools.io/capacity": "spot", "nvidia.com/gpu.present": "true",
                                    "nodepools.io/accelerator": "nvidia-l40s",
                                    "k8s.amazonaws.com/accelerator": "nvidia-l40s"},
                         "annotations": {"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"}},
            "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "training"},
                     "requirements": [
                         {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                         {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.12xlarge"]},
                         {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                         {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}],
                     "taints": [{"key": "nodepools.io/pool-class", "value": "gpu-training", "effect": "NoSchedule"},
                                {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
                     "expireAfter": "168h"},
        },
        "limits": {"cpu": "96", "memory": "786432Mi", "nvidia.com/gpu": "8"},
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
    }
    assert short(pool.dependencies) == [f"{PREFIX}-chart", "np-aws-karpenter-training-nodeclass"]


def test_batch_falls_back_to_on_demand_as_configured(up):
    pool = named(up, NODE_POOL, "np-aws-karpenter-batch-nodepool")
    assert pool.inputs["spec"]["template"]["spec"]["requirements"][0]["values"] == ["spot", "on-demand"]
    assert pool.inputs["spec"]["limits"] == {"cpu": "48", "memory": "98304Mi"}


def test_node_class_uses_our_instance_profile_subnets_and_cluster_security_group(up):
    spec = named(up, NODE_CLASS, "np-aws-karpenter-inference-nodeclass").inputs["spec"]
    assert spec["instanceProfile"] == f"{PREFIX}-node"
    assert spec["subnetSelectorTerms"] == [{"id": "subnet-0a1b2c3d4e5f60701"}, {"id": "subnet-0a1b2c3d4e5f60702"}]
    assert spec["securityGroupSelectorTerms"] == [{"id": "sg-0fake0cluster000001"}]
    assert spec["amiSelectorTerms"] == [{"alias": "al2023@v20260520"}]
    assert spec["blockDeviceMappings"][0]["ebs"] == {"volumeSize": "200Gi", "volumeType": "gp3", "encrypted": True,
                                                     "deleteOnTermination": True}


def test_helm_release_exact(up):
    release = named(up, RELEASE, f"{PREFIX}-chart")
    assert {k: release.inputs[k] for k in ("chart", "version", "name", "namespace")} == {
        "chart": "oci://public.ecr.aws/karpenter/karpenter", "version": "1.14.1", "name": "karpenter",
        "namespace": "kube-system"}
    assert release.inputs["values"] == {
        "fullnameOverride": "karpenter",
        # GPU pools repair (NodeRepair) and the warm inference pool is a CapacityBuffer (docs/design.md section 9).
        "settings": {"clusterName": "np-aws-karpenter", "interruptionQueue": f"{PREFIX}-interruption",
                     "featureGates": {"nodeRepair": True, "capacityBuffer": True}},
        "serviceAccount": {"create": True, "name": "karpenter", "annotations": {
            "eks.amazonaws.com/role-arn": f"arn:aws:iam::123456789012:role/{PREFIX}-controller"}},
        "nodeSelector": {"nodepools.io/pool": "system"}, "tolerations": [],
        "controller": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"},
                                     "limits": {"cpu": "1", "memory": "1Gi"}}},
    }
    # It runs on the system pool, so it waits for the managed groups.
    karpenter = named(up, "nodepools:karpenter:Karpenter", PREFIX)
    assert "np-aws-karpenter-system" in short(karpenter.dependencies)


def test_node_role_profile_and_access_entry(up):
    role = named(up, "aws:iam/role:Role", f"{PREFIX}-node")
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"] == [
        {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}}]
    assert sorted(r.inputs["policyArn"].rsplit("/", 1)[1] for r in up.of_type(
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment") if r.name.startswith(f"{PREFIX}-node-")) == [
        "AmazonEC2ContainerRegistryPullOnly", "AmazonEKSWorkerNodePolicy"]  # the CNI has its own role (IRSA)
    assert named(up, "aws:iam/instanceProfile:InstanceProfile", f"{PREFIX}-node").inputs["role"] == f"{PREFIX}-node-id"
    entry = named(up, "aws:eks/accessEntry:AccessEntry", f"{PREFIX}-node").inputs
    assert (entry["type"], entry["clusterName"], entry["principalArn"]) == (
        "EC2_LINUX", "np-aws-karpenter", f"arn:aws:iam::123456789012:role/{PREFIX}-node")


def test_interruption_queue_and_rules(up):
    queue = named(up, "aws:sqs/queue:Queue", f"{PREFIX}-interruption").inputs
    assert (queue["messageRetentionSeconds"], queue["sqsManagedSseEnabled"]) == (300, True)
    policy = json.loads(named(up, "aws:sqs/queuePolicy:QueuePolicy", f"{PREFIX}-interruption").inputs["policy"])
    assert policy["Statement"][1] == {"Sid": "DenyHTTP", "Effect": "Deny", "Principal": "*", "Action": "sqs:*",
                                      "Resource": QUEUE_ARN, "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
    patterns = {r.name.removeprefix(PREFIX + "-"): json.loads(r.inputs["eventPattern"])
                for r in up.of_type("aws:cloudwatch/eventRule:EventRule")}
    assert patterns == {
        "scheduled-change": {"source": ["aws.health"], "detail-type": ["AWS Health Event"]},
        "spot-interruption": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
        "rebalance": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]},
        "instance-state-change": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance State-change Notification"]},
        "capacity-reservation-interruption": {
            "source": ["aws.ec2"], "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"]},
    }
    assert {(r.inputs["arn"], r.inputs["targetId"]) for r in up.of_type("aws:cloudwatch/eventTarget:EventTarget")} \
        == {(QUEUE_ARN, "KarpenterInterruptionQueueTarget")}


def test_controller_role_is_irsa_for_its_service_account_and_scoped_to_this_cluster(up):
    trust = json.loads(named(up, "aws:iam/role:Role", f"{PREFIX}-controller").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Condition"]["StringEquals"][
        "oidc.eks.us-west-2.amazonaws.com/id/FAKE:sub"] == "system:serviceaccount:kube-system:karpenter"
    policy = json.loads(named(up, "aws:iam/rolePolicy:RolePolicy", f"{PREFIX}-controller").inputs["policy"])
    by_sid = {s["Sid"]: s for s in policy["Statement"]}
    assert by_sid["AllowScopedDeletion"]["Condition"] == {
        "StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/np-aws-karpenter": "owned"},
        "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"}}
    assert by_sid["AllowPassingInstanceRole"]["Resource"] == f"arn:aws:iam::123456789012:role/{PREFIX}-node"
    assert by_sid["AllowInterruptionQueueActions"]["Resource"] == QUEUE_ARN
    assert by_sid["AllowAPIServerEndpointDiscovery"]["Resource"] == (
        "arn:aws:eks:us-west-2:123456789012:cluster/np-aws-karpenter")
    assert by_sid["AllowInstanceProfileReadActions"] == {
        "Sid": "AllowInstanceProfileReadActions", "Effect": "Allow", "Action": "iam:GetInstanceProfile",
        "Resource": f"arn:aws:iam::123456789012:instance-profile/{PREFIX}-node"}
    # No instance-profile writes: the EC2NodeClasses name the profile this stack creates.
    actions = {a for s in policy["Statement"] for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert not {a for a in actions if a.startswith("iam:") and a not in ("iam:PassRole", "iam:GetInstanceProfile")}
    assert all(s["Resource"] != "*" or s["Action"] in ("pricing:GetProducts",) or "Condition" in s
               for s in policy["Statement"])


def test_kueue_flavors_mirror_the_karpenter_pools(up):
    # The training flavor points at the Topology of its g6e nodes, so it is named after its immutable fields.
    flavors = {r.inputs["metadata"]["name"].partition("-")[0]: r.inputs["spec"]["nodeLabels"]
               for r in up.of_type("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor")}
    pools = {r.inputs["metadata"]["name"]: r.inputs["spec"]["template"]["metadata"]["labels"]
             for r in up.of_type(NODE_POOL)}
    assert set(flavors) == {"batch", "training"}
    for name, labels in flavors.items():
        assert labels.items() <= pools[name].items()
