"""Feature-aware cluster-version over gRPC: each feature in use names itself, its user and the version it needs."""
import pytest

from nodepools.inventory.resource import Resource
from nodepools.policies.registry import BY_NAME
from nodepools.spec.kube_versions import (END_OF_SUPPORT, FEATURES, SUPPORTED_KUBERNETES_VERSIONS,
                                          oldest_in_standard_support)
from nodepools.vocabulary import Cloud

from policy_builders import fired, golden, template_spec
from suite_dates import PINNED

# These judge which feature needs which minor on a day its older minors are still in standard support
# on EKS (1.35 until 2027-03-27; test_cluster_version_support.py judges the calendar itself): the day
# the calendars were read, whatever the suite's date.
ON = PINNED
LIVE_EKS = oldest_in_standard_support(Cloud.AWS, ON)
CONFIG = {"cluster-version": {"today": ON.isoformat()}}

DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"


def test_every_supported_minor_has_an_end_of_support_and_every_feature_a_source():
    assert tuple(END_OF_SUPPORT) == SUPPORTED_KUBERNETES_VERSIONS
    assert {f.key: f.since for f in FEATURES} == {"dra-v1": "1.34", "dra-extended-resource": "1.36",
                                                   "native-sidecars": "1.29", "native-gang": "1.36"}
    assert all(f.source.startswith("kubernetes/enhancements: keps/") for f in FEATURES)
    assert BY_NAME["cluster-version"].scope == "stack"


def with_sidecar(fixture):
    def change(props):
        template_spec(props)["initContainers"] = [{"name": "proxy", "image": "registry.example/proxy:1",
                                                   "restartPolicy": "Always"}]
    return fixture.edit("api", change)


def gpu_class(extended: bool) -> Resource:
    spec = {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}
    if extended:
        spec["extendedResourceName"] = "nvidia.com/gpu"
    return Resource.of(DEVICE_CLASS, "gpu", {"metadata": {"name": "gpu"}, "spec": spec})


def version_messages(diags) -> list[str]:
    # A diagnostic is the policy description, a newline, then the finding.
    return sorted(d.message.split("\n", 1)[1] for d in diags if d.policy == "cluster-version" and not d.cannot_judge)


@pytest.mark.parametrize("version, expected", [
    ("1.28", ["Deployment 'api' in namespace 'services': pod spec.initContainers[0].restartPolicy: uses native "
              "sidecar containers (init container restartPolicy: Always), which needs Kubernetes 1.29; cluster "
              "'prod' runs 1.28. Fix: upgrade cluster 'prod' to 1.29 or newer, or stop using it",
              "aws:eks/cluster:Cluster 'prod': version: version 1.28 is older than the minimum 1.32 and left EKS "
              "standard support before 2025-03-23: EKS extended support is billed per cluster-hour. Fix: set "
              f"version to {LIVE_EKS} or newer (upgrade one minor version at a time)"]),
    # 1.29 serves sidecars; only its age is reported (the minimum is lowered to 1.28).
    ("1.29", ["aws:eks/cluster:Cluster 'prod': version: version 1.29 left EKS standard support on 2025-03-23: EKS "
              f"extended support is billed per cluster-hour. Fix: set version to {LIVE_EKS} or newer (upgrade one "
              "minor version at a time)"]),
])
def test_native_sidecars_need_129(check, version, expected):
    fixture = with_sidecar(golden()).edit("prod", lambda p: p.update(version=version))
    config = {"cluster-version": {"minClusterVersion": "1.28", "today": ON.isoformat()}} if version == "1.29" \
        else CONFIG
    assert version_messages(check(fixture, config)) == expected


def test_dra_device_class_on_133_names_the_feature_and_the_version(check):
    fixture = golden().add(gpu_class(extended=False)).edit("prod", lambda p: p.update(version="1.33"))
    assert version_messages(check(fixture, CONFIG)) == [
        "DeviceClass 'gpu': apiVersion: uses Dynamic Resource Allocation (resource.k8s.io/v1), which needs "
        "Kubernetes 1.34; cluster 'prod' runs 1.33. Fix: upgrade cluster 'prod' to 1.34 or newer, or stop using it",
        "aws:eks/cluster:Cluster 'prod': version: version 1.33 left EKS standard support on 2026-07-29: EKS extended "
        f"support is billed per cluster-hour. Fix: set version to {LIVE_EKS} or newer (upgrade one minor version at "
        "a time)"]
    assert fired(check(fixture.edit("prod", lambda p: p.update(version="1.35")), CONFIG)) == set()


def test_dra_extended_resource_needs_136(check):
    fixture = golden().add(gpu_class(extended=True)).edit("prod", lambda p: p.update(version="1.35"))
    assert version_messages(check(fixture, CONFIG)) == [
        "DeviceClass 'gpu': spec.extendedResourceName: uses DRA extended resource "
        "(DeviceClass.spec.extendedResourceName), which needs Kubernetes 1.36; cluster 'prod' runs 1.35. Fix: "
        "upgrade cluster 'prod' to 1.36 or newer, or stop using it"]
