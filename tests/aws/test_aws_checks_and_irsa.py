"""EKS-specific rejections (nothing registers) and the cluster-autoscaler's IRSA role."""
import json

import pulumi
import pytest
from google.protobuf import json_format
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.backends.base import ClusterTarget
from nodepools.components.pools import NodePool
from nodepools.offline.engine import run_program, run_program_capture
from nodepools.spec import describe

SUBNETS = ["subnet-0000000a", "subnet-0000000b"]
SG = "sg-00000c1a"


def rejected(build) -> list[str]:
    """Run ``build`` as a program; it must fail with a ValidationError and register nothing."""
    run, error = run_program_capture(build)
    assert isinstance(error, ValidationError), error
    assert run.resources == []
    return describe(error)


def test_eks_cluster_is_a_cluster_target():
    assert isinstance(EksCluster("prod", SUBNETS, cluster_security_group_id=SG), ClusterTarget)


def test_invalid_spec_registers_nothing():
    assert rejected(lambda: NodePool("web", dict(pool_class="resident", instance_types=["m7i.xlarge"], min_nodes=0), EksCluster("prod", SUBNETS, cluster_security_group_id=SG))) == [
        "min_nodes: min_nodes must be >= 1 for class resident: its capacity must stay up (got 0)"]


def test_gcp_machine_types_are_refused_on_eks():
    assert rejected(lambda: NodePool("jobs", dict(pool_class="batch", instance_types=["n2-standard-8"]), EksCluster("prod", SUBNETS, cluster_security_group_id=SG))) == [
        "instance_types: instance types ['n2-standard-8'] are GCP machine types; an EKS pool needs AWS instance "
        "types (e.g. m7i.xlarge, c7g.2xlarge, g6.xlarge, p5.48xlarge; table: nodepools.spec.instances), or give "
        "custom_capacity for a type not in the table"]


def test_no_subnets_anywhere():
    assert rejected(lambda: NodePool("web", dict(pool_class="resident", instance_types=["m7i.xlarge"]), EksCluster("prod", cluster_security_group_id=SG))) == [
        "subnet_ids: no subnets: give private subnet IDs to EksCluster(subnet_ids=...) or to the pool's subnet_ids"]


def test_pool_subnets_suffice_without_cluster_subnets():
    run = run_program(lambda: NodePool("web", dict(pool_class="resident", instance_types=["m7i.xlarge"], subnet_ids=["subnet-000000ee"]), EksCluster("prod", cluster_security_group_id=SG)))
    [group] = run.of_type("aws:eks/nodeGroup:NodeGroup")
    assert group.inputs["subnetIds"] == ["subnet-000000ee"]


def test_compact_placement_over_the_clusters_subnets():
    assert rejected(lambda: NodePool("train", dict(pool_class="gpu-training", instance_types=["p4d.24xlarge"], placement="compact"), EksCluster("prod", SUBNETS, cluster_security_group_id=SG))) == [
        "placement: placement 'compact' needs exactly one subnet (a cluster placement group lives in one "
        "availability zone), but the pool would use the cluster's 2 subnets; set the pool's subnet_ids to one subnet"]


def test_all_eks_problems_reported_together():
    too_long = "example.com/" + "k" * 52  # 64 characters
    assert rejected(lambda: NodePool("jobs", dict(pool_class="batch", instance_types=["c7i.xlarge"], zones=["us-west-2a"], labels={too_long: "x", "team": ""}, taints=[{"key": "example.com/a", "effect": "NoSchedule"}, {"key": "example.com/a", "effect": "NoExecute"}]), EksCluster("prod", SUBNETS, cluster_security_group_id=SG))) == [
        "zones: zones are not used on EKS: a managed node group is placed by its subnets; leave zones empty and give "
        "subnet_ids (private subnets in those zones)",
        f"labels['{too_long}']: label key '{too_long}' has 64 characters; EKS allows 1-63 for the whole key, "
        "prefix included",
        "labels.team: label 'team' has an empty value; EKS node group labels need 1-63 characters",
        "taints[0].key: taint key 'example.com/a' is used 2 times (NoSchedule, NoExecute); on EKS each key may "
        "appear once, because cluster-autoscaler's node-template/taint/<key> ASG tag holds one taint per key",
        "taints[1].key: taint key 'example.com/a' is used 2 times (NoSchedule, NoExecute); on EKS each key may "
        "appear once, because cluster-autoscaler's node-template/taint/<key> ASG tag holds one taint per key",
    ]


def test_user_taint_reusing_the_gpu_key_with_another_effect_is_refused():
    lines = rejected(lambda: NodePool("train", dict(pool_class="gpu-training", instance_types=["g5.xlarge"], taints=[{"key": "nvidia.com/gpu", "effect": "NoExecute"}]), EksCluster("prod", SUBNETS, cluster_security_group_id=SG)))
    assert lines == ["taints[0].key: taint key 'nvidia.com/gpu' is used 2 times (NoSchedule, NoExecute); on EKS "
                     "each key may appear once, because cluster-autoscaler's node-template/taint/<key> ASG tag holds "
                     "one taint per key"]


@pytest.mark.parametrize("kwargs, expected", [
    (dict(partition="aws-eu"), "partition: partition 'aws-eu' is unknown (allowed: aws, aws-cn, aws-us-gov)"),
    (dict(cluster_name=""), "cluster_name: cluster name '' is invalid: 1-100 letters, digits, '-' or '_', starting "
                            "alphanumeric"),
    (dict(subnet_ids="subnet-0000000a"), "subnet_ids: Input should be a valid list"),
])
def test_bad_cluster_target_arguments(kwargs, expected):
    with pytest.raises(ValidationError) as info:
        EksCluster(**{"cluster_name": "prod", "cluster_security_group_id": SG, **kwargs})
    assert describe(info.value) == [expected]


