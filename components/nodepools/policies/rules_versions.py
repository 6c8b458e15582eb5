"""``cluster-version``: the configured minimum, and every feature the stack uses
that its cluster's version lacks (docs/design.md section 7; the table is
``nodepools.spec.kube_versions``)."""
from __future__ import annotations

from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.gangs import is_native_scheduling_type
from nodepools.inventory.values import as_dict, as_list, dig, is_unknown
from nodepools.policies.base import Finding, Res, one_per_resource, subject_of
from nodepools.policies.rules_pools import _MINOR, _VERSION_FIELD
from nodepools.policies.rules_pools import check_cluster_version as check_cluster_version_minimum
from nodepools.policies.settings import Settings
from nodepools.policies.stack_view import StackView
from nodepools.spec.kube_versions import DRA_EXTENDED_RESOURCE, DRA_V1, NATIVE_GANG, NATIVE_SIDECARS, Feature, minor


def _dra_uses(res: Res) -> Iterator[tuple[Feature, str]]:
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


def _clusters(stack: StackView) -> dict[str, tuple[Res, str]]:
    """Cluster key (as placement keys it) -> (resource, version) for clusters with a known minor."""
    out = {}
    for res in stack.clusters:
        version = res.props.get(_VERSION_FIELD[res.type])
        if isinstance(version, str) and _MINOR.match(version):
            name = res.props.get("name")
            out[name if isinstance(name, str) else res.urn] = (res, version)
    return out


@one_per_resource
def check_cluster_version(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Clusters at least at minClusterVersion, and new enough for each feature in use."""
    for res in stack.clusters:
        yield from check_cluster_version_minimum(res, settings)
    clusters = _clusters(stack)
    owner = stack.placement_stack.workload_cluster
    uses: list[tuple[Res, Any, Feature, str]] = []
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
