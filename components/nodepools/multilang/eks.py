"""``EksPlatform``: every pool of an EKS cluster and its guardrails, for any Pulumi language.

A thin shell over the Python API: the arguments become an ``EksCluster`` target
and ``PlatformArgs``, validated as in Python (``nodepools.multilang.convert``),
and the existing ``Platform`` registers the same resources as its child, so its
URNs are the Python API's under this component's type.
"""
from typing import Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from typing_extensions import NotRequired

from nodepools.backends.aws import EksCluster
from nodepools.multilang.convert import require_lists, validated
from nodepools.multilang.guardrails_args import Guardrails
from nodepools.multilang.names import SHARED_ARG_TYPES, field_names
from nodepools.multilang.outputs import build_platform
from nodepools.spec.outputs import PoolOutputs
from nodepools.multilang.pool_args import Pool

TYPE = "nodepools:index:EksPlatform"


class EksPlatformArgs(TypedDict):
    """An existing EKS cluster (by name and networking ids), its pools and its guardrails."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster's name."""
    kubernetes_provider: k8s.Provider
    """The Kubernetes provider of this cluster; every in-cluster guardrail is deployed through it."""
    pools: list[Pool]
    """The cluster's node pools, 1 to 50; exactly one resident pool may stay untainted."""
    region: NotRequired[str]
    """The cluster's AWS region; required, as the cluster-autoscaler chart needs it."""
    subnet_ids: NotRequired[list[pulumi.Input[str]]]
    """Private subnets for the nodes; a pool's own subnetIds override them. Default: none (then every pool
    gives its own)."""
    cluster_security_group_id: NotRequired[pulumi.Input[str]]
    """The security group EKS created with the cluster (vpcConfig.clusterSecurityGroupId); required unless
    nodeSecurityGroupIds include it."""
    node_security_group_ids: NotRequired[list[pulumi.Input[str]]]
    """Extra security groups for the nodes, after the cluster's. Default: none."""
    node_role_arn: NotRequired[pulumi.Input[str]]
    """An existing IAM role for every pool's nodes. Default: each pool gets its own least-privilege role."""
    attach_cni_policy: NotRequired[bool]
    """Attach AmazonEKS_CNI_Policy to the pools' own node roles; set false when the VPC CNI has its own IRSA
    or Pod Identity role. Default: true."""
    oidc_provider_arn: NotRequired[pulumi.Input[str]]
    """ARN of the cluster's IAM OIDC provider; required for the cluster-autoscaler's IRSA role."""
    oidc_issuer_url: NotRequired[pulumi.Input[str]]
    """Issuer URL of the cluster's IAM OIDC provider; required for the cluster-autoscaler's IRSA role."""
    ebs_kms_key_arn: NotRequired[pulumi.Input[str]]
    """A customer-managed KMS key for the nodes' root volumes. Default: the account's EBS default key."""
    partition: NotRequired[str]
    """The AWS partition, one of aws, aws-cn, aws-us-gov, for policy ARNs. Default: the region's."""
    tags: NotRequired[dict[str, str]]
    """AWS tags for every resource created. Default: none."""
    guardrails: NotRequired[Guardrails]
    """The in-cluster guardrails. Default: every guardrail at its default."""


NAMES = field_names((EksPlatformArgs, *SHARED_ARG_TYPES))


def eks_target(args: EksPlatformArgs) -> EksCluster:
    """The ``EksCluster`` the arguments describe, values as sent (raises its own ValidationError)."""
    require_lists(args, ("subnet_ids", "node_security_group_ids"))
    return EksCluster(
        args["cluster_name"], args.get("subnet_ids", []), node_role_arn=args.get("node_role_arn"),
        cluster_security_group_id=args.get("cluster_security_group_id"),
        node_security_group_ids=args.get("node_security_group_ids", []),
        oidc_provider_arn=args.get("oidc_provider_arn"), oidc_issuer_url=args.get("oidc_issuer_url"),
        tags=args.get("tags"), ebs_kms_key_arn=args.get("ebs_kms_key_arn"),
        attach_cni_policy=args.get("attach_cni_policy", True), partition=args.get("partition"),
        region=args.get("region"))


class EksPlatform(pulumi.ComponentResource):
    """Node pools (resident, batch, GPU inference, GPU spot training) on an existing EKS cluster, with
    in-cluster guardrails: PriorityClasses, namespaces with quotas and LimitRanges, the NVIDIA device
    plugin, cluster-autoscaler (IRSA), Kueue and throttling alerts. Inputs are validated with the Python
    API's rules before anything registers; errors name the input as this schema spells it."""

    pools: pulumi.Output[dict[str, PoolOutputs]]
    """Every pool by name: its class, capacity, sizes, GPUs, node labels, node taints and workload contract."""
    namespaces: pulumi.Output[dict[str, str]]
    """The namespace of each workload class present, by class."""
    local_queues: pulumi.Output[dict[str, str]]
    """The Kueue LocalQueue of each queued workload class, by class (empty without Kueue)."""

    def __init__(self, name: str, args: EksPlatformArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        platform = validated("EksPlatform", lambda: eks_target(args), args, NAMES)
        super().__init__(TYPE, name, {}, opts)
        self.pools, self.namespaces, self.local_queues = build_platform(self, name, platform,
                                                                        args["kubernetes_provider"])

