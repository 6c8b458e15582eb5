"""Secure by default for Karpenter pools: their EC2NodeClasses are judged like launch templates
(docs/design.md section 7): IMDSv2 with hop limit 1, encrypted EBS, no public IP, a pinned AMI
alias (never @latest); the controller's IAM stays scoped to this cluster."""
import json
import re

import pytest

from nodepools.offline.engine import run_program

from reliability_programs import CLUSTER_SG, EXTRA_SG, aws_pools, eks_karpenter_program, eks_target, platform_program
from reliability_programs import under, wire

NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
KARPENTER_POOLS = ("jobs", "infer", "train")
PINNED_ALIAS = re.compile(r"^al2023@v20\d{6}$")


@pytest.fixture(scope="module")
def karpenter_up():
    return run_program(eks_karpenter_program(), preview=False)


def node_class(run, pool):
    [obj] = under(run, pool, NODE_CLASS)
    return wire(obj)["spec"]


@pytest.mark.parametrize("pool", KARPENTER_POOLS)
def test_node_class_defaults_are_the_launch_templates(karpenter_up, pool):
    spec = node_class(karpenter_up, pool)
    assert spec["metadataOptions"] == {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled",
                                       "httpPutResponseHopLimit": 1.0, "httpTokens": "required"}
    [root] = spec["blockDeviceMappings"]
    assert (root["rootVolume"], root["ebs"]["encrypted"], root["ebs"]["deleteOnTermination"]) == (True, True, True)
    assert spec["associatePublicIPAddress"] is False
    [term] = spec["amiSelectorTerms"]
    assert set(term) == {"alias"} and PINNED_ALIAS.match(term["alias"]), term
    assert spec["securityGroupSelectorTerms"] == [{"id": CLUSTER_SG}, {"id": EXTRA_SG}]
    assert "userData" not in spec  # no bootstrap script to leak secrets through


def test_a_customer_kms_key_encrypts_karpenter_root_volumes():
    key = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    karpenter = {"provisioner": "karpenter"}
    run = run_program(platform_program(lambda: eks_target(ebs_kms_key_arn=key),
                                       aws_pools(jobs=karpenter, infer=karpenter, train=karpenter),
                                       region="us-west-2"))
    for pool in KARPENTER_POOLS:
        assert node_class(run, pool)["blockDeviceMappings"][0]["ebs"]["kmsKeyID"] == key, pool


def test_karpenter_nodes_get_no_asg_tags_and_no_launch_template_of_ours(karpenter_up):
    for pool in KARPENTER_POOLS:
        assert under(karpenter_up, pool, "aws:autoscaling/tag:Tag") == []
        assert under(karpenter_up, pool, "aws:ec2/launchTemplate:LaunchTemplate") == []


def test_controller_policy_never_grants_unscoped_writes(karpenter_up):
    [policy] = [r for r in karpenter_up.of_type("aws:iam/rolePolicy:RolePolicy") if r.name.endswith("-controller")]
    statements = json.loads(wire(policy)["policy"])["Statement"]
    writes = ("ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate", "ec2:CreateTags",
              "ec2:TerminateInstances", "ec2:DeleteLaunchTemplate")
    for s in statements:
        actions = [s["Action"]] if isinstance(s["Action"], str) else s["Action"]
        if any(a in writes for a in actions):
            assert s["Resource"] != "*", s
            # Every write but the launch's read-only ingredients (AMI, subnet, SG) is tag-conditioned.
            if s["Sid"] != "AllowScopedEC2InstanceAccessActions":
                assert "kubernetes.io/cluster/prod" in json.dumps(s["Condition"]), s
        assert s["Effect"] == "Allow"
    assert not any(a.startswith("iam:") and a not in ("iam:PassRole", "iam:GetInstanceProfile")
                   for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"]))


ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"


def role_policies(run, role_urn_part):
    return sorted(wire(a)["policyArn"] for a in run.of_type(ATTACHMENT) if role_urn_part in a.name)


@pytest.mark.parametrize("attach_cni", [True, False], ids=["cni-on-nodes", "cni-through-irsa"])
def test_karpenter_nodes_get_exactly_the_managed_node_groups_policies(attach_cni):
    """One set of node policies on every EKS node path (issue 26): no SSM core on Karpenter nodes
    only (least privilege: neither path gets it), the CNI policy where the managed groups get it."""
    run = run_program(eks_karpenter_program(target=lambda: eks_target(attach_cni_policy=attach_cni)), preview=False)
    managed = {a.name.rsplit("-node-", 1)[0] for a in run.of_type(ATTACHMENT) if "-karpenter-" not in a.name}
    expected = ["arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
                "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy"] + (
        ["arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"] if attach_cni else [])
    assert managed == {"p-web"}  # the system pool stays a managed node group
    assert role_policies(run, "p-web-node-") == expected
    assert role_policies(run, "-karpenter-node-") == expected
