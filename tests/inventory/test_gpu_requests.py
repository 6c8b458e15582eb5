"""docs/design.md section 6: every form of "requests a GPU", read by the one shared reader."""
import pytest

from nodepools.inventory.dra import read_index
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.values import UNKNOWN
from nodepools.vocabulary import is_gpu_resource


def pod(*containers, init=()):
    spec = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    return spec


def c(requests=None, limits=None):
    return {"name": "c", "resources": {k: v for k, v in (("requests", requests), ("limits", limits)) if v}}


@pytest.mark.parametrize("name, expected", [
    ("nvidia.com/gpu", True), ("nvidia.com/gpu.shared", True), ("nvidia.com/mig-1g.10gb", True),
    ("nvidia.com/mig-3g.40gb", True), ("nvidia.com/mig-", False), ("nvidia.com/gpu.present", False),
    ("amd.com/gpu", False), ("cpu", False)])
def test_gpu_resource_names(name, expected):
    assert is_gpu_resource(name) is expected


@pytest.mark.parametrize("spec, expected", [
    pytest.param(pod(c(limits={"nvidia.com/gpu": "1"})), True, id="limits only"),
    pytest.param(pod(c(requests={"nvidia.com/gpu.shared": 1.0})), True, id="shared (time-sliced) name"),
    pytest.param(pod(c(limits={"nvidia.com/mig-1g.10gb": "2"})), True, id="a MIG profile"),
    pytest.param(pod(c(requests={"cpu": "1"}), init=[c(limits={"nvidia.com/gpu": "1"})]), True, id="init container"),
    pytest.param(pod(c(requests={"cpu": "1"}), c(limits={"nvidia.com/gpu": "1"})), True, id="second container"),
    pytest.param(pod(c(limits={"nvidia.com/gpu": "0"})), False, id="zero is no request"),
    pytest.param(pod(c(requests={"cpu": "1", "example.com/gpu": "1"})), False, id="another vendor's resource"),
    pytest.param(pod(c(limits={"nvidia.com/gpu": UNKNOWN})), UNKNOWN, id="an unknown quantity"),
    pytest.param(pod(c(limits={"nvidia.com/gpu": "1"}), UNKNOWN), True, id="a definite request beside an unknown"),
    pytest.param(pod(c(requests={"cpu": "1"}), UNKNOWN), UNKNOWN, id="an unknown container may request one"),
    pytest.param(UNKNOWN, UNKNOWN, id="an unknown pod spec"),
])
def test_requests_gpu(spec, expected):
    assert requests_gpu(spec, read_index([])) is expected
