"""Secure by default: the exact inputs the engine receives for nodes, identities and add-ons.

Every test runs the reference platforms (tests/reliability/conftest.py) under
Pulumi's mock engine and asserts what a node could otherwise be given by
accident: IMDSv1, an unencrypted disk, an SSH key, a public IP, broad IAM, the
node's own credentials inside pods, a floating chart or image version.
"""
import json
import re

import pytest
from pydantic import ValidationError

from nodepools import vocabulary as v
from nodepools.offline.engine import run_program, run_program_capture
from nodepools.spec import describe

from reliability_programs import (CLUSTER_SG, EXTRA_SG, OIDC_ARN, aws_pools, eks_program, eks_target, gcp_pools, gke_program,
                      gke_target, platform_program, under, wire)

POOLS = ("web", "jobs", "infer", "train")
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ROLE = "aws:iam/role:Role"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
INLINE_POLICY = "aws:iam/rolePolicy:RolePolicy"
GCP_ACCOUNT = "gcp:serviceaccount/account:Account"
GCP_MEMBER = "gcp:projects/iAMMember:IAMMember"
ISSUER_HOST = "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"


def template(run, pool):
    [lt] = under(run, pool, LAUNCH_TEMPLATE)
    return wire(lt)


def rejected(program):
    run, error = run_program_capture(program)
    assert isinstance(error, ValidationError), error
    assert run.resources == []
    return describe(error)


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
        eks = aws.eks.Cluster("prod", name="prod", role_arn="arn:aws:iam::1:role/eks",
                              vpc_config={"subnet_ids": ["subnet-0a1b2c3d4e5f60701"]})
        sg = eks.vpc_config.apply(lambda vpc: "sg-from-cluster")
        platform_program(lambda: eks_target(cluster_security_group_id=sg, node_security_group_ids=[]),
                         aws_pools(), region="us-west-2")()

    run = run_program(program)
    [cluster] = run.of_type(v.TYPE_EKS_CLUSTER)
    lt = next(r for r in run.of_type(LAUNCH_TEMPLATE) if r.name == "p-web-nodes")
    assert wire(lt)["networkInterfaces"][0]["securityGroups"] == ["sg-from-cluster"]
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


# ---- GKE nodes -----------------------------------------------------------------

