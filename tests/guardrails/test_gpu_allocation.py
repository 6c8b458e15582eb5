"""The default GPU allocation per cloud and minor (guardrails/gpu_allocation.py, docs/design.md section 11.4):
EKS keeps the device plugin through 1.36 and takes NVIDIA's DRA driver from 1.37 (KEP-5004 GA, NVIDIA's chart
guard lifted); GKE always keeps its own device plugin. A named allocation always wins."""
import pytest

from nodepools.guardrails.gpu_allocation import DRA_SINCE, default_allocation, resolved_allocation
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.kube_versions import DRA_EXTENDED_RESOURCE
from nodepools.vocabulary import Cloud, GpuAllocation

DP, DRA = GpuAllocation.DEVICE_PLUGIN, GpuAllocation.DRA


@pytest.mark.parametrize("cloud, minor, expected", [
    *((Cloud.AWS, m, DP) for m in SUPPORTED_KUBERNETES_VERSIONS),
    (Cloud.AWS, "1.37", DRA), (Cloud.AWS, "1.38", DRA),
    *((Cloud.GCP, m, DP) for m in (*SUPPORTED_KUBERNETES_VERSIONS, "1.37", "1.38")),
])
def test_the_default_per_cloud_and_minor(cloud, minor, expected):
    assert default_allocation(cloud, minor) is expected
    assert resolved_allocation(None, cloud, minor) is expected
    assert resolved_allocation(DRA, cloud, minor) is DRA and resolved_allocation(DP, cloud, minor) is DP


def test_dra_is_offered_from_the_minor_that_maps_extended_resources():
    assert DRA_SINCE == DRA_EXTENDED_RESOURCE.since == "1.36"
