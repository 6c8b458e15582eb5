"""DRA (resource.k8s.io/v1): a pod whose claim targets a GPU device class requests a GPU in every rule."""
import pytest

from nodepools.inventory.dra import claims_gpu, device_class_is_gpu, read_index
from nodepools.inventory.resource import Resource
from nodepools.spec.kube_versions import minor

from policy_builders import CURRENT_MINOR, GPU, fired, golden, template_spec

DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
CLAIM = "kubernetes:resource.k8s.io/v1:ResourceClaim"


def device_class(name: str, expression: str) -> Resource:
    return Resource.of(DEVICE_CLASS, name, {"metadata": {"name": name},
                                            "spec": {"selectors": [{"cel": {"expression": expression}}]}})


def claim_template(name: str, ns: str, device_class_name: str) -> Resource:
    return Resource.of(CLAIM_TEMPLATE, name, {"metadata": {"name": name, "namespace": ns}, "spec": {"spec": {
        "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": device_class_name}}]}}}})


GPU_CLASS = device_class("gpu.nvidia.com", "device.driver == 'gpu.nvidia.com'")
NIC_CLASS = device_class("fast-nic", "device.driver == 'nic.example.com'")


@pytest.mark.parametrize("expression, expected", [
    ("device.driver == 'gpu.nvidia.com'", True),
    ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].productName == 'NVIDIA L4'", True),
    ("device.driver == 'nic.example.com'", False),
])
def test_a_device_class_is_a_gpu_class_when_a_selector_names_the_nvidia_driver(expression, expected):
    assert device_class_is_gpu({"spec": {"selectors": [{"cel": {"expression": expression}}]}}) is expected


@pytest.mark.parametrize("pod_claims, resources, extra, expected", [
    ([{"name": "g", "resourceClaimTemplateName": "one-gpu"}], [GPU_CLASS, claim_template("one-gpu", "inference",
                                                                                          "gpu.nvidia.com")], (), True),
    ([{"name": "g", "resourceClaimTemplateName": "one-nic"}], [NIC_CLASS, claim_template("one-nic", "inference",
                                                                                          "fast-nic")], (), False),
    # The pack config's gpuDeviceClasses makes any class a GPU class.
    ([{"name": "g", "resourceClaimTemplateName": "one-nic"}], [NIC_CLASS, claim_template("one-nic", "inference",
                                                                                          "fast-nic")],
     ("fast-nic",), True),
    ([{"name": "g", "resourceClaimName": "shared"}], [GPU_CLASS, Resource.of(CLAIM, "shared", {
        "metadata": {"name": "shared", "namespace": "inference"}, "spec": {"devices": {"requests": [
            {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "gpu.nvidia.com"}]}]}}})], (), True),
    ([{"name": "g", "resourceClaimTemplateName": "elsewhere"}], [GPU_CLASS], (), False),
])
def test_claims_resolve_through_templates_and_claims_to_device_classes(pod_claims, resources, extra, expected):
    assert claims_gpu({"resourceClaims": pod_claims}, index=read_index(resources, extra)) is expected


def dra_llm(fixture):
    """The golden stack's inference Deployment asking for its GPU through a DRA claim instead of nvidia.com/gpu."""
    def change(props):
        spec = template_spec(props)
        del spec["containers"][0]["resources"]["requests"][GPU]
        del spec["containers"][0]["resources"]["limits"][GPU]
        spec["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    return fixture.edit("llm", change)


def on_a_dra_minor(fixture):
    """A cluster new enough for DRA (1.34+) and in standard support on every date the suite judges by."""
    assert minor(CURRENT_MINOR) >= minor("1.34")
    return fixture.edit("prod", lambda p: p.update(version=CURRENT_MINOR))


def test_a_dra_gpu_pod_on_the_gpu_pool_is_compliant_over_grpc(check):
    fixture = on_a_dra_minor(dra_llm(golden()).add(GPU_CLASS, claim_template("one-gpu", "inference", "gpu.nvidia.com")))
    assert fired(check(fixture)) == set()


def test_the_same_pod_whose_class_is_not_a_gpu_class_is_a_gpu_node_squatter(check):
    fixture = on_a_dra_minor(dra_llm(golden()).add(NIC_CLASS, claim_template("one-gpu", "inference", "fast-nic")))
    llm = fixture.urn("llm")
    assert {p for p, urn in fired(check(fixture)) if urn == llm} == {"gpu-nodes-gpu-only", "gpu-toleration-needs-gpu"}


def test_gpu_device_classes_config_makes_a_class_a_gpu_class(check):
    fixture = on_a_dra_minor(dra_llm(golden()).add(NIC_CLASS, claim_template("one-gpu", "inference", "fast-nic")))
    config = {name: {"gpuDeviceClasses": ["fast-nic"]} for name in ("gpu-nodes-gpu-only", "gpu-toleration-needs-gpu")}
    assert fired(check(fixture, config)) == set()
