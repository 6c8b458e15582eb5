"""Every stack runs its real program under mocks and registers exactly what its config says."""
import json
from collections import Counter

import pytest

from nodepools.vocabulary import COMPONENT_NODE_POOL, COMPONENT_PLATFORM, TYPE_EKS_NODE_GROUP, TYPE_GKE_NODE_POOL

STACKS = ("aws-dev", "aws-prod", "gcp-dev")


@pytest.fixture
def runs(stack_runs):
    return stack_runs


def one(run, type_, name):
    matches = [r for r in run.of_type(type_) if r.name == name]
    assert len(matches) == 1, (type_, name, len(matches))
    return matches[0]


def eks(run, name):
    return one(run, "aws:eks/cluster:Cluster", name)


def counts(run) -> Counter:
    return Counter(r.type for r in run.resources)


def test_aws_dev_creates_a_private_encrypted_cluster_with_irsa(runs):
    run = runs["aws-dev"]
    cluster = eks(run, "np-aws-dev")
    assert cluster.inputs["vpcConfig"] == {"subnetIds": ["subnet-0a1b2c3d4e5f60701", "subnet-0a1b2c3d4e5f60702"],
                                           "endpointPrivateAccess": True, "endpointPublicAccess": False}
    assert cluster.inputs["encryptionConfig"]["resources"] == ["secrets"]
    assert cluster.inputs["accessConfig"] == {"authenticationMode": "API",
                                              "bootstrapClusterCreatorAdminPermissions": False}
    assert (cluster.inputs["version"], cluster.inputs["deletionProtection"]) == ("1.35", False)
    assert run.named("np-aws-dev-secrets").inputs["enableKeyRotation"] is True
    assert run.named("np-aws-dev-oidc").inputs["clientIdLists"] == ["sts.amazonaws.com"]
    provider = run.named("np-aws-dev-k8s")
    assert provider.type == "pulumi:providers:kubernetes" and cluster.urn in provider.dependencies
    assert run.invokes == []  # no data source: previews without credentials


def test_aws_dev_registers_one_pool_per_config_entry(runs):
    run = runs["aws-dev"]
    groups = {r.name: r.inputs for r in run.of_type(TYPE_EKS_NODE_GROUP)}
    assert {name: (g["capacityType"], g["scalingConfig"]["minSize"], g["scalingConfig"]["maxSize"],
                   g["instanceTypes"]) for name, g in groups.items()} == {
        "np-aws-dev-system": ("ON_DEMAND", 2.0, 4.0, ["m7i.xlarge"]),
        "np-aws-dev-batch": ("SPOT", 0.0, 6.0, ["c7i.2xlarge", "c6i.2xlarge"]),
        "np-aws-dev-inference": ("ON_DEMAND", 1.0, 2.0, ["g6.xlarge"]),
        "np-aws-dev-training": ("SPOT", 0.0, 2.0, ["g6.12xlarge"]),
    }
    platform = run.of_type(COMPONENT_PLATFORM)
    assert [p.name for p in platform] == ["np-aws-dev"]
    assert {p.parent for p in run.of_type(COMPONENT_NODE_POOL)} == {platform[0].urn}


def test_prod_is_larger_with_more_zones_and_two_inference_nodes(runs):
    dev, prod = runs["aws-dev"], runs["aws-prod"]
    assert len(eks(prod, "np-aws-prod").inputs["vpcConfig"]["subnetIds"]) == 3
    assert eks(prod, "np-aws-prod").inputs["deletionProtection"] is True
    inference = one(prod, TYPE_EKS_NODE_GROUP, "np-aws-prod-inference").inputs["scalingConfig"]
    assert inference["minSize"] >= 2
    total = lambda run: sum(g.inputs["scalingConfig"]["maxSize"] for g in run.of_type(TYPE_EKS_NODE_GROUP))
    assert total(prod) > total(dev)
    assert one(prod, TYPE_EKS_NODE_GROUP, "np-aws-prod-training").inputs["subnetIds"] == ["subnet-0f1e2d3c4b5a69701"]
    assert counts(prod)["aws:ec2/placementGroup:PlacementGroup"] == 1


