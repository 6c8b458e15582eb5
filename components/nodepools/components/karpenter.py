"""The ``Karpenter`` component: Karpenter's cloud side and its Helm release, for one cluster's Karpenter pools.

Registered by ``Platform`` after the managed node groups (the controller runs on
the system pool) and before the Karpenter pools, whose NodePools and
EC2NodeClasses wait for the release that installs their CRDs. With
``addons.karpenter.existing`` the cluster runs Karpenter already: only the node
role, its instance profile and access entry are created (our EC2NodeClasses
need them), no controller role, queue or release.
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from nodepools.guardrails import karpenter as chart
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.cluster import ClusterPools
from nodepools.vocabulary import COMPONENT_KARPENTER


class Karpenter(pulumi.ComponentResource):
    """Attributes: ``infra`` (``KarpenterInfra``), ``release`` (the Helm release, None when existing)."""

    def __init__(self, resource_name: str, cluster: Any, pools: ClusterPools, spec: GuardrailsSpec, region: str,
                 k8s_provider: k8s.Provider, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(COMPONENT_KARPENTER, resource_name, None, opts)
        install = spec.addons.karpenter.install
        self.infra = cluster.register_karpenter(chart.NAMESPACE, chart.SERVICE_ACCOUNT, region, parent=self,
                                                controller=install)
        self.release = None
        depends: list[pulumi.Resource] = []
        if install:
            release = chart.karpenter_release(pools, spec, cluster.cluster_name, self.infra.queue_name,
                                              self.infra.controller_role_arn)
            self.release = k8s.helm.v3.Release(
                f"{resource_name}-chart", name=release.release_name, chart=release.chart.name,
                version=release.version, namespace=release.namespace, values=release.values,
                opts=pulumi.ResourceOptions(parent=self, provider=k8s_provider))
            depends.append(self.release)
        cluster.bind_karpenter(cluster.karpenter_binding(k8s_provider, self.infra, depends))
        self.register_outputs({"chartVersion": release.version if install else None,
                               "instanceProfile": self.infra.instance_profile_name})
