"""IAM documents for nodes and the cluster-autoscaler (pure: plain dicts).

``register.py`` lifts these over Outputs (``Output.all(...).apply``) and
serialises them with ``policy_json`` so two runs send byte-identical JSON.
"""
from __future__ import annotations

import json
from typing import Any

from nodepools import vocabulary as v
from nodepools.backends.aws.tables import NODE_POLICY_CNI, NODE_POLICY_ECR_PULL, NODE_POLICY_WORKER

POLICY_VERSION = "2012-10-17"
STS_AUDIENCE = "sts.amazonaws.com"

# docs/kubernetes-facts.md section 1.1. Read-only calls cannot be scoped to a tag
# (Describe* take no resource), so they stay on "*". No autoscaling:DescribeTags:
# the one flag that could need it, --node-group-auto-discovery=asg:tag=..., finds
# ASGs with DescribeAutoScalingGroups and tag filters since kubernetes/autoscaler
# 285500ed2c ("reduce auto-discovery API calls", which also dropped it from the
# README's policy); kubernetes/autoscaler: cluster-autoscaler/cloudprovider/aws/
# aws_wrapper.go@cluster-autoscaler-1.36.1 getAutoscalingGroupsByTags. Tests hold
# these actions to the README's "Full Cluster Autoscaler Features Policy" of the
# newest supported release (upstream/autoscaler_iam.json).
AUTOSCALER_DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    # The IAM action behind the SDK's GetInstanceTypesFromInstanceRequirementsPages.
    "ec2:GetInstanceTypesFromInstanceRequirements",
    "eks:DescribeNodegroup",
)
# The only calls that change capacity: allowed on this cluster's ASGs only.
AUTOSCALER_MUTATING_ACTIONS = (
    "autoscaling:SetDesiredCapacity",
    "autoscaling:TerminateInstanceInAutoScalingGroup",
)


def policy_json(document: dict[str, Any]) -> str:
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def node_trust_policy() -> dict[str, Any]:
    """EC2 instances (the nodes) may assume the node role; nothing else."""
    return {
        "Version": POLICY_VERSION,
        "Statement": [{
            "Effect": "Allow",
            "Principal": {"Service": "ec2.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }],
    }


def node_policy_arns(partition: str, attach_cni_policy: bool) -> dict[str, str]:
    """Managed policy name -> ARN for the node role, nothing beyond what a node needs."""
    names = [NODE_POLICY_WORKER, NODE_POLICY_ECR_PULL] + ([NODE_POLICY_CNI] if attach_cni_policy else [])
    return {name: f"arn:{partition}:iam::aws:policy/{name}" for name in names}


def issuer_host(issuer_url: str) -> str:
    """The OIDC issuer as IAM condition keys spell it: no scheme."""
    return issuer_url.removeprefix("https://").removeprefix("http://").rstrip("/")


def require_oidc(role: str, provider_arn: Any, issuer_url: Any) -> tuple[str, str]:
    """The cluster's OIDC provider ARN and issuer URL, as resolved for the IRSA role ``role``.
    A trust policy cannot do without them (a role trusting nobody leaves its service account
    powerless), so an empty one is an error naming both."""
    missing = [name for name, value in (("oidc_provider_arn", provider_arn), ("oidc_issuer_url", issuer_url))
               if not value]
    if missing:
        raise ValueError(f"IRSA role {role!r} needs the cluster's IAM OIDC provider, but {' and '.join(missing)} "
                         "resolved empty: give the EksCluster the provider's ARN and issuer URL (an "
                         "aws.iam.OpenIdConnectProvider's arn and url); under pulumi.runtime.set_mocks, return them "
                         "from the mocks (nodepools.testing.NodepoolsMocks)")
    return str(provider_arn), str(issuer_url)


def irsa_trust_policy(oidc_provider_arn: str, oidc_issuer_url: str, namespace: str,
                      service_account: str) -> dict[str, Any]:
    """Only the one service account, and only tokens minted for STS, may assume the role."""
    host = issuer_host(oidc_issuer_url)
    return {
        "Version": POLICY_VERSION,
        "Statement": [{
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {"StringEquals": {
                f"{host}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                f"{host}:aud": STS_AUDIENCE,
            }},
        }],
    }


def autoscaler_policy(cluster_name: str) -> dict[str, Any]:
    """cluster-autoscaler's permissions: read everything it must discover, but
    resize or terminate only ASGs tagged as owned by this cluster."""
    return {
        "Version": POLICY_VERSION,
        "Statement": [
            {
                "Sid": "Discover",
                "Effect": "Allow",
                "Action": list(AUTOSCALER_DESCRIBE_ACTIONS),
                "Resource": "*",
            },
            {
                "Sid": "ScaleOwnGroups",
                "Effect": "Allow",
                "Action": list(AUTOSCALER_MUTATING_ACTIONS),
                "Resource": "*",
                "Condition": {"StringEquals": {
                    f"aws:ResourceTag/{v.CA_TAG_CLUSTER_PREFIX}{cluster_name}": v.CA_TAG_CLUSTER_VALUE,
                }},
            },
        ],
    }
