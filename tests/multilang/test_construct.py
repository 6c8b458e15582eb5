"""Constructing through the provider registers what the Python API registers for the same config.

The wire inputs are what a TypeScript program sends (``new nodepools.EksPlatform("p", {...})``):
camelCase keys, every number a double, the Kubernetes provider a resource reference.
"""
import pytest
from pulumi.runtime.rpc import UNKNOWN

from nodepools.backends.aws import EksCluster
from nodepools.components.platform import Platform
from nodepools.spec.contract import workload_contract
from nodepools.spec.pool import PoolSpec

from multilang_configs import (EKS_GUARDRAILS, EKS_POOLS, EKS_WIRE, GKE_WIRE, OIDC_URL, eks_python,
                              gke_python)
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
    # The program's provider, sent as a resource reference, deploys every in-cluster object (a new
    # provider's id is unknown in a preview: the reference carries the unknown id, as the engine's).
    (k8s_provider,) = got.run.of_type("pulumi:providers:kubernetes")
    in_cluster = [r for r in got.run.resources if r.type.startswith("kubernetes:")]
    assert len(in_cluster) > 5 and {r.provider for r in in_cluster} == {f"{k8s_provider.urn}::{UNKNOWN}"}


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
    assert jobs["nodeTaints"] == [t.as_k8s() for t in pools["jobs"].node_taints]
    assert jobs["nodeLabels"]["nodepools.io/pool"] == "jobs" and jobs["nodeLabels"]["nodepools.io/capacity"] == "spot"
    assert got.state["pools"]["web"]["nodeLabels"]["tier"] == "web"
    assert got.state["namespaces"] == {"resident": "services", "batch": "batch", "gpu-training": "ml"}
    assert got.state["localQueues"] == {"batch": "batch", "gpu-training": "gpu-training"}
    assert got.state["pools"]["train"]["nodeLabels"]["k8s.amazonaws.com/accelerator"] == "nvidia-a100"  # the cloud's


def other_resources():
    """The rest of a consuming program: a cluster, its security group and OIDC provider (their outputs feed
    the component), returned as the Python API and the wire spell them."""
    import pulumi_aws as aws
    cluster = aws.eks.Cluster("demo", name="demo", role_arn="arn:aws:iam::111122223333:role/eks",
                              vpc_config={"subnet_ids": ["subnet-a", "subnet-b"]})
    group = aws.ec2.SecurityGroup("cluster-sg", vpc_id="vpc-1")
    oidc = aws.iam.OpenIdConnectProvider("oidc", url=OIDC_URL, client_id_lists=["sts.amazonaws.com"])
    return cluster.name, group.id, oidc.arn


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
def test_ids_may_be_other_resources_outputs(construct, preview):
    """Outputs travel with their dependencies (the OIDC ARN is unknown in a preview): the node groups
    wait for the cluster, as with the Python API."""
    def wire_program():
        name, group, oidc_arn = other_resources()
        return {"clusterName": name, "clusterSecurityGroupId": group, "oidcProviderArn": oidc_arn}

    def python_program(k8s_provider):
        name, group, oidc_arn = other_resources()
        target = EksCluster(name, ["subnet-a", "subnet-b"], cluster_security_group_id=group,
                            oidc_provider_arn=oidc_arn, oidc_issuer_url=OIDC_URL, tags={"team": "platform"})
        Platform("p", target, {"pools": EKS_POOLS, "guardrails": EKS_GUARDRAILS, "region": "us-west-2"}, k8s_provider)

    got = construct("EksPlatform", EKS_WIRE, preview=preview, program=wire_program)
    assert got.error is None, got.error
    expected = as_python_api(python_api(python_program, preview=preview), "nodepools:index:EksPlatform")
    actual = as_python_api(got.run, "nodepools:index:EksPlatform")
    assert sorted(actual) == sorted(expected)
    assert [urn for urn in expected if actual[urn] != expected[urn]] == []
    (cluster,) = got.run.of_type("aws:eks/cluster:Cluster")
    node_groups = got.run.of_type("aws:eks/nodeGroup:NodeGroup")
    assert len(node_groups) == 3 and all(cluster.urn in g.property_dependencies["clusterName"] for g in node_groups)


def test_cloud_providers_come_from_the_providers_option(construct):
    """``new EksPlatform("p", args, {providers: {aws: awsProvider}})``: every AWS resource uses it."""
    import pulumi_aws as aws
    got = construct("EksPlatform", EKS_WIRE, providers=lambda: {"aws": aws.Provider("eu", region="eu-west-1")})
    assert got.error is None, got.error
    (provider,) = got.run.of_type("pulumi:providers:aws")
    aws_resources = [r for r in got.run.resources if r.type.startswith("aws:")]
    assert len(aws_resources) > 10 and {r.provider for r in aws_resources} == {f"{provider.urn}::{UNKNOWN}"}


def test_gke_outputs_without_kueue(construct):
    got = construct("GkePlatform", GKE_WIRE)
    assert got.state["namespaces"] == {"resident": "services", "batch": "batch", "gpu-inference": "inference"}
    assert got.state["localQueues"] == {}  # kueue: off
    infer = got.state["pools"]["infer"]
    assert infer["poolClass"] == "gpu-inference"
    assert infer["contract"]["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
