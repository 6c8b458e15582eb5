"""Constructing through the provider registers what the Python API registers for the same config.

The wire inputs are what a TypeScript program sends (``new nodepools.EksPlatform("p", {...})``):
camelCase keys, every number a double, the Kubernetes provider a resource reference.
"""
import pytest

from nodepools.spec.contract import workload_contract
from nodepools.spec.pool import PoolSpec

from multilang_configs import EKS_POOLS, EKS_WIRE, GKE_WIRE, eks_python, gke_python
from multilang_harness import as_python_api, python_api

CASES = {"EksPlatform": (EKS_WIRE, eks_python), "GkePlatform": (GKE_WIRE, gke_python)}


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
@pytest.mark.parametrize("component", sorted(CASES))
def test_construct_registers_the_python_apis_resources(construct, component, preview):
    wire, build = CASES[component]
    got = construct(component, wire, preview=preview)
    assert got.error is None, got.error
    expected = as_python_api(python_api(build, preview=preview), f"nodepools:index:{component}")
    actual = as_python_api(got.run, f"nodepools:index:{component}")
    assert sorted(actual) == sorted(expected)
    assert [urn for urn in expected if actual[urn] != expected[urn]] == []
    assert len(expected) > 20  # pools, their cloud resources, the guardrails' objects and charts


@pytest.mark.parametrize("component", sorted(CASES))
def test_the_wrapper_is_the_platforms_parent_and_the_guardrails_use_the_given_provider(construct, component):
    got = construct(component, CASES[component][0])
    (wrapper,) = got.run.of_type(f"nodepools:index:{component}")
    (platform,) = got.run.of_type("nodepools:platform:Platform")
    assert (wrapper.name, platform.name, platform.parent) == ("p", "p", wrapper.urn)
    assert got.urn == wrapper.urn
    # The program's provider, sent as a resource reference, deploys every in-cluster object.
    (k8s_provider,) = got.run.of_type("pulumi:providers:kubernetes")
    in_cluster = [r for r in got.run.resources if r.type.startswith("kubernetes:")]
    assert len(in_cluster) > 5 and {r.provider for r in in_cluster} == {f"{k8s_provider.urn}::k8s-id"}


def test_outputs_a_typescript_program_gets_back(construct):
    got = construct("EksPlatform", EKS_WIRE)
    pools = {p["name"]: PoolSpec.model_validate(p) for p in EKS_POOLS}
    assert sorted(got.state) == ["localQueues", "namespaces", "pools"]
    assert sorted(got.state["pools"]) == ["jobs", "train", "web"]
    jobs = got.state["pools"]["jobs"]
    assert jobs["poolClass"] == "batch"
    assert jobs["contract"] == workload_contract(pools["jobs"]).as_dict()
    assert jobs["contract"]["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "batch", "effect": "NoSchedule"},
        {"key": "example.com/noisy", "operator": "Exists", "effect": "NoExecute"}]
    assert jobs["contract"]["nodeSelector"] == {"nodepools.io/pool": "jobs"}
    assert jobs["taints"] == [t.as_k8s() for t in pools["jobs"].node_taints]
    assert jobs["labels"]["nodepools.io/pool"] == "jobs" and jobs["labels"]["nodepools.io/capacity"] == "spot"
    assert got.state["pools"]["web"]["labels"]["tier"] == "web"
    assert got.state["namespaces"] == {"resident": "services", "batch": "batch", "gpu-training": "ml"}
    assert got.state["localQueues"] == {"batch": "batch", "gpu-training": "gpu-training"}
    assert got.state["pools"]["train"]["labels"]["k8s.amazonaws.com/accelerator"] == "nvidia-a100"  # the cloud's
