"""Register Karpenter's AWS side and its pools' objects.

Thin: every document comes from ``karpenter_iam`` and every object from the
pure translator (``karpenter.py``). The AWS side: the node role (the managed
policies of Karpenter's reference template) with its instance profile and its
EKS access entry (``EC2_LINUX``: nodes join without aws-auth), the SQS
interruption queue (SSE, TLS only) fed by one EventBridge rule per event
Karpenter handles, and the controller's IRSA role.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from nodepools.backends.aws import iam, karpenter_iam
from nodepools.backends.aws.karpenter import KarpenterPoolPlan
from nodepools.backends.base import RegisteredPool

QUEUE_TARGET_ID = "KarpenterInterruptionQueueTarget"


@dataclass
class KarpenterInfra:
    """What the controller's chart and the pools' EC2NodeClasses need."""

    controller_role_arn: pulumi.Output[str]
    queue_name: pulumi.Output[str]
    instance_profile_name: pulumi.Output[str]
    resources: list[pulumi.Resource] = field(default_factory=list)


@dataclass
class KarpenterBinding:
    """How Karpenter pools reach the cluster: its Kubernetes provider, the node
    instance profile, and what their objects wait for (the chart with the CRDs)."""

    k8s_provider: pulumi.ProviderResource
    instance_profile_name: Any
    depends_on: Sequence[pulumi.Resource] = ()


def _opts(parent: pulumi.Resource, provider: pulumi.ProviderResource | None, **extra: Any) -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(parent=parent, provider=provider, **extra)


def register_karpenter_infra(prefix: str, *, cluster_name: pulumi.Input[str], region: str, partition: str,
                             oidc_provider_arn: pulumi.Input[str], oidc_issuer_url: pulumi.Input[str],
                             namespace: str, service_account: str, tags: dict[str, str],
                             parent: pulumi.Resource, provider: pulumi.ProviderResource | None = None,
                             controller: bool = True, attach_cni_policy: bool = True) -> KarpenterInfra:
    opts = _opts(parent, provider)
    node_role = aws.iam.Role(f"{prefix}-node", assume_role_policy=iam.policy_json(iam.node_trust_policy()),
                             description="nodes Karpenter launches", tags=tags, opts=opts)
    # An IAM role's id is its name. The managed node groups' very policies (one home,
    # iam.node_policy_arns): a Karpenter node needs nothing a managed node does not.
    attachments = [aws.iam.RolePolicyAttachment(f"{prefix}-node-{name}", role=node_role.id, policy_arn=arn, opts=opts)
                   for name, arn in iam.node_policy_arns(partition, attach_cni_policy).items()]
    profile = aws.iam.InstanceProfile(f"{prefix}-node", role=node_role.id, tags=tags, opts=opts)
    access = aws.eks.AccessEntry(f"{prefix}-node", cluster_name=cluster_name, principal_arn=node_role.arn,
                                 type="EC2_LINUX", tags=tags, opts=opts)
    node_side: list[pulumi.Resource] = [node_role, *attachments, profile, access]
    if not controller:
        # An existing Karpenter: our EC2NodeClasses still need the node role's profile.
        return KarpenterInfra(pulumi.Output.from_input(""), pulumi.Output.from_input(""), profile.name, node_side)
    queue = aws.sqs.Queue(f"{prefix}-interruption",
                          message_retention_seconds=karpenter_iam.QUEUE_RETENTION_SECONDS,
                          sqs_managed_sse_enabled=True, tags=tags, opts=opts)
    queue_policy = aws.sqs.QueuePolicy(f"{prefix}-interruption", queue_url=queue.url,
                                       policy=queue.arn.apply(lambda a: iam.policy_json(karpenter_iam.queue_policy(a))),
                                       opts=opts)
    events: list[pulumi.Resource] = []
    for key, (source, detail_type) in karpenter_iam.INTERRUPTION_EVENTS.items():
        rule = aws.cloudwatch.EventRule(f"{prefix}-{key}", description=f"Karpenter: {detail_type}",
                                        event_pattern=iam.policy_json(karpenter_iam.event_pattern(source, detail_type)),
                                        tags=tags, opts=opts)
        events += [rule, aws.cloudwatch.EventTarget(f"{prefix}-{key}", rule=rule.name, arn=queue.arn,
                                                    target_id=QUEUE_TARGET_ID, opts=opts)]
    trust = pulumi.Output.all(oidc_provider_arn, oidc_issuer_url).apply(
        lambda a: iam.policy_json(iam.irsa_trust_policy(*iam.require_oidc(f"{prefix}-controller", a[0], a[1]),
                                                        namespace, service_account)))
    role = aws.iam.Role(f"{prefix}-controller", assume_role_policy=trust, tags=tags, opts=opts)
    policy = aws.iam.RolePolicy(f"{prefix}-controller", role=role.id, policy=pulumi.Output.all(
        cluster_name, oidc_provider_arn, node_role.arn, profile.name, queue.arn).apply(
        lambda a: iam.policy_json(karpenter_iam.controller_policy(
            partition=partition, region=region, account=karpenter_iam.account_of(a[1]), cluster_name=a[0],
            node_role_arn=a[2], instance_profile_name=a[3], queue_arn=a[4]))), opts=opts)
    # Resolved only once everything exists, so the controller never starts powerless.
    role_arn = pulumi.Output.all(role.arn, policy.id, access.id, queue_policy.id).apply(lambda a: a[0])
    return KarpenterInfra(role_arn, queue.name, profile.name,
                          [*node_side, queue, queue_policy, *events, role, policy])


def register_karpenter_pool(plan: KarpenterPoolPlan, binding: KarpenterBinding,
                            parent: pulumi.Resource) -> RegisteredPool:
    opts = pulumi.ResourceOptions(parent=parent, provider=binding.k8s_provider, depends_on=list(binding.depends_on))
    node_class = k8s.apiextensions.CustomResource(
        f"{plan.prefix}-nodeclass", api_version=plan.node_class["apiVersion"], kind=plan.node_class["kind"],
        metadata=plan.node_class["metadata"], spec=plan.node_class["spec"], opts=opts)
    node_pool = k8s.apiextensions.CustomResource(
        f"{plan.prefix}-nodepool", api_version=plan.node_pool["apiVersion"], kind=plan.node_pool["kind"],
        metadata=plan.node_pool["metadata"], spec=plan.node_pool["spec"],
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[node_class])))
    return RegisteredPool(resource=node_pool, extras=[node_class], node_labels=dict(plan.node_labels))
