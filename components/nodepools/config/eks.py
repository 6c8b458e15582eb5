"""An EKS cluster for a stack: created from networking ids, or attached by name.

Created clusters are private by default (private endpoint access on, public
access off unless config opens it to named CIDRs), encrypt Kubernetes secrets
with a KMS key (rotated; or the key config names), authenticate through EKS
access entries, and get an IAM OIDC provider so service accounts can assume
roles (IRSA; the cluster-autoscaler's role needs it). No data source is read:
subnets, roles and keys come from config or are created here, so a preview
needs no credentials.
"""
from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_aws as aws

from nodepools.backends.aws import EksCluster
from nodepools.backends.aws.kubeconfig import kubeconfig, partition_of
from nodepools.config.cluster import EksClusterConfig
from nodepools.config.connection import ClusterConnection, kubernetes_provider

CLUSTER_POLICY = "AmazonEKSClusterPolicy"
STS_AUDIENCE = "sts.amazonaws.com"


def eks_cluster(config: EksClusterConfig, opts: pulumi.ResourceOptions | None = None) -> ClusterConnection:
    """Create (``mode: create``) or attach to (``mode: attach``) the cluster ``config`` describes.

    Resource names start with ``config.name``; ``opts`` (e.g. a parent) applies to each."""
    if config.mode == "create":
        return _create(config, opts)
    return _attach(config, opts)


# The check-only target (before the cluster exists) stands in for the security
# group the created cluster will report; it registers nothing, so this never
# reaches the engine.
CREATED_CLUSTER_SECURITY_GROUP = "<security group of the created cluster>"
CREATED_CLUSTER_OIDC = ("<OIDC provider of the created cluster>", "<OIDC issuer of the created cluster>")


def eks_target(config: EksClusterConfig, cluster_name: Any = None, oidc_provider_arn: Any = None,
               oidc_issuer_url: Any = None, cluster_security_group_id: Any = None) -> EksCluster:
    """The pools' target on this cluster; with no ``cluster_name`` (the config's name
    is used) it registers nothing, so the stack checks every pool against EKS's rules
    before the cluster itself registers. The nodes' security group is
    ``cluster_security_group_id``, else the config's (attach mode)."""
    if cluster_security_group_id is None:
        cluster_security_group_id = config.cluster_security_group_id
    if cluster_name is None and config.mode == "create":
        if cluster_security_group_id is None:
            cluster_security_group_id = CREATED_CLUSTER_SECURITY_GROUP
        if oidc_provider_arn is None:
            oidc_provider_arn, oidc_issuer_url = CREATED_CLUSTER_OIDC
    elif cluster_name is None and oidc_provider_arn is None:
        oidc_provider_arn, oidc_issuer_url = config.oidc_provider_arn, config.oidc_issuer_url
    return EksCluster(config.name if cluster_name is None else cluster_name, list(config.subnet_ids),
                      node_role_arn=config.node_role_arn, cluster_security_group_id=cluster_security_group_id,
                      oidc_provider_arn=oidc_provider_arn, oidc_issuer_url=oidc_issuer_url,
                      tags=dict(config.tags), partition=partition_of(config.region))


def _cluster_security_group(vpc: Any) -> Any:
    """The security group EKS creates with the cluster. A computed value: absent
    from a preview's state (Pulumi's mocks report it as missing, not unknown), so
    there it stays unknown, as the engine would say."""
    group = vpc.cluster_security_group_id if vpc is not None else None
    if group is None and pulumi.runtime.is_dry_run():
        return pulumi.output.UNKNOWN
    return group


def _trust_eks() -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"},
        "Action": ["sts:AssumeRole", "sts:TagSession"]}]}, sort_keys=True)


def _create(config: EksClusterConfig, opts: pulumi.ResourceOptions | None) -> ClusterConnection:
    name, partition, tags = config.name, partition_of(config.region), dict(config.tags) or None
    depends: list[pulumi.Resource] = []
    role_arn: Any = config.cluster_role_arn
    if role_arn is None:
        role = aws.iam.Role(f"{name}-cluster-role", assume_role_policy=_trust_eks(),
                            description=f"EKS control plane of {name}", tags=tags, opts=opts)
        depends.append(aws.iam.RolePolicyAttachment(
            f"{name}-{CLUSTER_POLICY}", role=role.name,
            policy_arn=f"arn:{partition}:iam::aws:policy/{CLUSTER_POLICY}", opts=opts))
        role_arn = role.arn
    key_arn: Any = config.kms_key_arn
    if key_arn is None:
        key_arn = aws.kms.Key(f"{name}-secrets", description=f"Kubernetes secrets of EKS cluster {name}",
                              enable_key_rotation=True, deletion_window_in_days=30, tags=tags,
                              opts=opts).arn
    vpc: dict[str, Any] = {
        "subnet_ids": list(config.subnet_ids),
        "endpoint_private_access": True,
        "endpoint_public_access": config.endpoint_public_access,
    }
    if config.endpoint_public_access:
        vpc["public_access_cidrs"] = list(config.public_access_cidrs)
    cluster = aws.eks.Cluster(
        name, name=name, role_arn=role_arn, version=config.kubernetes_version,
        vpc_config=aws.eks.ClusterVpcConfigArgs(**vpc),
        encryption_config=aws.eks.ClusterEncryptionConfigArgs(
            provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=key_arn), resources=["secrets"]),
        access_config=aws.eks.ClusterAccessConfigArgs(
            authentication_mode="API", bootstrap_cluster_creator_admin_permissions=True),
        enabled_cluster_log_types=list(config.log_types),
        deletion_protection=config.deletion_protection,
        tags=tags,
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends)),
    )
    issuer = cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer if ids and ids[0].oidcs else None)
    oidc = aws.iam.OpenIdConnectProvider(f"{name}-oidc", url=issuer, client_id_lists=[STS_AUDIENCE],
                                         tags=tags, opts=opts)
    ca_data = cluster.certificate_authority.apply(lambda ca: ca.data if ca else None)
    config_json = pulumi.Output.all(cluster.name, cluster.endpoint, ca_data).apply(
        lambda args: kubeconfig(args[0], config.region, args[1], args[2]))
    provider = kubernetes_provider(name, opts, kubeconfig=config_json, cluster=cluster)
    # EKS attaches this group to nodes only when their launch template names none;
    # ours always names groups (to refuse public IPs), so it is passed on.
    target = eks_target(config, cluster.name, oidc.arn, issuer, cluster.vpc_config.apply(_cluster_security_group))
    return ClusterConnection(target, provider, cluster, {
        "name": cluster.name, "cloud": "aws", "mode": "create", "region": config.region,
        "endpoint": cluster.endpoint, "oidcProviderArn": oidc.arn,
        "kubernetesVersion": config.kubernetes_version,
    })


def _attach(config: EksClusterConfig, opts: pulumi.ResourceOptions | None) -> ClusterConnection:
    name = config.name
    provider = kubernetes_provider(name, opts, context=config.kubeconfig_context, kubeconfig=kubeconfig(
        name, config.region, config.endpoint or "", config.certificate_authority_data or ""))
    target = eks_target(config, name, config.oidc_provider_arn, config.oidc_issuer_url)
    return ClusterConnection(target, provider, None, {
        "name": name, "cloud": "aws", "mode": "attach", "region": config.region, "endpoint": config.endpoint,
        "oidcProviderArn": config.oidc_provider_arn, "kubernetesVersion": config.kubernetes_version,
    })
