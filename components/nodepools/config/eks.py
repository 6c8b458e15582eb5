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
from typing import Any, Callable

import pulumi
import pulumi_aws as aws

from nodepools.backends.aws import EksCluster
from nodepools.backends.aws.kubeconfig import kubeconfig, partition_of
from nodepools.config.cluster import EksClusterConfig
from nodepools.config.connection import ClusterConnection, PlannedTarget, kubernetes_provider

CLUSTER_POLICY = "AmazonEKSClusterPolicy"
STS_AUDIENCE = "sts.amazonaws.com"


def eks_cluster(config: EksClusterConfig, opts: pulumi.ResourceOptions | None = None,
                planned: PlannedTarget | None = None) -> ClusterConnection:
    """Create (``mode: create``) or attach to (``mode: attach``) the cluster ``config`` describes.

    Resource names start with ``config.name``; ``opts`` (e.g. a parent) applies to each. The
    connection's target is ``planned``'s (``planned_eks_target(config)``, the one the stack
    checked its pools against) when given."""
    planned = planned or planned_eks_target(config)
    return planned.connect(lambda: (_create if config.mode == "create" else _attach)(config, opts, planned))


# What only a created cluster knows, deferred until it registers (PlannedTarget).
CREATED_CLUSTER_VALUES = ("cluster_name", "oidc_provider_arn", "oidc_issuer_url", "cluster_security_group_id")


def planned_eks_target(config: EksClusterConfig) -> PlannedTarget:
    """The pools' target on this cluster, to check the pools against before the cluster
    registers: attached, from the config's values; created, on the created cluster's outputs."""
    if config.mode == "create":
        return PlannedTarget(lambda **values: eks_target(config, **values), CREATED_CLUSTER_VALUES)
    return PlannedTarget(lambda **values: eks_target(config, **values), known=dict(
        cluster_name=config.name, oidc_provider_arn=config.oidc_provider_arn,
        oidc_issuer_url=config.oidc_issuer_url, cluster_security_group_id=config.cluster_security_group_id))


def eks_target(config: EksClusterConfig, cluster_name: Any, oidc_provider_arn: Any, oidc_issuer_url: Any,
               cluster_security_group_id: Any) -> EksCluster:
    """The pools' target on the cluster named ``cluster_name`` (a name or the cluster's output)."""
    return EksCluster(cluster_name, list(config.subnet_ids), node_role_arn=config.node_role_arn,
                      cluster_security_group_id=cluster_security_group_id, oidc_provider_arn=oidc_provider_arn,
                      oidc_issuer_url=oidc_issuer_url, tags=dict(config.tags), partition=partition_of(config.region))


def _cluster_security_group(name: str) -> Callable[[Any], str]:
    """The security group EKS creates with the cluster (unknown during a preview of its
    creation, so this runs only once EKS has reported it)."""
    def read(vpc: Any) -> str:
        group = vpc.cluster_security_group_id if vpc is not None else None
        if not group:
            raise ValueError(f"EKS cluster {name!r} reports no cluster security group (vpcConfig."
                             "clusterSecurityGroupId), which the nodes' launch templates name; under "
                             "pulumi.runtime.set_mocks, return it from the mocks (nodepools.testing.NodepoolsMocks)")
        return group
    return read


def _trust_eks() -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"},
        "Action": ["sts:AssumeRole", "sts:TagSession"]}]}, sort_keys=True)


def _create(config: EksClusterConfig, opts: pulumi.ResourceOptions | None,
            planned: PlannedTarget) -> ClusterConnection:
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
    target = planned.bind(cluster_name=cluster.name, oidc_provider_arn=oidc.arn, oidc_issuer_url=issuer,
                          cluster_security_group_id=cluster.vpc_config.apply(_cluster_security_group(name)))
    return ClusterConnection(target, provider, cluster, {
        "name": cluster.name, "cloud": "aws", "mode": "create", "region": config.region,
        "endpoint": cluster.endpoint, "oidcProviderArn": oidc.arn,
        "kubernetesVersion": config.kubernetes_version,
    })


def _attach(config: EksClusterConfig, opts: pulumi.ResourceOptions | None,
            planned: PlannedTarget) -> ClusterConnection:
    name = config.name
    provider = kubernetes_provider(name, opts, context=config.kubeconfig_context, kubeconfig=kubeconfig(
        name, config.region, config.endpoint or "", config.certificate_authority_data or ""))
    return ClusterConnection(planned.bind(), provider, None, {
        "name": name, "cloud": "aws", "mode": "attach", "region": config.region, "endpoint": config.endpoint,
        "oidcProviderArn": config.oidc_provider_arn, "kubernetesVersion": config.kubernetes_version,
    })
