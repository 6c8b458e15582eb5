"""Everything the guardrails of one cluster consist of, as plain data.

``guardrails_plan`` is pure (no Pulumi import): the component registers what it
returns, tests and the offline plan can inspect it without an engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodepools.guardrails import derive, provisioning, topology
from nodepools.guardrails.addon_modes import installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS, HelmRelease
from nodepools.guardrails import alert_delivery
from nodepools.guardrails.alerts import cloudwatch_alarms, prometheus_rule
from nodepools.guardrails.autoscaler import autoscaler_release
from nodepools.guardrails.device_plugin import device_plugin_release
from nodepools.guardrails.dra_driver import (dra_driver_release, dra_quota_hard, profile_classes, published_classes,
                                             uses_dra)
from nodepools.guardrails.kueue import cluster_queues, kueue_release, local_queues, resource_flavors
from nodepools.guardrails.namespaces import QUOTA_NAME, limit_ranges, namespaces, resource_quotas
from nodepools.guardrails.priority import priority_classes
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.guardrails.warm_objects import WarmPlan, warm_plan
from nodepools.spec.cluster import ClusterPools
from nodepools.vocabulary import PoolClass

Obj = dict[str, Any]


@dataclass
class GuardrailsPlan:
    priority_classes: list[Obj]
    namespaces: dict[PoolClass, Obj]
    resource_quotas: list[tuple[PoolClass, Obj]]
    limit_ranges: list[tuple[PoolClass, Obj]]
    device_plugin: HelmRelease | None = None
    cluster_autoscaler: HelmRelease | None = None
    kueue: HelmRelease | None = None
    resource_flavors: list[Obj] = field(default_factory=list)
    cluster_queues: list[tuple[PoolClass, Obj]] = field(default_factory=list)
    local_queues: list[tuple[PoolClass, Obj]] = field(default_factory=list)
    # Topology-aware scheduling and all-or-nothing capacity (docs/design.md section 9.3).
    topologies: list[Obj] = field(default_factory=list)
    admission_checks: list[Obj] = field(default_factory=list)
    provisioning_configs: list[Obj] = field(default_factory=list)
    # The ProvisioningRequest CRD, where nodepools installs the autoscaler that serves it.
    provisioning_crd: Obj | None = None
    # The in-cluster alert rules: a PrometheusRule (prometheus-operator) or a Google
    # Managed Prometheus ClusterRules; None for CloudWatch or with alerts off.
    prometheus_rule: Obj | None = None
    # The class whose namespace the PrometheusRule lives in, when it is one of ours.
    alerts_class: PoolClass | None = None
    # CloudWatch MetricAlarm arguments (``alerts.cloudwatch_alarms``), registered by the cluster target.
    cloudwatch_alarms: list[Obj] = field(default_factory=list)
    # Where the alerts are evaluated (``alert_delivery.where``), for the plan.
    alerts_where: str = ""
    # Warm capacity of the gpu-inference pools (guardrails/warm_objects.py); None when no pool keeps any.
    warm: WarmPlan | None = None
    # gpu_allocation dra (guardrails/dra_driver.py): NVIDIA's DRA driver instead of the device plugin,
    # the DeviceClasses its release publishes (shown, not registered) and nodepools' own (registered).
    dra_driver: HelmRelease | None = None
    published_device_classes: list[Obj] = field(default_factory=list)
    device_classes: list[Obj] = field(default_factory=list)

    @property
    def releases(self) -> list[HelmRelease]:
        return [r for r in (self.device_plugin, self.dra_driver, self.cluster_autoscaler, self.kueue) if r is not None]


def guardrails_plan(cluster: ClusterPools, spec: GuardrailsSpec, cluster_name: Any, region: Any = None,
               role_arn: Any = None) -> GuardrailsPlan:
    """The guardrails of ``cluster``. ``spec`` must already be checked against the
    pools (``nodepools.guardrails.checks``); ``cluster_name``, ``region`` and
    ``role_arn`` may be Pulumi outputs and are only placed into Helm values."""
    addons = CLOUD_ADDONS[cluster.cloud]
    pools = cluster.pools
    plan = GuardrailsPlan(priority_classes(), namespaces(spec, pools), resource_quotas(spec, pools),
                          limit_ranges(spec, pools))
    if uses_dra(spec, cluster.cloud):
        _dra(plan, cluster, spec)
    elif addons.nvidia_device_plugin and spec.addons.install_device_plugin:
        plan.device_plugin = device_plugin_release(cluster, spec)
    if installs_cluster_autoscaler(not addons.cluster_autoscaler, spec.addons, pools):
        plan.cluster_autoscaler = autoscaler_release(cluster, spec, addons, cluster_name, region, role_arn)
    if derive.kueue_enabled(spec, pools) and spec.addons.kueue.enabled:
        plan.kueue = kueue_release(spec, cluster) if spec.addons.kueue.install else None
        plan.resource_flavors = resource_flavors(cluster)
        plan.cluster_queues = cluster_queues(spec, cluster)
        plan.local_queues = local_queues(spec, cluster)
        queued = [p for c in derive.queued_classes(pools) for p in derive.of_class(pools, c)]
        plan.topologies = [topology.topology_object(f) for f in topology.families(cluster, queued)]
        if provisioning.atomic_pools(spec, cluster):
            plan.admission_checks = [provisioning.check_object()]
            plan.provisioning_configs = [provisioning.config_object()]
            plan.provisioning_crd = provisioning.provisioning_crd(spec, cluster)
    plan.prometheus_rule = prometheus_rule(spec, cluster.cloud)
    plan.cloudwatch_alarms = cloudwatch_alarms(spec, cluster.cloud)
    ns = plan.prometheus_rule["metadata"].get("namespace") if plan.prometheus_rule else None
    if ns is not None:
        plan.alerts_class = next((c for c, o in plan.namespaces.items() if o["metadata"]["name"] == ns), None)
    plan.alerts_where = alert_delivery.where(spec, cluster.cloud, ns)
    plan.warm = warm_plan(cluster, spec)
    if plan.warm is not None:
        plan.priority_classes.append(plan.warm.priority_class)
    return plan


def _dra(plan: GuardrailsPlan, cluster: ClusterPools, spec: GuardrailsSpec) -> None:
    """NVIDIA's DRA driver serves the GPU pools: its release, the classes, and each quota's DRA entries."""
    plan.dra_driver = dra_driver_release(cluster, spec)
    if plan.dra_driver is None:
        return
    plan.published_device_classes = published_classes(spec)
    plan.device_classes = profile_classes(cluster, spec)
    for pool_class, quota in plan.resource_quotas:
        own = quota["metadata"]["name"] == QUOTA_NAME
        quota["spec"]["hard"].update(dra_quota_hard(cluster.pools, pool_class, zero=not own))
