"""Secure by default on EKS: the exact inputs the engine receives for nodes and identities.

The reference platform (``reliability_programs``) runs under Pulumi's mock engine;
each test asserts what a node could otherwise get by accident: IMDSv1, an
unencrypted disk, an SSH key, a public IP, broad IAM.
"""
import json

import pytest

from nodepools import vocabulary as v
from nodepools.offline.analyzer import UNKNOWN_WIRE
from nodepools.offline.engine import run_program

from reliability_programs import (CLUSTER_SG, EXTRA_SG, OIDC_ARN, aws_pools, eks_target, platform_program, rejected,
                                  under, wire)

POOLS = ("web", "jobs", "infer", "train")
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ROLE = "aws:iam/role:Role"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
INLINE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ISSUER_HOST = "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"


def template(run, pool):
    [lt] = under(run, pool, LAUNCH_TEMPLATE)
    return wire(lt)


# ---- EKS nodes -----------------------------------------------------------------

@pytest.mark.parametrize("pool", POOLS)
def test_imdsv2_is_required_with_hop_limit_1(eks_up, pool):
    assert template(eks_up, pool)["metadataOptions"] == {
        "httpEndpoint": "enabled", "httpTokens": "required", "httpPutResponseHopLimit": 1.0}


@pytest.mark.parametrize("pool, size", [("web", 50.0), ("jobs", 50.0), ("infer", 200.0), ("train", 200.0)])
def test_the_only_volume_is_the_encrypted_root(eks_up, pool, size):
    assert template(eks_up, pool)["blockDeviceMappings"] == [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": size, "volumeType": "gp3", "encrypted": "true", "deleteOnTermination": "true"}}]


def test_a_customer_kms_key_encrypts_every_root_volume():
    key = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    run = run_program(platform_program(lambda: eks_target(ebs_kms_key_arn=key), aws_pools(), region="us-west-2"))
    for pool in POOLS:
        [mapping] = template(run, pool)["blockDeviceMappings"]
        assert (mapping["ebs"]["encrypted"], mapping["ebs"]["kmsKeyId"]) == ("true", key), pool


@pytest.mark.parametrize("pool", POOLS)
def test_no_ssh_key_and_no_remote_access(eks_up, pool):
    lt = template(eks_up, pool)
    [group] = under(eks_up, pool, v.TYPE_EKS_NODE_GROUP)
    assert "keyName" not in lt
    assert "remoteAccess" not in wire(group)
    # The group launches from our template, never from the default one EKS would create.
    assert wire(group)["launchTemplate"] == {"id": f"p-{pool}-nodes-id", "version": "1"}


@pytest.mark.parametrize("pool", POOLS)
def test_no_public_ip_whatever_the_subnet_says(eks_up, pool):
    lt = template(eks_up, pool)
    assert lt["networkInterfaces"] == [{
        "deviceIndex": 0.0, "associatePublicIpAddress": "false", "deleteOnTermination": "true",
        "securityGroups": [CLUSTER_SG, EXTRA_SG]}]
    # Groups live on the interface only: EC2 refuses a template naming them in both places.
    assert "vpcSecurityGroupIds" not in lt and "securityGroupNames" not in lt


def test_the_cluster_security_group_alone_still_gets_the_locked_interface():
    run = run_program(platform_program(lambda: eks_target(node_security_group_ids=[]), aws_pools(),
                                       region="us-west-2"))
    for pool in POOLS:
        assert template(run, pool)["networkInterfaces"] == [{
            "deviceIndex": 0.0, "associatePublicIpAddress": "false", "deleteOnTermination": "true",
            "securityGroups": [CLUSTER_SG]}], pool


def test_no_security_group_at_all_registers_nothing():
    program = platform_program(lambda: eks_target(cluster_security_group_id=None, node_security_group_ids=[]),
                               aws_pools(), region="us-west-2")
    assert rejected(program) == [
        "cluster_security_group_id: no security group for the nodes: give EksCluster(cluster_security_group_id=...) "
        "(the cluster's aws.eks.Cluster vpc_config.cluster_security_group_id; EKS stops attaching it once the "
        "launch template names security groups, which it must to refuse public IPs), or "
        "node_security_group_ids=[...] that include it"]


def test_the_cluster_security_group_may_be_an_output_of_the_cluster():
    import pulumi_aws as aws

    def program():
        eks = aws.eks.Cluster("prod", name="prod", role_arn="arn:aws:iam::111122223333:role/eks",
                              vpc_config={"subnet_ids": ["subnet-0a1b2c3d4e5f60701"]})
        sg = eks.vpc_config.apply(lambda vpc: "sg-000000fc")
        platform_program(lambda: eks_target(cluster_security_group_id=sg, node_security_group_ids=[]),
                         aws_pools(), region="us-west-2")()

    for preview, groups in ((False, ["sg-000000fc"]), (True, [UNKNOWN_WIRE])):
        # A preview of the cluster's creation does not know the group EKS will create.
        run = run_program(program, preview=preview)
        [cluster] = run.of_type(v.TYPE_EKS_CLUSTER)
        lt = next(r for r in run.of_type(LAUNCH_TEMPLATE) if r.name == "p-web-nodes")
        assert wire(lt)["networkInterfaces"][0]["securityGroups"] == groups
        assert lt.property_dependencies["networkInterfaces"] == [cluster.urn]


def stack_run(config, preview=True):
    import runpy

    from corpus_cases import PROGRAM
    return run_program(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"), stack="test", config=config,
                       preview=preview)


def test_a_created_eks_cluster_hands_its_security_group_to_every_pool():
    from corpus_cases import stack_config

    run = stack_run(stack_config("aws-dev"))
    [cluster] = run.of_type(v.TYPE_EKS_CLUSTER)
    templates = run.of_type(LAUNCH_TEMPLATE)
    assert len(templates) == 4
    for lt in templates:
        [interface] = wire(lt)["networkInterfaces"]
        # Unknown until EKS creates the group, as a real preview reports it.
        assert interface == {"deviceIndex": 0.0, "associatePublicIpAddress": "false", "deleteOnTermination": "true",
                             "securityGroups": ["04da6b54-80e4-46f7-96ec-b56ff0331ba9"]}, lt.name
        assert cluster.urn in lt.property_dependencies["networkInterfaces"], lt.name


def test_an_attached_eks_cluster_takes_its_security_group_from_config():
    from corpus_cases import stack_config

    config = stack_config("aws-dev")
    config["nodepools:cluster"] = {
        "cloud": "aws", "name": "existing-eks", "mode": "attach", "region": "us-west-2",
        "subnet_ids": ["subnet-0a1b2c3d4e5f60701", "subnet-0a1b2c3d4e5f60702"],
        "cluster_security_group_id": "sg-0123456789abcdef0", "kubeconfig_context": "existing-eks-admin",
        "oidc_provider_arn": OIDC_ARN, "oidc_issuer_url": "https://" + ISSUER_HOST}
    run = stack_run(config)
    assert {json.dumps(wire(lt)["networkInterfaces"]) for lt in run.of_type(LAUNCH_TEMPLATE)} == {json.dumps([{
        "deviceIndex": 0.0, "securityGroups": ["sg-0123456789abcdef0"], "associatePublicIpAddress": "false",
        "deleteOnTermination": "true"}])}


NODE_POLICIES = ["AmazonEC2ContainerRegistryPullOnly", "AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy"]


@pytest.mark.parametrize("pool", POOLS)
def test_node_role_holds_only_the_node_policies(eks_up, pool):
    [role] = under(eks_up, pool, ROLE)
    assert json.loads(wire(role)["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    attachments = sorted((wire(a)["role"], wire(a)["policyArn"]) for a in under(eks_up, pool, ATTACHMENT))
    assert attachments == [(f"p-{pool}-node-role-id", f"arn:aws:iam::aws:policy/{name}") for name in NODE_POLICIES]
    assert under(eks_up, pool, INLINE_POLICY) == []


def test_without_the_cni_policy_when_the_cni_has_its_own_role():
    run = run_program(platform_program(lambda: eks_target(attach_cni_policy=False), aws_pools(), region="us-west-2"))
    arns = {wire(a)["policyArn"] for a in run.of_type(ATTACHMENT)}
    assert arns == {"arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
                    "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"}


def test_every_iam_role_is_a_node_role_or_the_autoscalers(eks_up):
    assert sorted(r.name for r in eks_up.of_type(ROLE)) == [
        "p-cluster-autoscaler", "p-infer-node-role", "p-jobs-node-role", "p-train-node-role", "p-web-node-role"]
    assert [r.name for r in eks_up.of_type(INLINE_POLICY)] == ["p-cluster-autoscaler"]


def test_autoscaler_irsa_role_trusts_one_service_account_and_scales_only_tagged_groups(eks_up):
    [role] = [r for r in eks_up.of_type(ROLE) if r.name == "p-cluster-autoscaler"]
    [policy] = eks_up.of_type(INLINE_POLICY)
    assert json.loads(wire(role)["assumeRolePolicy"]) == {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": OIDC_ARN}, "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": {
            f"{ISSUER_HOST}:sub": "system:serviceaccount:kube-system:cluster-autoscaler",
            f"{ISSUER_HOST}:aud": "sts.amazonaws.com"}}}]}
    statements = json.loads(wire(policy)["policy"])["Statement"]
    mutating = [s for s in statements if any(not a.split(":")[1].startswith(("Describe", "Get")) for a in s["Action"])]
    assert mutating == [{
        "Sid": "ScaleOwnGroups", "Effect": "Allow", "Resource": "*",
        "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
        "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/prod": "owned"}}}]
    # The scoping tag sits on every pool's ASG (or the autoscaler could not scale it) ...
    for pool in POOLS:
        tags = {wire(t)["tag"]["key"]: wire(t)["tag"]["value"] for t in under(eks_up, pool, v.TYPE_ASG_TAG)}
        assert tags["k8s.io/cluster-autoscaler/prod"] == "owned", pool
    # ... and the chart's service account assumes exactly this role.
    [chart] = [r for r in eks_up.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "cluster-autoscaler"]
    assert wire(chart)["values"]["rbac"]["serviceAccount"] == {
        "create": True, "name": "cluster-autoscaler",
        "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/p-cluster-autoscaler"}}
