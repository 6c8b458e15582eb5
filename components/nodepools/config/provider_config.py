"""The cloud provider's own config must agree with the cluster's (docs/design.md section 10).

A stack names its cluster's region twice: ``nodepools:cluster.region`` (read by the
autoscaler chart, the kubeconfig, the outputs, the partition of every ARN) and the
provider's ``aws:region`` (where the default AWS provider creates every resource). When
they differ, the cluster, roles and node groups go to one region while the autoscaler,
kubeconfig and outputs say the other. Decision: refuse, naming both keys, before anything
registers, rather than silently letting one win. On AWS ``aws:region`` is required: unset,
the provider takes the region of the deployer's environment (``AWS_REGION``), which no
preview can see. On GCP every resource names its project and location itself, so the
provider's ``gcp:project``/``gcp:region``/``gcp:zone`` may stay unset, but when set they
must say the same.
"""
from __future__ import annotations

from typing import Callable

from nodepools.clouds.gcp import is_zone, region_of
from nodepools.clouds.regions import gcp_location_error
from nodepools.clouds.cluster_settings import EksClusterConfig, GkeClusterConfig
from nodepools.vocabulary import Cloud

# ``namespace:key`` -> its value in the stack's config (None when unset).
Setting = Callable[[str], "str | None"]


def provider_config_problems(cluster: EksClusterConfig | GkeClusterConfig, setting: Setting) -> list[str]:
    """One ``key: why`` line per provider setting that disagrees with ``cluster``."""
    if Cloud(cluster.cloud) is Cloud.AWS:
        return _aws(cluster, setting)  # type: ignore[arg-type]
    return _gcp(cluster, setting)  # type: ignore[arg-type]


def _aws(cluster: EksClusterConfig, setting: Setting) -> list[str]:
    region = setting("aws:region")
    if region is None:
        return [f"aws:region: not set; set it to the cluster's region {cluster.region!r} (nodepools:cluster.region): "
                "unset, the AWS provider takes the deployer's environment's region (AWS_REGION) and the cluster's "
                "resources could go to another region than the one the autoscaler and kubeconfig name"]
    if region != cluster.region:
        return [f"aws:region: {region!r} differs from nodepools:cluster.region {cluster.region!r}: the AWS provider "
                "would create the cluster's resources in one region while the autoscaler, kubeconfig and outputs "
                "name the other; make them equal"]
    return []


def _gcp(cluster: GkeClusterConfig, setting: Setting) -> list[str]:
    problems = []
    project = setting("gcp:project")
    if project is not None and project != cluster.project:
        problems.append(f"gcp:project: {project!r} differs from nodepools:cluster.project {cluster.project!r}; make "
                        "them equal (or leave gcp:project unset: every resource names the cluster's project)")
    if gcp_location_error(cluster.location) is not None:
        return problems  # the location itself is refused, by the cluster's own check
    region = setting("gcp:region")
    if region is not None and region != region_of(cluster.location):
        problems.append(f"gcp:region: {region!r} is not the region of nodepools:cluster.location "
                        f"{cluster.location!r} ({region_of(cluster.location)}); make them agree (or leave gcp:region "
                        "unset)")
    zone = setting("gcp:zone")
    if zone is not None and is_zone(cluster.location) and zone != cluster.location:
        problems.append(f"gcp:zone: {zone!r} differs from the zonal cluster's nodepools:cluster.location "
                        f"{cluster.location!r}; make them equal (or leave gcp:zone unset)")
    return problems
