"""Constructing through the provider registers what the Python API registers for the same config.

The wire inputs are what a TypeScript program sends (``new nodepools.EksPlatform("p", {...})``):
camelCase keys, every number a double, the Kubernetes provider a resource reference.
"""
import pytest

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform
from nodepools.spec.contract import workload_contract
from nodepools.spec.pool import PoolSpec

OIDC_ARN = "arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"
OIDC_URL = "https://oidc.eks.us-west-2.amazonaws.com/id/ABC"

EKS_WIRE = {
    "clusterName": "demo", "region": "us-west-2", "subnetIds": ["subnet-a", "subnet-b"],
    "clusterSecurityGroupId": "sg-cluster", "oidcProviderArn": OIDC_ARN, "oidcIssuerUrl": OIDC_URL,
    "tags": {"team": "platform"},
    "pools": [
        {"name": "web", "poolClass": "resident", "instanceTypes": ["m6i.xlarge"], "minNodes": 2.0, "maxNodes": 6.0,
         "labels": {"tier": "web"}},
        {"name": "jobs", "poolClass": "batch", "instanceTypes": ["c6i.2xlarge"], "maxNodes": 10.0, "capacity": "spot",
         "taints": [{"key": "example.com/noisy", "effect": "NoExecute"}]},
        {"name": "train", "poolClass": "gpu-training", "instanceTypes": ["p4d.24xlarge"], "maxNodes": 4.0,
         "diskSizeGib": 500.0},
    ],
    "guardrails": {"batchQuotaShare": 0.45, "kubernetesVersion": "1.34", "namespaces": {"gpu-training": "ml"},
                   "alerts": {"ruleLabels": {"release": "kube-prometheus"}, "forMinutes": 10.0},
                   "limitRange": {"defaultLimitMemoryMib": 2048.0}},
}
# The same config as the Python API spells it.
EKS_POOLS = [
    {"name": "web", "pool_class": "resident", "instance_types": ["m6i.xlarge"], "min_nodes": 2, "max_nodes": 6,
     "labels": {"tier": "web"}},
    {"name": "jobs", "pool_class": "batch", "instance_types": ["c6i.2xlarge"], "max_nodes": 10, "capacity": "spot",
     "taints": [{"key": "example.com/noisy", "effect": "NoExecute"}]},
    {"name": "train", "pool_class": "gpu-training", "instance_types": ["p4d.24xlarge"], "max_nodes": 4,
     "disk_size_gib": 500},
]
EKS_GUARDRAILS = {"batch_quota_share": 0.45, "kubernetes_version": "1.34", "namespaces": {"gpu-training": "ml"},
                  "alerts": {"rule_labels": {"release": "kube-prometheus"}, "for_minutes": 10},
                  "limit_range": {"default_limit_memory_mib": 2048}}

GKE_WIRE = {
    "clusterName": "demo", "project": "acme-ml-prod", "location": "us-central1",
    "defaultZones": ["us-central1-a", "us-central1-b"], "resourceLabels": {"team": "ml"},
    "gpuDriverVersion": "LATEST",
    "pools": [
        {"name": "web", "poolClass": "resident", "instanceTypes": ["n2-standard-4"], "maxNodes": 4.0},
        {"name": "infer", "poolClass": "gpu-inference", "instanceTypes": ["g2-standard-8"], "maxNodes": 2.0,
         "zones": ["us-central1-a"]},
    ],
    "guardrails": {"kueue": "off", "quotaPriorityClassScopes": True},
}
GKE_POOLS = [
    {"name": "web", "pool_class": "resident", "instance_types": ["n2-standard-4"], "max_nodes": 4},
    {"name": "infer", "pool_class": "gpu-inference", "instance_types": ["g2-standard-8"], "max_nodes": 2,
     "zones": ["us-central1-a"]},
]


def eks_python(k8s_provider):
    cluster = EksCluster("demo", ["subnet-a", "subnet-b"], cluster_security_group_id="sg-cluster",
                         oidc_provider_arn=OIDC_ARN, oidc_issuer_url=OIDC_URL, tags={"team": "platform"})
    return Platform("p", cluster, {"pools": EKS_POOLS, "guardrails": EKS_GUARDRAILS, "region": "us-west-2"},
                    k8s_provider)


def gke_python(k8s_provider):
    cluster = GkeCluster("demo", location="us-central1", project="acme-ml-prod",
                         default_zones=["us-central1-a", "us-central1-b"], resource_labels={"team": "ml"},
                         gpu_driver_version="LATEST")
    return Platform("p", cluster, {"pools": GKE_POOLS, "guardrails": {"kueue": "off",
                                                                       "quota_priority_class_scopes": True}},
                    k8s_provider)


CASES = {"EksPlatform": (EKS_WIRE, eks_python), "GkePlatform": (GKE_WIRE, gke_python)}


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "update"])
@pytest.mark.parametrize("component", sorted(CASES))
def test_construct_registers_the_python_apis_resources(construct, python_api, as_python_api, component, preview):
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
