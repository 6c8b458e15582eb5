"""``EksCluster``: the ClusterTarget for an existing EKS cluster (by name)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

import pulumi

from nodepools.backends.aws import alarms, register, tables
from nodepools.backends.aws.checks import eks_pool_problems
from nodepools.backends.aws.karpenter import KarpenterPoolPlan, translate_karpenter_pool
from nodepools.backends.aws.karpenter_register import (KarpenterBinding, KarpenterInfra, register_karpenter_infra,
                                                       register_karpenter_pool)
from nodepools.backends.aws.translate import NO_SECURITY_GROUP, EksContext, EksPoolPlan, translate_pool
from nodepools.backends.base import RegisteredPool
from nodepools.clouds.aws import POOL_TAG_KEYS
from nodepools.clouds.regions import aws_tag_problems
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.pool import PoolSpec
from nodepools.spec.syntax import dns_label_error
from nodepools.vocabulary import Cloud, GpuAllocation


class EksCluster:
    """Node pools on an EKS cluster that already exists (or is created elsewhere in
    the stack: pass its Outputs).

    - ``cluster_name``: the EKS cluster's name.
    - ``subnet_ids``: private subnets for the nodes; a pool's own ``subnet_ids``
      override them. Default: none (then every pool must give its own).
    - ``node_role_arn``: an existing node role for every pool. Default None: each
      pool gets its own role with AmazonEKSWorkerNodePolicy,
      AmazonEC2ContainerRegistryPullOnly and (``attach_cni_policy``, default True)
      AmazonEKS_CNI_Policy; set it False when the VPC CNI has its own IRSA or
      Pod Identity role, as AWS recommends.
    - ``cluster_security_group_id``: the cluster security group EKS created
      (``aws.eks.Cluster``'s ``vpc_config.cluster_security_group_id``). Required
      unless ``node_security_group_ids`` include it: every launch template names
      its security groups on a network interface that refuses public IPs, and
      EKS then no longer attaches the cluster security group by itself.
    - ``node_security_group_ids``: extra security groups for the nodes, after the
      cluster's. Default none.
    - ``oidc_provider_arn`` / ``oidc_issuer_url``: the cluster's IAM OIDC provider,
      needed only for the cluster-autoscaler's IRSA role. Default None.
    - ``tags``: AWS tags for every resource created. Default none.
    - ``ebs_kms_key_arn``: customer-managed KMS key for root volumes. Default None
      (encrypted with the account's EBS default key).
    - ``partition``: ``aws`` (default), ``aws-cn`` or ``aws-us-gov``, for policy ARNs.
    - ``provider``: an explicit ``pulumi_aws.Provider`` for every resource. Default None.

    Pools with ``provisioner: karpenter`` become a Karpenter NodePool + EC2NodeClass;
    they need Karpenter's side registered and bound first (``register_karpenter``,
    ``bind_karpenter``), which ``Platform`` does.
    """

    cloud = Cloud.AWS

    def __init__(self, cluster_name: pulumi.Input[str], subnet_ids: Sequence[pulumi.Input[str]] = (), *,
                 node_role_arn: pulumi.Input[str] | None = None,
                 cluster_security_group_id: pulumi.Input[str] | None = None,
                 node_security_group_ids: Sequence[pulumi.Input[str]] = (),
                 oidc_provider_arn: pulumi.Input[str] | None = None,
                 oidc_issuer_url: pulumi.Input[str] | None = None,
                 tags: Mapping[str, str] | None = None,
                 ebs_kms_key_arn: pulumi.Input[str] | None = None,
                 attach_cni_policy: bool = True,
                 partition: str = "aws",
                 provider: pulumi.ProviderResource | None = None) -> None:
        problems = Problems()
        if isinstance(cluster_name, str) and not cluster_name:
            problems.add("cluster_name", "cluster_name must be the EKS cluster's name (non-empty)", cluster_name)
        if isinstance(subnet_ids, str):
            problems.add("subnet_ids", "subnet_ids must be a list of subnet IDs, not one string", subnet_ids)
        if partition not in tables.PARTITIONS:
            problems.add("partition", f"partition {partition!r} is unknown (allowed: {', '.join(tables.PARTITIONS)})",
                         partition)
        if not cluster_security_group_id and not node_security_group_ids:
            problems.add("cluster_security_group_id", NO_SECURITY_GROUP, None)
        elif isinstance(node_security_group_ids, str):
            problems.add("node_security_group_ids", "node_security_group_ids must be a list of security group "
                         "IDs, not one string", node_security_group_ids)
        for key, value in (tags or {}).items():
            if not isinstance(key, str) or not isinstance(value, str):
                problems.add(("tags", str(key)), "tags must map strings to strings", value)
        if tags and all(isinstance(k, str) and isinstance(val, str) for k, val in tags.items()):
            for key, message in aws_tag_problems(tags, POOL_TAG_KEYS):
                problems.add("tags" if key is None else ("tags", key), message, len(tags) if key is None else key)
        problems.raise_if_any("EksCluster")
        self._context = EksContext(
            cluster_name=cluster_name, subnet_ids=tuple(subnet_ids), node_role_arn=node_role_arn,
            cluster_security_group_id=cluster_security_group_id,
            node_security_group_ids=tuple(node_security_group_ids), tags=dict(tags or {}),
            ebs_kms_key_arn=ebs_kms_key_arn, attach_cni_policy=attach_cni_policy, partition=partition)
        self._oidc_provider_arn = oidc_provider_arn
        self._oidc_issuer_url = oidc_issuer_url
        self._provider = provider
        self._karpenter: KarpenterBinding | None = None

    @property
    def cluster_name(self) -> pulumi.Input[str]:
        return self._context.cluster_name

    @property
    def context(self) -> EksContext:
        return self._context

    def check_pool(self, spec: PoolSpec) -> None:
        """Raise a ValidationError naming every EKS-specific problem of ``spec``."""
        eks_pool_problems(spec, self._context).raise_if_any(f"PoolSpec {spec.name!r} on EKS")

    def plan_pool(self, spec: PoolSpec, prefix: str | None = None) -> EksPoolPlan:
        """The pure translation of ``spec`` on this cluster (nothing registers)."""
        self.check_pool(spec)
        return translate_pool(spec, self._context, prefix)

    def register_pool(self, spec: PoolSpec, parent: pulumi.Resource) -> RegisteredPool:
        """Register the pool's resources under ``parent`` (``spec`` has passed ``check_pool``);
        names start with its resource name. A Karpenter pool needs ``bind_karpenter`` first
        (the ``Platform`` does it)."""
        # check_pool ran before (NodePool, or the platform's one gate): not again.
        if is_karpenter(spec):
            if self._karpenter is None:
                raise ValueError(f"pool {spec.name!r} has provisioner 'karpenter', but Karpenter is not installed "
                                 "on this EksCluster: build Karpenter pools through Platform, or call "
                                 "register_karpenter and bind_karpenter first")
            karpenter_plan = translate_karpenter_pool(spec, self._context, self._karpenter.instance_profile_name,
                                                      parent.pulumi_resource_name)
            return register_karpenter_pool(karpenter_plan, self._karpenter, parent)
        plan = translate_pool(spec, self._context, parent.pulumi_resource_name)
        return register.register_pool(plan, parent, self._provider)

    # ---- Karpenter ---------------------------------------------------------------
    def plan_karpenter_pool(self, spec: PoolSpec, instance_profile_name: pulumi.Input[str],
                            prefix: str | None = None) -> KarpenterPoolPlan:
        """The pure translation of a Karpenter pool (NodePool + EC2NodeClass)."""
        self.check_pool(spec)
        return translate_karpenter_pool(spec, self._context, instance_profile_name, prefix)

    def check_karpenter(self, namespace: str, service_account: str, region: str | None) -> None:
        """Karpenter's controller assumes its role through IRSA and needs the region for its policy."""
        problems = Problems()
        for field, value in (("oidc_provider_arn", self._oidc_provider_arn),
                             ("oidc_issuer_url", self._oidc_issuer_url)):
            if value is None:
                problems.add(field, f"EksCluster({field}=...) is required for Karpenter's controller role (IRSA): "
                             "give the cluster's IAM OIDC provider ARN and issuer URL", None)
        if region is None:
            problems.add("region", "Karpenter's controller policy is scoped to the cluster's region: give it", None)
        problems.raise_if_any("EksCluster.register_karpenter")

    def register_karpenter(self, namespace: str, service_account: str, region: str,
                           parent: pulumi.Resource, controller: bool = True) -> KarpenterInfra:
        """Karpenter's node role, instance profile, access entry and, with ``controller``
        (default), its interruption queue and rules and the controller's IRSA role."""
        if controller:
            self.check_karpenter(namespace, service_account, region)
        return register_karpenter_infra(
            parent.pulumi_resource_name, cluster_name=self._context.cluster_name, region=region,
            partition=self._context.partition, oidc_provider_arn=self._oidc_provider_arn,
            oidc_issuer_url=self._oidc_issuer_url, namespace=namespace, service_account=service_account,
            tags=dict(self._context.tags), parent=parent, provider=self._provider, controller=controller,
            attach_cni_policy=self._context.attach_cni_policy)

    @staticmethod
    def karpenter_binding(k8s_provider: pulumi.ProviderResource, infra: KarpenterInfra,
                          depends_on: list[pulumi.Resource]) -> KarpenterBinding:
        return KarpenterBinding(k8s_provider, infra.instance_profile_name, depends_on)

    def bind_gpu_allocation(self, allocation: GpuAllocation) -> None:
        """How the platform hands out GPUs: its pools are labelled for cluster-autoscaler accordingly
        (``translate.group_labels``). ``Platform`` binds it before any pool registers."""
        self._context = replace(self._context, gpu_allocation=GpuAllocation(allocation))

    def bind_karpenter(self, binding: KarpenterBinding) -> None:
        """Where Karpenter pools register their objects (see ``KarpenterBinding``)."""
        self._karpenter = binding

    def check_cluster_autoscaler_identity(self, namespace: str, service_account: str) -> None:
        """The IRSA role needs the cluster's OIDC provider and valid Kubernetes names."""
        problems = Problems()
        for field, value in (("oidc_provider_arn", self._oidc_provider_arn),
                             ("oidc_issuer_url", self._oidc_issuer_url)):
            if value is None:
                problems.add(field, f"EksCluster({field}=...) is required for the cluster-autoscaler's IRSA role: "
                             "give the cluster's IAM OIDC provider ARN and issuer URL", None)
        if err := dns_label_error(namespace):
            problems.add("namespace", f"namespace {err}", namespace)
        if err := dns_label_error(service_account, 253):
            problems.add("service_account", f"service account name {err}", service_account)
        problems.raise_if_any("EksCluster.register_cluster_autoscaler_identity")

    def register_cluster_autoscaler_identity(self, namespace: str, service_account: str,
                                             parent: pulumi.Resource) -> pulumi.Output[str]:
        """IRSA role for cluster-autoscaler's service account; returns its ARN."""
        self.check_cluster_autoscaler_identity(namespace, service_account)
        return register.register_autoscaler_identity(
            parent.pulumi_resource_name, cluster_name=self._context.cluster_name,
            oidc_provider_arn=self._oidc_provider_arn, oidc_issuer_url=self._oidc_issuer_url,
            namespace=namespace, service_account=service_account, tags=dict(self._context.tags),
            parent=parent, provider=self._provider)

    def register_alarms(self, alarm_args: list[dict[str, Any]], parent: pulumi.Resource) -> list[pulumi.Resource]:
        """The CloudWatch alarms of the ``cloudwatch`` alert backend, under ``parent``."""
        return alarms.register_alarms(alarm_args, cluster_name=self._context.cluster_name,
                                      tags=dict(self._context.tags), parent=parent, provider=self._provider)
