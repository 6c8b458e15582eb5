"""The ``Platform`` component: every pool of one cluster plus its guardrails, from one args object.

Order matters: everything is validated first (pool specs, the cluster's pool set,
guardrails against the pools, the cloud's own pool rules, the add-ons' needs),
and only then does anything register, so a bad field leaves the stack untouched.
"""
from __future__ import annotations

from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s

from nodepools.backends.base import ClusterTarget
from nodepools.components.guardrails import Guardrails
from nodepools.components.karpenter import Karpenter
from nodepools.components.platform_args import GuardrailsSpec, PlatformArgs
from nodepools.components.pools import NodePool
from nodepools.components.providers import require_kubernetes_provider
from nodepools.components.validated import ValidatedPlatform, installs_autoscaler, validate_platform
from nodepools.guardrails import autoscaler
from nodepools.guardrails.gpu_allocation import resolved_allocation
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.karpenter import is_karpenter, karpenter_pools
from nodepools.vocabulary import COMPONENT_PLATFORM

__all__ = ["GuardrailsSpec", "Platform", "PlatformArgs"]


class Platform(pulumi.ComponentResource):
    """Every pool of ``cluster`` (``NodePool`` components) and its ``Guardrails``.

    ``args`` is a ``PlatformArgs``, its fields as a mapping, or ``Platform.validate(cluster, args)``'s
    result (then no rule runs again). Where the cloud
    needs cluster-autoscaler, its identity is registered by the cluster target
    (``register_cluster_autoscaler_identity``) and bound to the chart's service
    account. The guardrails wait for the pools: the add-ons need nodes to run on.
    Attributes: ``pools`` (name -> NodePool), ``guardrails``, ``cluster_pools``.
    """

    pools: dict[str, NodePool]
    guardrails: Guardrails
    cluster_pools: ClusterPools

    def __init__(self, resource_name: str, cluster: ClusterTarget,
                 args: PlatformArgs | ValidatedPlatform | Mapping[str, Any], k8s_provider: k8s.Provider,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        require_kubernetes_provider(k8s_provider, "k8s_provider", "Platform")
        if isinstance(args, ValidatedPlatform) and args.covers(cluster):
            validated = args  # checked on this very target (Platform.validate, the stack's planned target)
        else:
            if isinstance(args, ValidatedPlatform):
                args = args.args
            elif not isinstance(args, PlatformArgs):
                args = PlatformArgs.model_validate(dict(args))
            validated = validate_platform(cluster, args)
        args, cluster_pools = validated.args, validated.cluster_pools
        super().__init__(COMPONENT_PLATFORM, resource_name, None, opts)
        self.cluster_pools = cluster_pools
        role_arn = None
        if installs_autoscaler(cluster.cloud, args, cluster_pools):
            role_arn = cluster.register_cluster_autoscaler_identity(autoscaler.NAMESPACE, autoscaler.SERVICE_ACCOUNT,
                                                                    parent=self)
        # A target whose pools depend on how GPUs are handed out (EKS: cluster-autoscaler's GPU label)
        # learns it before any pool registers; the cloud's default when the guardrails name none.
        if (bind := getattr(cluster, "bind_gpu_allocation", None)) is not None:
            bind(resolved_allocation(args.guardrails.gpu_allocation, cluster.cloud, args.guardrails.kubernetes_version))
        child = pulumi.ResourceOptions(parent=self)
        pools = {p.name: NodePool(f"{resource_name}-{p.name}", p, cluster, opts=child, validated=validated)
                 for p in args.pools if not is_karpenter(p)}
        self.karpenter = None
        if karpenter_pools(args.pools):
            # Karpenter runs on the managed system pool; its pools wait for its release (the CRDs).
            self.karpenter = Karpenter(f"{resource_name}-karpenter", cluster, cluster_pools, args.guardrails,
                                       validated.region, k8s_provider,
                                       opts=pulumi.ResourceOptions(parent=self, depends_on=list(pools.values())))
            pools.update({p.name: NodePool(f"{resource_name}-{p.name}", p, cluster, opts=child, validated=validated)
                          for p in karpenter_pools(args.pools)})
        self.pools = {p.name: pools[p.name] for p in args.pools}
        self.guardrails = Guardrails(
            f"{resource_name}-guardrails", cluster_pools, args.guardrails, cluster.cloud, cluster.cluster_name,
            k8s_provider, autoscaler_role_arn=role_arn, region=validated.region, validated=validated,
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(self.pools.values())),
            register_alarms=getattr(cluster, "register_alarms", None),
            installed_crds=[self.karpenter.release] if self.karpenter and self.karpenter.release else [])
        self.register_outputs({
            "pools": {name: pool.spec.pool_class.value for name, pool in self.pools.items()},
            "namespaces": self.guardrails.namespaces,
            "localQueues": self.guardrails.local_queues,
            # The attached cluster's own nodes the add-ons run on (None: the resident pool);
            # the plan counts them as nodes it does not own.
            "systemNodes": args.system_nodes.as_k8s() if args.system_nodes is not None else None,
        })

    @staticmethod
    def validate(cluster: ClusterTarget, args: PlatformArgs | Mapping[str, Any]) -> ValidatedPlatform:
        """Every problem of the cluster's pool set, the cloud's pool rules and the
        add-ons' needs, raised together as one ValidationError. Registers nothing, so a
        program can call it before anything registers; ``Platform(name, cluster, <the
        result>, ...)`` on the same ``cluster`` then runs no rule again."""
        if not isinstance(args, PlatformArgs):
            args = PlatformArgs.model_validate(dict(args))
        return validate_platform(cluster, args)
