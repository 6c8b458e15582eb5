"""Thin registration: a ``NodePoolPlan`` -> ``gcp.container.NodePool`` (+ its node identity).

Everything decided about the pool is in the plan (``translate``); this module
only wires in the values that may be Pulumi outputs (cluster name, service
account, KMS key) and registers the resources as children of the pool component.
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_gcp as gcp

from nodepools.backends.base import RegisteredPool
from nodepools.backends.gcp.translate import NodePoolPlan, node_account_id


def register_node_pool(
    plan: NodePoolPlan,
    *,
    parent: pulumi.Resource,
    cluster: pulumi.Input[str],
    project: str,
    location: str,
    service_account: pulumi.Input[str] | None = None,
    boot_disk_kms_key: pulumi.Input[str] | None = None,
) -> RegisteredPool:
    """Register the pool under ``parent``. Without ``service_account`` the pool
    gets its own service account holding only ``plan.node_roles``; child names
    start with the parent's resource name, so pools of the same name on two
    clusters never collide."""
    prefix = parent.pulumi_resource_name
    extras: list[pulumi.Resource] = []
    grants: list[pulumi.Resource] = []
    if service_account is None:
        account = gcp.serviceaccount.Account(
            f"{prefix}-node-sa",
            account_id=pulumi.Output.from_input(cluster).apply(lambda c: node_account_id(c, location, plan.name)),
            display_name=plan.account_display_name,
            description=plan.account_description,
            project=project,
            opts=pulumi.ResourceOptions(parent=parent),
        )
        member = account.email.apply(lambda email: f"serviceAccount:{email}")
        grants = [
            gcp.projects.IAMMember(
                f"{prefix}-node-sa-{role.rsplit('/', 1)[-1]}", project=project, role=role, member=member,
                opts=pulumi.ResourceOptions(parent=parent),
            )
            for role in plan.node_roles
        ]
        extras = [account, *grants]
        service_account = account.email
    node_config: dict[str, Any] = {**plan.args["node_config"], "service_account": service_account}
    if boot_disk_kms_key is not None:
        node_config["boot_disk_kms_key"] = boot_disk_kms_key
    pool = gcp.container.NodePool(
        prefix,
        cluster=cluster,
        **{**plan.args, "node_config": node_config},
        # Nodes log and report metrics from their first boot: grant before they start.
        opts=pulumi.ResourceOptions(parent=parent, ignore_changes=list(plan.ignore_changes), depends_on=grants),
    )
    return RegisteredPool(resource=pool, extras=extras, node_labels=dict(plan.node_labels))
