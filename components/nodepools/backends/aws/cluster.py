"""An EKS cluster for a stack: created from networking ids, or attached by name.

Created clusters are private by default (private endpoint access on, public
access off unless config opens it to named CIDRs), encrypt Kubernetes secrets
with a KMS key (rotated; or the key config names), authenticate through EKS
access entries (cluster admin for the named ``admin_principal_arn`` only: the
creator is given none), and get an IAM OIDC provider so service accounts can
assume roles (IRSA: the cluster-autoscaler's role, and the VPC CNI's, which takes
AmazonEKS_CNI_Policy off the node roles; docs/design.md section 10). No data source is read:
subnets, roles and keys come from config or are created here, so a preview
needs no credentials.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import pulumi
import pulumi_aws as aws

from nodepools.backends.aws import iam
from nodepools.backends.aws.target import EksCluster
from nodepools.backends.aws.kubeconfig import kubeconfig, partition_of
from nodepools.clouds.cluster_settings import EksClusterConfig
from nodepools.backends.connection import ClusterConnection, PlannedTarget, kubernetes_provider
from nodepools.vocabulary import KUBE_SYSTEM

CLUSTER_POLICY = "AmazonEKSClusterPolicy"
STS_AUDIENCE = "sts.amazonaws.com"
# docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html (read 2026-12-02).
ADMIN_ACCESS_POLICY = "AmazonEKSClusterAdminPolicy"
# docs.aws.amazon.com/eks/latest/userguide/cni-iam-role.html: the VPC CNI's service account.
CNI_POLICY = "AmazonEKS_CNI_Policy"
CNI_NAMESPACE, CNI_SERVICE_ACCOUNT = KUBE_SYSTEM, "aws-node"
# A replace-forcing field of aws.eks.Cluster that matters only at creation: a cluster created
# before it was false keeps its value rather than being replaced (docs/design.md section 10).
BOOTSTRAP_ADMIN_PATH = "accessConfig.bootstrapClusterCreatorAdminPermissions"


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
    """The pools' target on the cluster named ``cluster_name`` (a name or the cluster's output).
    A created cluster's VPC CNI has its own IRSA role, so its node roles get no CNI policy; an
    attached cluster's CNI is not ours to change, and may rely on the node role's."""
    return EksCluster(cluster_name, list(config.subnet_ids), node_role_arn=config.node_role_arn,
                      cluster_security_group_id=cluster_security_group_id, oidc_provider_arn=oidc_provider_arn,
                      oidc_issuer_url=oidc_issuer_url, tags=dict(config.tags), partition=partition_of(config.region),
                      attach_cni_policy=config.mode != "create")


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
            authentication_mode="API", bootstrap_cluster_creator_admin_permissions=False),
        enabled_cluster_log_types=list(config.log_types),
        deletion_protection=config.deletion_protection,
        tags=tags,
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends,
                                                                       ignore_changes=[BOOTSTRAP_ADMIN_PATH])),
    )
    admin = _cluster_admin(config, cluster, opts)
    issuer = cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer if ids and ids[0].oidcs else None)
    oidc = aws.iam.OpenIdConnectProvider(f"{name}-oidc", url=issuer, client_id_lists=[STS_AUDIENCE],
                                         tags=tags, opts=opts)
    cni = _vpc_cni(config, cluster, oidc.arn, issuer, opts)
    ca_data = cluster.certificate_authority.apply(lambda ca: ca.data if ca else None)
    config_json = pulumi.Output.all(cluster.name, cluster.endpoint, ca_data).apply(
        lambda args: kubeconfig(args[0], config.region, args[1], args[2]))
    # The deployer reaches the cluster as the admin principal, once its access is granted.
    provider = kubernetes_provider(name, pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(
        depends_on=[admin])), kubeconfig=config_json, cluster=cluster)
    # EKS attaches this group to nodes only when their launch template names none;
    # ours always names groups (to refuse public IPs), so it is passed on. Every node's
    # template reads it, so through it every node waits for the CNI's own role: nodes
    # carry no CNI permissions of their own.
    security_group = pulumi.Output.all(cluster.vpc_config.apply(_cluster_security_group(name)), cni.arn).apply(
        lambda values: values[0])
    target = planned.bind(cluster_name=cluster.name, oidc_provider_arn=oidc.arn, oidc_issuer_url=issuer,
                          cluster_security_group_id=security_group)
    return ClusterConnection(target, provider, cluster, {
        "name": cluster.name, "cloud": "aws", "mode": "create", "region": config.region,
        "endpoint": cluster.endpoint, "oidcProviderArn": oidc.arn,
        "kubernetesVersion": config.kubernetes_version,
    })


def _cluster_admin(config: EksClusterConfig, cluster: aws.eks.Cluster,
                   opts: pulumi.ResourceOptions | None) -> pulumi.Resource:
    """Cluster admin for ``admin_principal_arn`` alone: an access entry and the admin policy."""
    name, principal = config.name, config.admin_principal_arn
    entry = aws.eks.AccessEntry(f"{name}-admin", cluster_name=cluster.name, principal_arn=principal, type="STANDARD",
                                tags=dict(config.tags) or None, opts=opts)
    return aws.eks.AccessPolicyAssociation(
        f"{name}-admin", cluster_name=cluster.name, principal_arn=principal,
        policy_arn=f"arn:{partition_of(config.region)}:eks::aws:cluster-access-policy/{ADMIN_ACCESS_POLICY}",
        access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[entry])))


def _vpc_cni(config: EksClusterConfig, cluster: aws.eks.Cluster, oidc_arn: Any, issuer: Any,
             opts: pulumi.ResourceOptions | None) -> aws.eks.Addon:
    """The VPC CNI as an EKS add-on whose ``aws-node`` service account assumes its own role (IRSA)."""
    name, tags = config.name, dict(config.tags) or None
    trust = pulumi.Output.all(oidc_arn, issuer).apply(lambda a: iam.policy_json(iam.irsa_trust_policy(
        *iam.require_oidc(f"{name}-vpc-cni", a[0], a[1]), CNI_NAMESPACE, CNI_SERVICE_ACCOUNT)))
    role = aws.iam.Role(f"{name}-vpc-cni", assume_role_policy=trust, description=f"VPC CNI (aws-node) of {name}",
                        tags=tags, opts=opts)
    attachment = aws.iam.RolePolicyAttachment(
        f"{name}-vpc-cni", role=role.id, policy_arn=f"arn:{partition_of(config.region)}:iam::aws:policy/{CNI_POLICY}",
        opts=opts)
    # OVERWRITE: EKS installed the CNI itself when it created the cluster; the add-on takes it over.
    return aws.eks.Addon(f"{name}-vpc-cni", cluster_name=cluster.name, addon_name="vpc-cni",
                         service_account_role_arn=role.arn, resolve_conflicts_on_create="OVERWRITE",
                         resolve_conflicts_on_update="OVERWRITE", tags=tags,
                         opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[attachment])))


def _attach(config: EksClusterConfig, opts: pulumi.ResourceOptions | None,
            planned: PlannedTarget) -> ClusterConnection:
    name = config.name
    provider = kubernetes_provider(name, opts, context=config.kubeconfig_context, kubeconfig=kubeconfig(
        name, config.region, config.endpoint or "", config.certificate_authority_data or ""))
    return ClusterConnection(planned.bind(), provider, None, {
        "name": name, "cloud": "aws", "mode": "attach", "region": config.region, "endpoint": config.endpoint,
        "oidcProviderArn": config.oidc_provider_arn, "kubernetesVersion": config.kubernetes_version,
    })
