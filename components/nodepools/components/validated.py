"""The one validation gate of a platform: ``validate_platform`` is the only way to a ``ValidatedPlatform``.

Every rule runs here once: the pool set (``ClusterPools``), the cloud's pool rules
(``ClusterTarget.check_pool``), the add-ons' needs and the autoscaler identity
(the pools' own rules and the guardrails' rules ran when ``PlatformArgs`` was
built). ``Platform``, ``NodePool`` and ``Guardrails`` take the result and trust
it instead of checking again, on the target it was validated on; a caller that
hands them anything else gets the full check (docs/architecture.md, "One
validation gate").
"""
from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from nodepools.backends.base import ClusterTarget
from nodepools.components.platform_args import PlatformArgs
from nodepools.guardrails import autoscaler
from nodepools.guardrails import karpenter as karpenter_chart
from nodepools.guardrails.addon_modes import installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.checks import addon_problems, alarm_problems
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import karpenter_pools
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud

_GATE = object()  # only validate_platform holds it


class ValidatedPlatform:
    """Platform args that passed every rule on one cluster target (build with
    ``validate_platform``). It vouches for that target only: the cloud's pool rules read
    the target's own values (subnets, security groups, the OIDC provider), so another
    target, even of the same cloud, is checked afresh."""

    def __init__(self, gate: object, target: ClusterTarget, args: PlatformArgs, cluster_pools: ClusterPools,
                 region: Any) -> None:
        if gate is not _GATE:
            raise TypeError("a ValidatedPlatform comes from validate_platform(cluster, args) only")
        self.target, self.args, self.cluster_pools, self.region = target, args, cluster_pools, region
        self.cloud: Cloud = target.cloud

    def covers(self, target: ClusterTarget) -> bool:
        """It was validated on ``target`` itself."""
        return target is self.target

    def covers_pool(self, spec: PoolSpec, target: ClusterTarget) -> bool:
        """``spec`` is one of the validated pools, checked on ``target``."""
        return self.covers(target) and any(spec is p for p in self.cluster_pools.pools)

    def covers_guardrails(self, pools: ClusterPools, spec: GuardrailsSpec, cloud: Cloud) -> bool:
        return cloud is self.cloud and pools is self.cluster_pools and spec is self.args.guardrails


def region_of(cluster: ClusterTarget, args: PlatformArgs) -> Any:
    return args.region if args.region is not None else getattr(cluster, "region", None)


def installs_autoscaler(cloud: Cloud, args: PlatformArgs, pools: ClusterPools) -> bool:
    """cluster-autoscaler goes in only where the cloud has none of its own, the add-on is
    enabled and some managed node group autoscales."""
    return installs_cluster_autoscaler(not CLOUD_ADDONS[cloud].cluster_autoscaler, args.guardrails.addons, pools.pools)


def validate_platform(cluster: ClusterTarget, args: PlatformArgs,
                      cluster_pools: ClusterPools | None = None) -> ValidatedPlatform:
    """Every problem of the cluster's pool set, the cloud's pool rules and the
    add-ons' needs, raised together as one ValidationError. Registers nothing.
    ``cluster_pools``, when given for ``args.pools`` on this cloud, is not built again."""
    region = region_of(cluster, args)
    problems = Problems()
    check_region = getattr(cluster, "check_region", None)
    if args.region is not None and check_region is not None:
        # The target's cluster rules that need the region, when the platform names it.
        try:
            check_region(args.region)
        except ValidationError as err:
            problems.absorb(err)
    same = cluster_pools is not None and cluster_pools.cloud is cluster.cloud and \
        cluster_pools.system_nodes == args.system_nodes and \
        len(cluster_pools.pools) == len(args.pools) and all(a is b for a, b in zip(cluster_pools.pools, args.pools))
    if not same:
        try:
            cluster_pools = ClusterPools(cloud=cluster.cloud, pools=args.pools, system_nodes=args.system_nodes)
        except ValidationError as err:
            problems.absorb(err)
            cluster_pools = None
    for i, pool in enumerate(args.pools):
        try:
            cluster.check_pool(pool)
        except ValidationError as err:
            problems.absorb(err, ("pools", i))
    if cluster_pools is not None:
        addon_problems(cluster.cloud, cluster_pools, region, problems, spec=args.guardrails,
                       spec_root=("guardrails",))
    alarm_problems(args.guardrails, cluster.cloud, getattr(cluster, "register_alarms", None), problems,
                   ("guardrails",))
    if cluster_pools is not None and installs_autoscaler(cluster.cloud, args, cluster_pools):
        try:
            cluster.check_cluster_autoscaler_identity(autoscaler.NAMESPACE, autoscaler.SERVICE_ACCOUNT)
        except ValidationError as err:
            problems.absorb(err, ("cluster",))
    if cluster_pools is not None and karpenter_pools(args.pools) and args.guardrails.addons.karpenter.install:
        try:
            cluster.check_karpenter(karpenter_chart.NAMESPACE, karpenter_chart.SERVICE_ACCOUNT, region)
        except ValidationError as err:
            problems.absorb(err, ("cluster",))
    problems.raise_if_any("Platform")
    assert cluster_pools is not None
    return ValidatedPlatform(_GATE, cluster, args, cluster_pools, region)
