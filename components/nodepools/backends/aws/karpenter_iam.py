"""IAM, SQS and EventBridge documents for the Karpenter controller (pure: plain dicts).

Statements follow Karpenter's reference policy for v1.14
(aws/karpenter-provider-aws: website/content/en/v1.14/getting-started/
getting-started-with-karpenter/cloudformation.yaml@v1.14.1 docs commit
1d927085dd81a9df9301e613f371dac5b4d16bfe), scoped to this cluster by the
``kubernetes.io/cluster/<name>`` tag, the region, and our own node role and
queue. One deliberate narrowing: our EC2NodeClasses name an instance profile
this stack creates, so the controller gets none of the reference policy's
instance-profile write actions (Create/Tag/AddRole/RemoveRole/Delete), only
``iam:GetInstanceProfile`` on that one profile.
"""
from __future__ import annotations

from typing import Any

from nodepools.backends.aws.iam import POLICY_VERSION

# EventBridge detail-types Karpenter acts on (reference template's four rules
# plus the capacity-reservation warning it also lists).
INTERRUPTION_EVENTS: dict[str, tuple[str, str]] = {
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "capacity-reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
# Karpenter's reference: messages older than 5 minutes are stale.
QUEUE_RETENTION_SECONDS = 300
DESCRIBE_ACTIONS = (
    "ec2:DescribeCapacityReservations", "ec2:DescribeImages", "ec2:DescribeInstances", "ec2:DescribeInstanceStatus",
    "ec2:DescribeInstanceTypeOfferings", "ec2:DescribeInstanceTypes", "ec2:DescribeLaunchTemplates",
    "ec2:DescribePlacementGroups", "ec2:DescribeSecurityGroups", "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets",
)


def account_of(arn: str) -> str:
    """The account id of an ARN (the cluster's OIDC provider: same account as the cluster)."""
    return arn.split(":")[4]


def _ec2(partition: str, region: str, kind: str, account: str = "*") -> str:
    return f"arn:{partition}:ec2:{region}:{account}:{kind}/*"


def controller_policy(*, partition: str, region: str, account: str, cluster_name: str, node_role_arn: str,
                      instance_profile_name: str, queue_arn: str) -> dict[str, Any]:
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned"}
    request_owned = {f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned",
                     "aws:RequestTag/eks:eks-cluster-name": cluster_name}
    any_pool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    request_pool = {"aws:RequestTag/karpenter.sh/nodepool": "*"}
    launched = [_ec2(partition, region, k) for k in
                ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")]
    cluster_arn = f"arn:{partition}:eks:{region}:{account}:cluster/{cluster_name}"
    statements = [
        {"Sid": "AllowScopedEC2InstanceAccessActions", "Effect": "Allow",
         "Resource": [f"arn:{partition}:ec2:{region}::image/*", f"arn:{partition}:ec2:{region}::snapshot/*",
                      *(_ec2(partition, region, k) for k in ("security-group", "subnet", "capacity-reservation",
                                                             "placement-group"))],
         "Action": ["ec2:RunInstances", "ec2:CreateFleet"]},
        {"Sid": "AllowScopedEC2LaunchTemplateAccessActions", "Effect": "Allow",
         "Resource": _ec2(partition, region, "launch-template"), "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
         "Condition": {"StringEquals": owned, "StringLike": any_pool}},
        {"Sid": "AllowScopedEC2InstanceActionsWithTags", "Effect": "Allow", "Resource": launched,
         "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
         "Condition": {"StringEquals": request_owned, "StringLike": request_pool}},
        {"Sid": "AllowScopedResourceCreationTagging", "Effect": "Allow", "Resource": launched,
         "Action": "ec2:CreateTags",
         "Condition": {"StringEquals": {**request_owned,
                                        "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
                       "StringLike": request_pool}},
        {"Sid": "AllowScopedResourceTagging", "Effect": "Allow", "Resource": _ec2(partition, region, "instance"),
         "Action": "ec2:CreateTags",
         "Condition": {"StringEquals": owned, "StringLike": any_pool,
                       "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster_name},
                       "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim",
                                                                    "Name"]}}},
        {"Sid": "AllowScopedDeletion", "Effect": "Allow",
         "Resource": [_ec2(partition, region, "instance"), _ec2(partition, region, "launch-template")],
         "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
         "Condition": {"StringEquals": owned, "StringLike": any_pool}},
        {"Sid": "AllowPassingInstanceRole", "Effect": "Allow", "Resource": node_role_arn, "Action": "iam:PassRole",
         "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}}},
        {"Sid": "AllowInstanceProfileReadActions", "Effect": "Allow",
         "Resource": f"arn:{partition}:iam::{account}:instance-profile/{instance_profile_name}",
         "Action": "iam:GetInstanceProfile"},
        {"Sid": "AllowAPIServerEndpointDiscovery", "Effect": "Allow", "Resource": cluster_arn,
         "Action": "eks:DescribeCluster"},
        {"Sid": "AllowInterruptionQueueActions", "Effect": "Allow", "Resource": queue_arn,
         "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"]},
        {"Sid": "AllowRegionalReadActions", "Effect": "Allow", "Resource": "*", "Action": list(DESCRIBE_ACTIONS),
         "Condition": {"StringEquals": {"aws:RequestedRegion": region}}},
        {"Sid": "AllowSSMReadActions", "Effect": "Allow",
         "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*", "Action": "ssm:GetParameter"},
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
    ]
    return {"Version": POLICY_VERSION, "Statement": statements}


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """EventBridge (and SQS) may send; nothing may talk to the queue without TLS."""
    return {"Version": POLICY_VERSION, "Id": "EC2InterruptionPolicy", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
         "Action": "sqs:SendMessage", "Resource": queue_arn},
        {"Sid": "DenyHTTP", "Effect": "Deny", "Principal": "*", "Action": "sqs:*", "Resource": queue_arn,
         "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
    ]}


def event_pattern(source: str, detail_type: str) -> dict[str, list[str]]:
    return {"source": [source], "detail-type": [detail_type]}