@pytest.mark.parametrize("pool", POOLS)
def test_gke_nodes_are_shielded_private_and_hide_the_node_identity(gke_up, pool):
    [node_pool] = under(gke_up, pool, v.TYPE_GKE_NODE_POOL)
    inputs = wire(node_pool)
    config = inputs["nodeConfig"]
    assert config["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    assert config["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert config["metadata"] == {"disable-legacy-endpoints": "true"}
    assert config["imageType"] == "COS_CONTAINERD"
    assert inputs["networkConfig"] == {"enablePrivateNodes": True}


@pytest.mark.parametrize("pool", POOLS)
def test_gke_nodes_run_as_a_dedicated_account_with_one_role(gke_up, pool):
    [node_pool] = under(gke_up, pool, v.TYPE_GKE_NODE_POOL)
    [account] = under(gke_up, pool, GCP_ACCOUNT)
    [member] = under(gke_up, pool, GCP_MEMBER)
    email = f"{wire(account)['accountId']}@fake-project.iam.gserviceaccount.com"
    assert re.fullmatch(rf"np-{pool}-[0-9a-f]{{6}}", wire(account)["accountId"])
    assert wire(node_pool)["nodeConfig"]["serviceAccount"] == email
    assert wire(member) == {"project": "nodepools-prod-1234", "role": "roles/container.defaultNodeServiceAccount",
                            "member": f"serviceAccount:{email}"}
    # Access comes from the account's roles; the scope only stops being a second filter.
    assert wire(node_pool)["nodeConfig"]["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    # Nodes report logs and metrics from their first boot: the grant exists before the pool.
    assert member.urn in node_pool.dependencies


def test_a_customer_kms_key_encrypts_every_gke_boot_disk():
    key = "projects/nodepools-prod-1234/locations/us-central1/keyRings/nodes/cryptoKeys/boot"
    run = run_program(platform_program(lambda: gke_target(boot_disk_kms_key=key), gcp_pools()))
    pools = run.of_type(v.TYPE_GKE_NODE_POOL)
    assert len(pools) == 4
    assert {wire(p)["nodeConfig"]["bootDiskKmsKey"] for p in pools} == {key}


def test_accounts_are_distinct_per_pool(gke_up):
    emails = [wire(p)["nodeConfig"]["serviceAccount"] for p in gke_up.of_type(v.TYPE_GKE_NODE_POOL)]
    assert len(set(emails)) == 4


@pytest.mark.parametrize("account", ["123456789012-compute@developer.gserviceaccount.com", "not-an-email"])
def test_the_compute_engine_default_account_is_refused(account):
    program = platform_program(lambda: gke_target(node_service_account=account), gcp_pools())
    assert rejected(program) == [
        f"node_service_account: {account!r} is not allowed: give the email of a dedicated service account "
        "(never the Compute Engine default '<number>-compute@developer.gserviceaccount.com'), or None to let "
        "each pool create its own"]


def test_basic_roles_are_refused_for_node_accounts():
    program = platform_program(lambda: gke_target(extra_node_roles=["roles/artifactregistry.reader", "roles/editor"]),
                               gcp_pools())
    assert rejected(program) == [
        "extra_node_roles[1]: role 'roles/editor' is a basic role, far broader than nodes need "
        "(refused: roles/editor, roles/owner, roles/viewer)"]


# ---- add-ons: charts and images pinned ------------------------------------------------

EXACT = re.compile(r"^\d+\.\d+\.\d+$")


def image_tags(values):
    """Every ``image.tag`` anywhere in a chart's values."""
    if isinstance(values, dict):
        image = values.get("image")
        found = [image["tag"]] if isinstance(image, dict) and "tag" in image else []
        return found + [t for val in values.values() for t in image_tags(val)]
    if isinstance(values, list):
        return [t for val in values for t in image_tags(val)]
    return []


@pytest.mark.parametrize("cloud, expected", [
    ("aws", {"nvidia-device-plugin": "0.20.0", "cluster-autoscaler": "9.59.0", "kueue": "0.19.2"}),
    ("gcp", {"kueue": "0.19.2"}),
])
def test_every_chart_is_pinned_to_an_exact_version(eks_up, gke_up, cloud, expected):
    run = eks_up if cloud == "aws" else gke_up
    releases = {r.inputs["name"]: wire(r) for r in run.of_type(v.TYPE_HELM_RELEASE)}
    assert {name: rel["version"] for name, rel in releases.items()} == expected
    for name, rel in releases.items():
        # A chart comes from one fixed HTTPS repository or OCI registry, never a local path.
        source = rel.get("repositoryOpts", {}).get("repo") or rel["chart"]
        assert source.startswith(("https://", "oci://")), name
        for tag in image_tags(rel["values"]):
            assert re.fullmatch(r"v?\d+\.\d+\.\d+", tag), (name, tag)


def test_the_autoscaler_image_is_pinned_to_its_release(eks_up):
    [chart] = [r for r in eks_up.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "cluster-autoscaler"]
    assert image_tags(wire(chart)["values"]) == ["v1.35.0"]


@pytest.mark.parametrize("charts, expected", [
    ({"kueue": "0.19"}, "guardrails.charts.kueue: chart version '0.19' must be an exact version MAJOR.MINOR.PATCH "
     "(ranges would let an add-on change under a running cluster)"),
    ({"nvidia_device_plugin": "^0.20.0"}, "guardrails.charts.nvidia_device_plugin: chart version '^0.20.0' must be "
     "an exact version MAJOR.MINOR.PATCH (ranges would let an add-on change under a running cluster)"),
    ({"cluster_autoscaler_image": "latest"}, "guardrails.charts.cluster_autoscaler_image: image tag 'latest' must "
     "look like vMAJOR.MINOR.PATCH"),
])
def test_floating_versions_are_refused_before_anything_registers(charts, expected):
    program = platform_program(eks_target, aws_pools(), guardrails={"charts": charts}, region="us-west-2")
    run, error = run_program_capture(program)
    assert describe(error) == [expected]
    assert run.resources == []