class Owner(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("test:index:Owner", name)


ISSUER = "https://oidc.eks.us-west-2.amazonaws.com/id/ABC123"
PROVIDER_ARN = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC123"


def test_irsa_role_for_cluster_autoscaler():
    def program():
        cluster = EksCluster("prod", SUBNETS, cluster_security_group_id=SG, oidc_provider_arn=PROVIDER_ARN, oidc_issuer_url=ISSUER,
                             tags={"env": "prod"})
        owner = Owner("guardrails")
        pulumi.export("arn", cluster.register_cluster_autoscaler_identity("kube-system", "cluster-autoscaler", owner))

    run = run_program(program, preview=False)
    [role] = run.of_type("aws:iam/role:Role")
    [policy] = run.of_type("aws:iam/rolePolicy:RolePolicy")
    assert (role.name, role.parent) == ("guardrails-cluster-autoscaler", run.named("guardrails").urn)
    role_inputs = json_format.MessageToDict(role.wire)
    assert role_inputs["tags"] == {"env": "prod"}
    assert json.loads(role_inputs["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": PROVIDER_ARN}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {
            "oidc.eks.us-west-2.amazonaws.com/id/ABC123:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
            "oidc.eks.us-west-2.amazonaws.com/id/ABC123:aud": "sts.amazonaws.com"}}}]}
    assert policy.inputs["role"] == "guardrails-cluster-autoscaler-id"
    assert json.loads(policy.inputs["policy"]) == {"Version": "2012-10-17", "Statement": [
        {"Sid": "Discover", "Effect": "Allow", "Resource": "*", "Action": [
            "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
            "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeScalingActivities",
            "ec2:DescribeImages", "ec2:DescribeInstanceTypes",
            "ec2:DescribeLaunchTemplateVersions", "ec2:GetInstanceTypesFromInstanceRequirements",
            "eks:DescribeNodegroup"]},
        {"Sid": "ScaleOwnGroups", "Effect": "Allow", "Resource": "*",
         "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
         "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/prod": "owned"}}}]}
    assert run.outputs["arn"] == "arn:aws:iam::123456789012:role/guardrails-cluster-autoscaler"


def test_irsa_scope_tag_matches_the_tag_written_on_every_asg():
    def program():
        cluster = EksCluster("prod", SUBNETS, cluster_security_group_id=SG, oidc_provider_arn=PROVIDER_ARN, oidc_issuer_url=ISSUER)
        NodePool("jobs", dict(pool_class="batch", instance_types=["c7i.xlarge"]), cluster)
        cluster.register_cluster_autoscaler_identity("kube-system", "cluster-autoscaler", Owner("guardrails"))

    run = run_program(program, preview=False)
    [policy] = run.of_type("aws:iam/rolePolicy:RolePolicy")
    [condition] = json.loads(policy.inputs["policy"])["Statement"][1]["Condition"]["StringEquals"].items()
    asg_tags = {t.inputs["tag"]["key"]: t.inputs["tag"]["value"] for t in run.of_type("aws:autoscaling/tag:Tag")}
    assert asg_tags[condition[0].removeprefix("aws:ResourceTag/")] == condition[1]


def test_irsa_without_oidc_names_the_missing_arguments():
    def program():
        EksCluster("prod", SUBNETS, cluster_security_group_id=SG).register_cluster_autoscaler_identity("kube-system", "cluster-autoscaler",
                                                                         Owner("guardrails"))

    run, error = run_program_capture(program)
    assert describe(error) == [
        "oidc_provider_arn: EksCluster(oidc_provider_arn=...) is required for the cluster-autoscaler's IRSA role: "
        "give the cluster's IAM OIDC provider ARN and issuer URL",
        "oidc_issuer_url: EksCluster(oidc_issuer_url=...) is required for the cluster-autoscaler's IRSA role: "
        "give the cluster's IAM OIDC provider ARN and issuer URL"]
    assert [r.type for r in run.resources] == ["test:index:Owner"]


@pytest.mark.parametrize("preview", [True, False])
def test_cluster_name_from_an_output(preview):
    """A cluster created in the same stack: its name is an Output; the discovery tag and
    the IRSA condition follow it, and at preview the tags still register."""
    import pulumi_aws as aws

    def program():
        eks = aws.eks.Cluster("prod", name="prod", role_arn="arn:aws:iam::111122223333:role/eks",
                              vpc_config={"subnet_ids": SUBNETS})
        cluster = EksCluster(eks.name, SUBNETS, cluster_security_group_id=SG, oidc_provider_arn=PROVIDER_ARN, oidc_issuer_url=ISSUER)
        NodePool("jobs", dict(pool_class="batch", instance_types=["c7i.xlarge"]), cluster)
        cluster.register_cluster_autoscaler_identity("kube-system", "cluster-autoscaler", Owner("guardrails"))

    run = run_program(program, preview=preview)
    tag = next(t for t in run.of_type("aws:autoscaling/tag:Tag") if t.name == "jobs-ca-cluster")
    [group] = run.of_type("aws:eks/nodeGroup:NodeGroup")
    assert tag.inputs["tag"]["key"] == "k8s.io/cluster-autoscaler/prod"
    assert set(tag.dependencies) == {group.urn, run.named("prod").urn}
    [policy] = run.of_type("aws:iam/rolePolicy:RolePolicy")
    assert "aws:ResourceTag/k8s.io/cluster-autoscaler/prod" in policy.inputs["policy"]
