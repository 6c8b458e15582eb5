"""Which add-ons each cloud needs, as a table, and the Helm release shape.

EKS needs the NVIDIA device plugin (AL2023 NVIDIA AMIs ship the driver but not
the plugin) and cluster-autoscaler. GKE installs its own device plugin and runs
its own autoscaler: installing NVIDIA's chart there is wrong, so both are off
(docs/kubernetes-facts.md sections 2 and 3). Add a cloud by adding a row.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodepools.vocabulary import ANNOTATION_IRSA_ROLE_ARN, Cloud


@dataclass(frozen=True)
class CloudAddons:
    nvidia_device_plugin: bool
    cluster_autoscaler: bool
    # cluster-autoscaler chart ``cloudProvider`` value.
    autoscaler_cloud_provider: str | None = None
    # Service-account annotation binding the autoscaler to its cloud identity.
    identity_annotation: str | None = None
    # The chart value holding the region, where the chart needs one (the aws
    # provider reads AWS_REGION from it; the chart's default is us-east-1).
    autoscaler_region_value: str | None = None


CLOUD_ADDONS: dict[Cloud, CloudAddons] = {
    Cloud.AWS: CloudAddons(nvidia_device_plugin=True, cluster_autoscaler=True, autoscaler_cloud_provider="aws",
                           identity_annotation=ANNOTATION_IRSA_ROLE_ARN, autoscaler_region_value="awsRegion"),
    Cloud.GCP: CloudAddons(nvidia_device_plugin=False, cluster_autoscaler=False),
}


@dataclass(frozen=True)
class Chart:
    name: str
    # None for an OCI reference in ``name``.
    repository: str | None


NVIDIA_DEVICE_PLUGIN_CHART = Chart("nvidia-device-plugin", "https://nvidia.github.io/k8s-device-plugin")
CLUSTER_AUTOSCALER_CHART = Chart("cluster-autoscaler", "https://kubernetes.github.io/autoscaler")
KUEUE_CHART = Chart("oci://registry.k8s.io/kueue/charts/kueue", None)


@dataclass(frozen=True)
class HelmRelease:
    """A Helm release as the component registers it (``helm.v3.Release``)."""

    key: str
    release_name: str
    chart: Chart
    version: str
    namespace: str
    values: dict[str, Any] = field(default_factory=dict)
    create_namespace: bool = False