def test_gcp_dev_creates_a_private_gke_cluster_with_workload_identity(runs):
    run = runs["gcp-dev"]
    cluster = one(run, "gcp:container/cluster:Cluster", "np-gcp-dev").inputs
    assert cluster["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": True,
                                               "masterIpv4CidrBlock": "172.16.0.0/28"}
    assert cluster["workloadIdentityConfig"] == {"workloadPool": "nodepools-dev-4821.svc.id.goog"}
    assert (cluster["enableShieldedNodes"], cluster["releaseChannel"], cluster["removeDefaultNodePool"]) == (
        True, {"channel": "REGULAR"}, True)
    assert cluster["ipAllocationPolicy"] == {"clusterSecondaryRangeName": "pods",
                                             "servicesSecondaryRangeName": "services"}
    assert cluster["nodeLocations"] == ["us-central1-a", "us-central1-b"]
    pools = {r.name: r.inputs for r in run.of_type(TYPE_GKE_NODE_POOL)}
    assert sorted(pools) == ["np-gcp-dev-batch", "np-gcp-dev-inference", "np-gcp-dev-system", "np-gcp-dev-training"]
    assert pools["np-gcp-dev-batch"]["nodeConfig"]["spot"] is True
    assert run.invokes == []


@pytest.mark.parametrize("stack, expected", [
    # The warm inference pools add nodepools-overprovisioning and the nodepools-warm quota (design.md section 9.4).
    ("aws-dev", {"aws:eks/cluster:Cluster": 1, TYPE_EKS_NODE_GROUP: 4, "aws:ec2/launchTemplate:LaunchTemplate": 4,
                 "kubernetes:scheduling.k8s.io/v1:PriorityClass": 5, "kubernetes:core/v1:ResourceQuota": 5,
                 "pulumi:providers:kubernetes": 1, COMPONENT_NODE_POOL: 4}),
    ("gcp-dev", {"gcp:container/cluster:Cluster": 1, TYPE_GKE_NODE_POOL: 4, "aws:eks/cluster:Cluster": 0,
                 "kubernetes:scheduling.k8s.io/v1:PriorityClass": 5, "pulumi:providers:kubernetes": 1}),
])
def test_counts_per_type(runs, stack, expected):
    found = counts(runs[stack])
    assert {t: found[t] for t in expected} == expected


def test_guardrails_deploy_through_the_cluster_provider(runs):
    run = runs["aws-dev"]
    provider = run.named("np-aws-dev-k8s").urn
    k8s = [r for r in run.resources if r.custom and r.type.startswith("kubernetes:")]
    assert k8s and all(r.provider.startswith(provider + "::") for r in k8s)


@pytest.mark.parametrize("stack", STACKS)
def test_outputs_give_each_pool_class_taints_labels_and_contract(runs, stack):
    outputs = runs[stack].outputs
    pools = outputs["pools"]
    assert sorted(pools) == ["batch", "inference", "system", "training"]
    inference = pools["inference"]
    assert inference["poolClass"] == "gpu-inference"
    assert inference["nodeTaints"] == [
        {"key": "nodepools.io/pool-class", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert inference["nodeLabels"]["nodepools.io/pool"] == "inference"
    assert inference["contract"]["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert inference["contract"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "nodepools.io/pool", "operator": "In", "values": ["inference"]}]}]}
    assert pools["system"]["nodeTaints"] == [] and pools["system"]["contract"]["tolerations"] == []
    assert outputs["layout"]["chosen"] == "specialized" and outputs["layout"]["agrees"] is True


def test_update_run_resolves_the_kubeconfig_from_cluster_outputs(stack_config, run_stack):
    run, error = run_stack(stack_config("aws-dev"), stack="aws-dev", preview=False)
    assert error is None
    kubeconfig = json.loads(run.named("np-aws-dev-k8s").inputs["kubeconfig"])
    assert kubeconfig["clusters"][0]["cluster"]["server"] == "https://np-aws-dev.gr7.us-west-2.eks.amazonaws.com"
    assert kubeconfig["users"][0]["user"]["exec"]["args"] == [
        "eks", "get-token", "--cluster-name", "np-aws-dev", "--region", "us-west-2", "--output", "json"]


def test_attach_mode_registers_no_cluster_and_wires_the_named_one(stack_config, run_stack):
    raw = stack_config("aws-dev")
    raw["nodepools:cluster"] = {
        "cloud": "aws", "name": "existing-eks", "mode": "attach", "region": "us-west-2",
        "subnet_ids": ["subnet-0a1b2c3d4e5f60701", "subnet-0a1b2c3d4e5f60702"],
        "cluster_security_group_id": "sg-0123456789abcdef0", "kubeconfig_context": "existing-eks-admin",
        "oidc_provider_arn": "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC",
        "oidc_issuer_url": "https://oidc.eks.us-west-2.amazonaws.com/id/ABC"}
    run, error = run_stack(raw)
    assert error is None, error
    assert counts(run)["aws:eks/cluster:Cluster"] == 0 and counts(run)[TYPE_EKS_NODE_GROUP] == 4
    assert run.named("existing-eks-k8s").inputs["context"] == "existing-eks-admin"
    assert {g.inputs["clusterName"] for g in run.of_type(TYPE_EKS_NODE_GROUP)} == {"existing-eks"}
    assert run.outputs["cluster"]["mode"] == "attach"
