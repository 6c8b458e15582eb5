"""``cluster-version``, the whole rule: each EKS/GKE cluster runs at least the configured
``minClusterVersion``, is in its cloud's standard support on the stack model's ``today`` (the
pack config's ``today``, default the run's UTC date; docs/design.md section 8, "Facts that age"), and is new enough for every feature the stack
uses that needs a newer minor (section 7; both tables are ``nodepools.spec.kube_versions``)."""
from __future__ import annotations

import re
from datetime import date
from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.gangs import is_native_scheduling_type
from nodepools.inventory.values import as_dict, as_list, dig, is_unknown
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView
from nodepools.spec.kube_versions import (DRA_EXTENDED_RESOURCE, DRA_V1, NATIVE_GANG, NATIVE_SIDECARS,
                                          PAST_STANDARD_SUPPORT, Feature, in_standard_support, minor,
                                          oldest_in_standard_support, standard_support_end)

# Where each cluster type states its Kubernetes version (the provider's input name).
VERSION_FIELD = {v.TYPE_EKS_CLUSTER: "version", v.TYPE_GKE_CLUSTER: "minMasterVersion"}
CLOUD_OF = {v.TYPE_EKS_CLUSTER: v.Cloud.AWS, v.TYPE_GKE_CLUSTER: v.Cloud.GCP}
SERVICE = {v.Cloud.AWS: "EKS", v.Cloud.GCP: "GKE"}
_MINOR = re.compile(r"^(\d+)\.(\d+)")


def check_minimum(res: Resource, settings: Settings, today: date) -> Iterator[Finding]:
    """An EKS/GKE cluster runs at least the configured minimum minor version, one in its
    cloud's standard support on ``today``."""
    field = VERSION_FIELD.get(res.type)
    if field is None:
        return
    version = res.props.get(field)
    subject = subject_of(res.type, res.name)
    if is_unknown(version):
        yield unknown(res.urn, subject, field)
        return
    match = _MINOR.match(version) if isinstance(version, str) else None
    if match is None:  # unset or a channel alias ("latest"): the cloud picks a supported version
        return
    problems, target = [], None
    wanted = tuple(int(x) for x in settings.min_cluster_version.split("."))
    if (int(match.group(1)), int(match.group(2))) < wanted:
        problems.append(f"is older than the minimum {settings.min_cluster_version}")
        target = settings.min_cluster_version
    cloud = CLOUD_OF[res.type]
    end, exact = standard_support_end(cloud, version)
    if end is not None and not in_standard_support(cloud, version, today):
        problems.append(f"left {SERVICE[cloud]} standard support {'on' if exact else 'before'} {end.isoformat()}: "
                        f"{PAST_STANDARD_SUPPORT[cloud]}")
        live = oldest_in_standard_support(cloud, today)
        target = max((m for m in (target, live) if m), key=minor, default=None)
    if problems:
        fix = f"set {field} to {target} or newer" if target else f"set {field} to a minor in standard support"
        yield Finding(res.urn, subject, field, f"version {version} {' and '.join(problems)}",
                      f"{fix} (upgrade one minor version at a time)")


def _dra_uses(res: Resource) -> Iterator[tuple[Feature, str]]:
    if res.type in v.DRA_TYPES:
        yield DRA_V1, "apiVersion"
        if res.type == v.TYPE_DRA_DEVICE_CLASS and dig(res.props, "spec", "extendedResourceName") is not None:
            yield DRA_EXTENDED_RESOURCE, "spec.extendedResourceName"


def _pod_uses(spec: Any, where: str) -> Iterator[tuple[Feature, str]]:
    if as_list(dig(spec, "resourceClaims")):
        yield DRA_V1, f"{where}.resourceClaims"
    if isinstance(dig(spec, "schedulingGroup"), dict):
        yield NATIVE_GANG, f"{where}.schedulingGroup"
    for i, container in enumerate(as_list(dig(spec, "initContainers"))):
        if as_dict(container).get("restartPolicy") == "Always":
            yield NATIVE_SIDECARS, f"{where}.initContainers[{i}].restartPolicy"
            break


def _clusters(stack: StackView) -> dict[str, tuple[Resource, str]]:
    """Cluster key (as placement keys it) -> (resource, version) for clusters with a known minor."""
    out = {}
    for res in stack.clusters:
        version = res.props.get(VERSION_FIELD[res.type])
        if isinstance(version, str) and _MINOR.match(version):
            name = res.props.get("name")
            out[name if isinstance(name, str) else res.urn] = (res, version)
    return out


@one_per_resource
def check_cluster_version(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Clusters at least at minClusterVersion, and new enough for each feature in use."""
    for res in stack.clusters:
        yield from check_minimum(res, settings, stack.today)
    clusters = _clusters(stack)
    owner = stack.membership.workload_cluster
    uses: list[tuple[Resource, Any, Feature, str]] = []
    for ref in stack.workloads:
        for t in ref.workload.templates:
            uses += [(ref.res, ref.namespace, f, path) for f, path in _pod_uses(t.spec, "pod spec")]
    for res in stack.resources:
        uses += [(res, res.k8s_namespace if res.type != v.TYPE_DRA_DEVICE_CLASS else None, f, path)
                 for f, path in _dra_uses(res)]
        if is_native_scheduling_type(res.type):
            uses.append((res, res.k8s_namespace, NATIVE_GANG, "apiVersion"))
    for res, namespace, feature, path in uses:
        key = owner.get(res.urn)
        if key is None or is_unknown(key):
            key = next(iter(clusters)) if len(stack.clusters) == 1 and clusters else None
        if key not in clusters:
            continue
        cluster, version = clusters[key]
        if minor(version) < minor(feature.since):
            name = cluster.props.get("name", cluster.name)
            yield Finding(res.urn, subject_of(res.type, res.k8s_name if isinstance(res.k8s_name, str) else res.name,
                                              namespace), path,
                          f"uses {feature.title}, which needs Kubernetes {feature.since}; cluster '{name}' runs "
                          f"{version}", f"upgrade cluster '{name}' to {feature.since} or newer, or stop using it",
                          namespace)
