"""The ``Guardrails`` component: registers the plan of ``nodepools.guardrails`` through one Kubernetes provider.

Only pulumi-kubernetes here (no cloud SDK): typed resources for built-in
objects, ``helm.v3.Release`` for the pinned add-ons, ``CustomResource`` for
Kueue and the PrometheusRule. Custom resources depend on the release that
installs their CRDs and webhooks; namespaced objects depend on their namespace.
Everything is validated before ``super().__init__``, so bad input registers nothing.
"""
from __future__ import annotations

from typing import Any, Sequence

import pulumi
import pulumi_kubernetes as k8s

from nodepools.components.providers import kubernetes_provider_problem
from nodepools.components.validated import ValidatedPlatform
from nodepools.guardrails.addons import HelmRelease
from nodepools.guardrails.checks import AlarmRegistrar, addon_problems, alarm_problems, guardrail_problems
from nodepools.guardrails.plan import GuardrailsPlan, guardrails_plan
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.vocabulary import COMPONENT_GUARDRAILS, WARM_NAMESPACE, Cloud, PoolClass


class Guardrails(pulumi.ComponentResource):
    """PriorityClasses, namespaces with quotas and LimitRanges, the cloud's add-ons,
    Kueue and the throttling alerts of one cluster.

    ``autoscaler_role_arn`` annotates the autoscaler's service account (IRSA on
    EKS; None leaves it unannotated, e.g. for EKS Pod Identity). ``region`` is
    required where the cloud's autoscaler chart needs it (EKS). Outputs:
    ``namespaces`` (class -> name), ``local_queues`` (class -> queue name),
    ``releases`` (key -> Helm release), ``plan`` (the built objects). ``validated`` (from ``validate_platform``) skips the
    checks it already covers. ``register_alarms`` registers the CloudWatch alarms of the
    ``cloudwatch`` alert backend (required with it; ``EksCluster.register_alarms``);
    ``plan.alerts_where`` says where the alerts are evaluated. ``installed_crds``: resources
    that install CRDs the guardrails' custom resources use (``Platform`` passes the Karpenter
    release, whose chart ships the CapacityBuffer CRD).
    """

    plan: GuardrailsPlan

    def __init__(self, resource_name: str, pools: ClusterPools, spec: GuardrailsSpec, cloud: Cloud,
                 cluster_name: pulumi.Input[str], k8s_provider: k8s.Provider,
                 autoscaler_role_arn: pulumi.Input[str] | None = None, region: pulumi.Input[str] | None = None,
                 opts: pulumi.ResourceOptions | None = None, *, validated: ValidatedPlatform | None = None,
                 register_alarms: AlarmRegistrar | None = None,
                 installed_crds: Sequence[pulumi.Resource] = ()) -> None:
        problems = Problems()
        if (why := kubernetes_provider_problem(k8s_provider, "k8s_provider")) is not None:
            problems.add("k8s_provider", why, None)
        if validated is None or not validated.covers_guardrails(pools, spec, Cloud(cloud)):
            addon_problems(Cloud(cloud), pools, region, problems, spec=spec)
            alarm_problems(spec, Cloud(cloud), register_alarms, problems)
            guardrail_problems(spec, pools.pools, problems, ("spec",))
        problems.raise_if_any("Guardrails")
        plan = guardrails_plan(pools, spec, cluster_name, region, autoscaler_role_arn)
        super().__init__(COMPONENT_GUARDRAILS, resource_name, None, opts)
        self.plan = plan
        self._name = resource_name
        self._provider = k8s_provider
        self.priority_class_resources = {
            o["metadata"]["name"]: self._typed(k8s.scheduling.v1.PriorityClass, f"pc-{o['metadata']['name']}", o)
            for o in plan.priority_classes}
        self.namespace_resources = {c: self._typed(k8s.core.v1.Namespace, f"ns-{c.value}", o)
                                    for c, o in plan.namespaces.items()}
        for c, o in plan.resource_quotas:
            self._typed(k8s.core.v1.ResourceQuota, f"quota-{c.value}-{o['metadata']['name']}", o,
                        [self.namespace_resources[c]])
        for c, o in plan.limit_ranges:
            self._typed(k8s.core.v1.LimitRange, f"limits-{c.value}", o, [self.namespace_resources[c]])
        # Kueue and the autoscaler enable their ProvisioningRequest support only if the API is served
        # when they start (nodepools.guardrails.provisioning): the CRD goes first.
        crd = [self._typed(k8s.apiextensions.v1.CustomResourceDefinition, "crd-provisioningrequests",
                           plan.provisioning_crd)] if plan.provisioning_crd is not None else []
        self.releases = {r.key: self._release(r, crd if r.key in ("kueue", "cluster-autoscaler") else [])
                         for r in plan.releases}
        self._register_kueue(plan)
        # nodepools' own DeviceClasses (per MIG profile, gpu_allocation dra); the driver's chart publishes its own.
        for o in plan.device_classes:
            self._typed(k8s.resource.v1.DeviceClass, f"deviceclass-{o['metadata']['name']}", o)
        if plan.prometheus_rule is not None:
            ns = [self.namespace_resources[plan.alerts_class]] if plan.alerts_class else []
            self._custom("alerts-cpu-contention", plan.prometheus_rule, ns)
        if plan.cloudwatch_alarms and register_alarms is not None:
            register_alarms(plan.cloudwatch_alarms, self)
        self._register_warm(plan, list(installed_crds))
        self.namespaces = {c.value: o["metadata"]["name"] for c, o in plan.namespaces.items()}
        self.local_queues = {c.value: o["metadata"]["name"] for c, o in plan.local_queues}
        self.register_outputs({
            "namespaces": self.namespaces,
            "localQueues": self.local_queues,
            "priorityClasses": {c["metadata"]["name"]: c["value"] for c in plan.priority_classes},
            "releases": {r.key: {"chart": r.chart.name, "version": r.version} for r in plan.releases},
            "alerts": plan.alerts_where,
        })

    def _opts(self, depends_on: Sequence[pulumi.Resource] = ()) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, provider=self._provider, depends_on=list(depends_on))

    def _typed(self, cls: Any, suffix: str, obj: dict[str, Any],
               depends_on: Sequence[pulumi.Resource] = ()) -> pulumi.CustomResource:
        fields = {_snake(k): val for k, val in obj.items() if k not in ("apiVersion", "kind")}
        return cls(f"{self._name}-{suffix}", opts=self._opts(depends_on), **fields)

    def _custom(self, suffix: str, obj: dict[str, Any],
                depends_on: Sequence[pulumi.Resource] = ()) -> k8s.apiextensions.CustomResource:
        return k8s.apiextensions.CustomResource(
            f"{self._name}-{suffix}", api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"],
            spec=obj["spec"], opts=self._opts(depends_on))

    def _release(self, release: HelmRelease, depends_on: Sequence[pulumi.Resource] = ()) -> k8s.helm.v3.Release:
        repository = k8s.helm.v3.RepositoryOptsArgs(repo=release.chart.repository) if release.chart.repository else None
        return k8s.helm.v3.Release(
            f"{self._name}-{release.key}", name=release.release_name, chart=release.chart.name,
            version=release.version, repository_opts=repository, namespace=release.namespace,
            create_namespace=release.create_namespace, values=release.values, opts=self._opts(depends_on))

    def _register_kueue(self, plan: GuardrailsPlan) -> None:
        if not plan.local_queues:
            return
        # An existing Kueue (addons.kueue.existing) has no release to wait for.
        kueue = [self.releases["kueue"]] if "kueue" in self.releases else []
        topologies = [self._custom(f"topology-{o['metadata']['name']}", o, kueue) for o in plan.topologies]
        flavors = [self._custom(f"flavor-{o['metadata']['name']}", o, kueue + topologies)
                   for o in plan.resource_flavors]
        configs = [self._custom(f"provisioningconfig-{o['metadata']['name']}", o, kueue)
                   for o in plan.provisioning_configs]
        checks = [self._custom(f"admissioncheck-{o['metadata']['name']}", o, kueue + configs)
                  for o in plan.admission_checks]
        queues: dict[PoolClass, pulumi.Resource] = {
            c: self._custom(f"clusterqueue-{c.value}", o, kueue + flavors + checks) for c, o in plan.cluster_queues}
        for c, o in plan.local_queues:
            self._custom(f"localqueue-{c.value}", o, [queues[c], self.namespace_resources[c]])

    def _register_warm(self, plan: GuardrailsPlan, installed_crds: list[pulumi.Resource]) -> None:
        """Warm capacity (guardrails/warm_objects.py): its namespace and quota, then per pool a PodTemplate
        and a CapacityBuffer (after the CRD that serves it) or a placeholder Deployment."""
        warm = plan.warm
        if warm is None:
            return
        ns = self._typed(k8s.core.v1.Namespace, "ns-warm", warm.namespace)
        quota = self._typed(k8s.core.v1.ResourceQuota, "quota-warm", warm.quota, [ns])
        ready = [ns, quota, self.priority_class_resources[warm.priority_class["metadata"]["name"]]]
        crds = list(installed_crds)
        if warm.crd is not None:
            crds.append(k8s.apiextensions.v1.CustomResourceDefinition(
                f"{self._name}-crd-capacitybuffers", metadata=warm.crd["metadata"], spec=warm.crd["spec"],
                opts=self._opts()))
        for o in warm.pod_templates:
            self._typed(k8s.core.v1.PodTemplate, f"warm-template-{_pool_of(o)}", o, ready)
        for o in warm.buffers:
            self._custom(f"warm-buffer-{_pool_of(o)}", o, ready + crds)
        for o in warm.placeholders:
            self._typed(k8s.apps.v1.Deployment, f"warm-placeholder-{_pool_of(o)}", o, ready)


def _pool_of(obj: dict[str, Any]) -> str:
    """The pool a warm object serves (its name is ``nodepools-warm-<pool>``)."""
    return str(obj["metadata"]["name"]).removeprefix(f"{WARM_NAMESPACE}-")


def _snake(name: str) -> str:
    return "".join(f"_{ch.lower()}" if ch.isupper() else ch for ch in name)
