"""Register a translated pool (``EksPoolPlan``) and the autoscaler's IRSA role.

Thin on purpose: every value comes from the pure translator; this module only
links resources (role ARN, launch template, placement group, the node group's
ASG) and hands them to the engine.
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws

from nodepools.backends.aws import iam
from nodepools.backends.aws.translate import EksPoolPlan
from nodepools.backends.base import RegisteredPool


def _opts(parent: pulumi.Resource, provider: pulumi.ProviderResource | None, **extra: Any) -> pulumi.ResourceOptions:
    return pulumi.ResourceOptions(parent=parent, provider=provider, **extra)


def _asg_name(node_group: aws.eks.NodeGroup, name: str) -> pulumi.Output[str]:
    """The node group's ASG name. Read from the group's outputs so every tag depends on
    the group: the policy pack links tags to pools through that dependency, since the
    name itself is unknown at preview. EKS reports it once the group exists; a unit
    test's mocks must too (``nodepools.testing.NodepoolsMocks`` does)."""
    def first_group(resources: Any) -> str:
        groups = resources[0].autoscaling_groups if resources else None
        if not groups or not groups[0].name:
            raise ValueError(f"EKS node group {name!r} reports no Auto Scaling group (resources[0]."
                             "autoscalingGroups[0].name), which its cluster-autoscaler tags need; under "
                             "pulumi.runtime.set_mocks, return it from the mocks (nodepools.testing.NodepoolsMocks)")
        return groups[0].name
    return node_group.resources.apply(first_group)


def register_pool(plan: EksPoolPlan, parent: pulumi.Resource,
                  provider: pulumi.ProviderResource | None = None) -> RegisteredPool:
    extras: list[pulumi.Resource] = []
    role_arn = plan.node_group["node_role_arn"]
    attachments: list[pulumi.Resource] = []
    if plan.node_role is not None:
        role = aws.iam.Role(plan.node_role.resource_name,
                            assume_role_policy=iam.policy_json(plan.node_role.assume_role_policy),
                            tags=plan.node_role.tags, opts=_opts(parent, provider))
        # An IAM role's id is its name.
        for name, arn in plan.node_role.policy_arns.items():
            attachments.append(aws.iam.RolePolicyAttachment(plan.node_role.attachment_name(name), role=role.id,
                                                            policy_arn=arn, opts=_opts(parent, provider)))
        role_arn = role.arn
        extras += [role, *attachments]

    template_args = dict(plan.launch_template)
    if plan.placement_group is not None:
        group = aws.ec2.PlacementGroup(f"{plan.prefix}-placement", **plan.placement_group,
                                       opts=_opts(parent, provider))
        template_args["placement"] = {"group_name": group.name}
        extras.append(group)
    template = aws.ec2.LaunchTemplate(
        f"{plan.prefix}-nodes", **template_args,
        opts=_opts(parent, provider, ignore_changes=list(plan.launch_template_ignore_changes) or None))
    extras.append(template)

    node_group = aws.eks.NodeGroup(
        plan.prefix,
        **{**plan.node_group, "node_role_arn": role_arn},
        launch_template={"id": template.id, "version": template.latest_version.apply(str)},
        # Nodes cannot join before the role has its policies: wait for the attachments.
        opts=_opts(parent, provider, ignore_changes=list(plan.node_group_ignore_changes), depends_on=attachments),
    )
    asg_name = _asg_name(node_group, plan.prefix)
    for tag in plan.asg_tags:
        extras.append(aws.autoscaling.Tag(
            tag.resource_name, autoscaling_group_name=asg_name,
            tag={"key": tag.key, "value": tag.value, "propagate_at_launch": tag.propagate_at_launch},
            opts=_opts(parent, provider)))
    return RegisteredPool(resource=node_group, extras=extras, node_labels=dict(plan.node_labels))


def register_autoscaler_identity(prefix: str, *, cluster_name: pulumi.Input[str], oidc_provider_arn: pulumi.Input[str],
                                 oidc_issuer_url: pulumi.Input[str], namespace: str, service_account: str,
                                 tags: dict[str, str], parent: pulumi.Resource,
                                 provider: pulumi.ProviderResource | None = None) -> pulumi.Output[str]:
    """An IRSA role for exactly ``system:serviceaccount:<namespace>:<service_account>``
    with cluster-autoscaler's policy inline. Returns the role ARN, resolved only
    once the policy is attached, so the autoscaler never starts powerless."""
    trust = pulumi.Output.all(oidc_provider_arn, oidc_issuer_url).apply(
        lambda args: iam.policy_json(iam.irsa_trust_policy(
            *iam.require_oidc(f"{prefix}-cluster-autoscaler", args[0], args[1]), namespace, service_account)))
    role = aws.iam.Role(f"{prefix}-cluster-autoscaler", assume_role_policy=trust, tags=tags,
                        opts=_opts(parent, provider))
    policy = aws.iam.RolePolicy(
        f"{prefix}-cluster-autoscaler", role=role.id,
        policy=pulumi.Output.from_input(cluster_name).apply(lambda name: iam.policy_json(iam.autoscaler_policy(name))),
        opts=_opts(parent, provider))
    return pulumi.Output.all(role.arn, policy.id).apply(lambda args: args[0])

