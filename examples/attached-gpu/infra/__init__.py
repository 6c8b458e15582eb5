"""The platform on the existing cluster: a cluster target over its ids, its own system
nodes for the add-ons, two GPU pools, the guardrails."""
from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from nodepools.backends.aws import EksCluster
from nodepools.backends.aws.kubeconfig import kubeconfig
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.spec import PoolSpec
from nodepools.spec.system_nodes import SystemNodes

__all__ = ["platform_args", "platform_for"]


def platform_args(config: pulumi.Config) -> PlatformArgs:
    """No resident pool: the cluster's managed node group runs CoreDNS and the add-ons."""
    return PlatformArgs(
        region=config.require("region"),
        system_nodes=SystemNodes(node_selector={"eks.amazonaws.com/nodegroup": config.require("systemNodeGroup")},
                                 tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}]),
        pools=[
            PoolSpec(name="serving", pool_class="gpu-inference", instance_types=["g6.xlarge", "g6.2xlarge"],
                     min_nodes=1, max_nodes=config.require_int("maxInferenceNodes")),
            PoolSpec(name="training", pool_class="gpu-training", instance_types=["g6.12xlarge"], max_nodes=2),
        ],
        guardrails={"alerts": {"alarm_actions": []}},
    )


def platform_for(config: pulumi.Config) -> Platform:
    name, region = config.require("clusterName"), config.require("region")
    provider = k8s.Provider("ml-shared", enable_server_side_apply=True, kubeconfig=kubeconfig(
        name, region, config.require("endpoint"), config.require("certificateAuthorityData")))
    target = EksCluster(name, config.require_object("subnetIds"),
                        cluster_security_group_id=config.require("clusterSecurityGroupId"),
                        oidc_provider_arn=config.require("oidcProviderArn"),
                        oidc_issuer_url=config.require("oidcIssuerUrl"))
    return Platform("ml", target, platform_args(config), provider)
