"""The Platform component: validate everything, then pools + autoscaler identity + guardrails."""
import json

import pulumi_kubernetes as k8s
import pytest
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.guardrails import spec as spec_module
from nodepools.offline.engine import Run, run_program, run_program_capture
from nodepools.spec import describe
from nodepools import vocabulary as v


def platform_program(cluster, args):
    def program():
        Platform("p", cluster, args, k8s.Provider("k8s", kubeconfig="fake"))
    return program


def ca_values(run: Run) -> dict:
    (ca,) = [r for r in run.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "cluster-autoscaler"]
    return ca.inputs["values"]


def test_platform_registers_pools_identity_then_guardrails(aws_pools, fake_cluster):
    cluster = fake_cluster()
    run = run_program(platform_program(cluster, {"pools": aws_pools}), preview=False)
    (platform,) = run.of_type(v.COMPONENT_PLATFORM)
    pools = {r.name: r for r in run.of_type(v.COMPONENT_NODE_POOL)}
    assert sorted(pools) == ["p-infer", "p-jobs", "p-train", "p-web"]
    assert all(r.parent == platform.urn for r in pools.values())
    assert cluster.identity_calls == [("kube-system", "cluster-autoscaler")]
    (guardrails,) = run.of_type(v.COMPONENT_GUARDRAILS)
    assert guardrails.parent == platform.urn
    # The add-ons need nodes to run on: the guardrails wait for every pool's resources.
    pool_resources = {c.urn for p in pools.values() for c in run.children_of(p.urn) if c.custom}
    assert len(pool_resources) == 4 and set(guardrails.dependencies) >= pool_resources
    assert ca_values(run)["rbac"]["serviceAccount"]["annotations"] == {
        "eks.amazonaws.com/role-arn": cluster.ROLE_ARN}
    assert ca_values(run)["awsRegion"] == "us-west-2"  # from the target's region attribute


def test_platform_args_region_wins_over_the_target(aws_pools, fake_cluster):
    run = run_program(platform_program(fake_cluster(region=None), {"pools": aws_pools, "region": "eu-west-1"}))
    assert ca_values(run)["awsRegion"] == "eu-west-1"


def rejected(program) -> list[str]:
    run, error = run_program_capture(program)
    assert isinstance(error, ValidationError), error
    assert [r for r in run.resources if r.type != "pulumi:providers:kubernetes"] == []
    return describe(error)


@pytest.mark.parametrize("guardrails, expected", [
    ({"batch_quota_share": 0.65}, "guardrails.batch_quota_share: batch_quota_share must be between 0.40 and 0.60 "
     "(the batch namespace's share of the resident and batch pools' cpu and memory), got 0.65"),
    ({"namespaces": {"gpu-inference": "batch"}}, "guardrails.namespaces['gpu-inference']: namespace 'batch' is "
     "already the batch namespace; each workload class needs its own namespace (its quota and LimitRange differ)"),
    ({"namespaces": {"gpu-inference": "serving"}}, "guardrails.namespaces['gpu-inference']: namespace 'serving' is "
     "configured for class gpu-inference, but the cluster has no gpu-inference pool (pools: web (resident), "
     "jobs (batch)); add a gpu-inference pool or remove namespaces['gpu-inference']"),
])
def test_bad_guardrails_register_nothing(aws_pools, fake_cluster, guardrails, expected):
    args = {"pools": aws_pools[:2], "guardrails": guardrails}
    assert rejected(platform_program(fake_cluster(), args)) == [expected]


def test_pool_set_cloud_rules_and_region_are_reported_together(aws_pools, fake_cluster):
    web = aws_pools[0]
    second = web.model_copy(update={"name": "api", "labels": {fake_cluster.REJECTED_LABEL: "x"}})
    assert rejected(platform_program(fake_cluster(region=None), {"pools": [web, second]})) == [
        "pools[1].dedicated: pool 'api' is the second untainted pool (pools[0] is the first): only one default "
        "resident pool may stay untainted; set dedicated: true",
        "pools[1].labels['fake.example/reject']: the fake cloud rejects this label"]
    assert rejected(platform_program(fake_cluster(region=None), {"pools": [web]})) == [
        "region: cluster-autoscaler on aws needs the cluster's region (its chart otherwise defaults to us-east-1 "
        "and would find no node groups)"]


def test_platform_args_name_guardrail_problems_by_config_path(aws_pools):
    with pytest.raises(ValidationError) as info:
        PlatformArgs(pools=aws_pools[:2], guardrails={"kueue": "on"})
    assert describe(info.value) == [
        "guardrails.kueue: kueue 'on' needs a gpu-training pool: Kueue queues distributed training and its "
        "ClusterQueue's GPU quota is the training pools' max GPUs (here 0); use 'auto' or 'off' (pools: "
        "web (resident), jobs (batch))"]


def test_on_eks_the_autoscaler_assumes_the_irsa_role_the_backend_registers(aws_pools):
    cluster = EksCluster("prod", ["subnet-0000000a", "subnet-0000000b"], node_security_group_ids=["sg-0123456789abcdef0"],
                         oidc_provider_arn="arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/X",
                         oidc_issuer_url="https://oidc.eks.us-west-2.amazonaws.com/id/X")
    run = run_program(platform_program(cluster, {"pools": aws_pools, "region": "us-west-2"}), preview=False)
    (platform,) = run.of_type(v.COMPONENT_PLATFORM)
    roles = [r for r in run.of_type("aws:iam/role:Role") if r.parent == platform.urn]
    (role,) = [r for r in roles if "cluster-autoscaler" in r.name]
    assert ":serviceaccount:kube-system:cluster-autoscaler" in str(role.inputs["assumeRolePolicy"])
    assert ca_values(run)["rbac"]["serviceAccount"]["annotations"] == {
        "eks.amazonaws.com/role-arn": f"arn:aws:iam::123456789012:role/{role.name}"}
    # Least privilege: the role may scale only groups tagged as this cluster's.
    (policy,) = [r for r in run.of_type("aws:iam/rolePolicy:RolePolicy") if r.parent == platform.urn]
    scale = [s for s in json.loads(policy.inputs["policy"])["Statement"] if "autoscaling:SetDesiredCapacity" in s["Action"]]
    assert scale == [{"Sid": "ScaleOwnGroups", "Effect": "Allow", "Resource": "*", "Action": [
        "autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
        "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/prod": "owned"}}}]
    assert len(run.of_type(v.TYPE_EKS_NODE_GROUP)) == 4
    assert sorted(r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)) == [
        "cluster-autoscaler", "kueue", "nvidia-device-plugin"]


def test_on_gke_no_identity_no_device_plugin_no_autoscaler(gcp_pools):
    cluster = GkeCluster("main", location="us-central1", project="my-project")
    run = run_program(platform_program(cluster, {"pools": gcp_pools}))
    assert len(run.of_type(v.TYPE_GKE_NODE_POOL)) == 4
    assert [r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)] == ["kueue"]
    assert not [r for r in run.resources if "cluster-autoscaler" in r.name]
    assert sorted(r.inputs["metadata"]["name"] for r in run.of_type(v.TYPE_NAMESPACE)) == [
        "batch", "inference", "services", "training"]


def test_gke_checks_run_before_anything_registers(gcp_pools):
    cluster = GkeCluster("main", location="us-central1", project="my-project")
    bad = gcp_pools[1].model_copy(update={"zones": ["europe-west1-b"]})
    errors = rejected(platform_program(cluster, {"pools": [gcp_pools[0], bad]}))
    assert errors and all(e.startswith("pools[1].") for e in errors)


def test_an_identity_the_target_refuses_stops_before_anything_registers(aws_pools):
    cluster = EksCluster("prod", ["subnet-0000000a", "subnet-0000000b"], node_security_group_ids=["sg-0123456789abcdef0"])
    run, error = run_program_capture(platform_program(cluster, {"pools": aws_pools, "region": "us-west-2"}))
    assert isinstance(error, ValidationError)
    assert describe(error) == [
        "cluster.oidc_provider_arn: EksCluster(oidc_provider_arn=...) is required for the cluster-autoscaler's IRSA "
        "role: give the cluster's IAM OIDC provider ARN and issuer URL",
        "cluster.oidc_issuer_url: EksCluster(oidc_issuer_url=...) is required for the cluster-autoscaler's IRSA "
        "role: give the cluster's IAM OIDC provider ARN and issuer URL"]
    # Only the program's own Kubernetes provider, created before the Platform: not even the component.
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]


def test_eks_on_kubernetes_1_36_gets_the_newest_1_36_autoscaler(aws_pools):
    run = run_program(platform_program(_eks(), {"pools": aws_pools, "region": "us-west-2",
                                                "guardrails": {"kubernetes_version": "1.36"}}))
    assert ca_values(run)["image"] == {"tag": "v1.36.1"}


def test_eks_on_a_kubernetes_version_without_a_known_autoscaler_release_needs_an_explicit_image(aws_pools,
                                                                                             monkeypatch):
    # A supported minor the vendored release table lacks (a refresh that dropped it).
    monkeypatch.delitem(spec_module.AUTOSCALER_IMAGE_BY_KUBERNETES, "1.36")
    args = {"pools": aws_pools, "region": "us-west-2", "guardrails": {"kubernetes_version": "1.36"}}
    assert rejected(platform_program(_eks(), args)) == [
        "guardrails.charts.cluster_autoscaler_image: no cluster-autoscaler release is known for Kubernetes 1.36 "
        "(known: 1.32, 1.33, 1.34, 1.35); set the image tag of the autoscaler release for 1.36 (v1.36.PATCH)"]
    pinned = {**args, "guardrails": {"kubernetes_version": "1.36", "charts": {"cluster_autoscaler_image": "v1.36.0"}}}
    run = run_program(platform_program(_eks(), pinned))
    assert ca_values(run)["image"] == {"tag": "v1.36.0"}


def _eks() -> EksCluster:
    return EksCluster("prod", ["subnet-0000000a"], node_security_group_ids=["sg-0123456789abcdef0"],
                      oidc_provider_arn="arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/X",
                      oidc_issuer_url="https://oidc.eks.us-west-2.amazonaws.com/id/X")


def test_gke_needs_no_autoscaler_image_on_any_version(gcp_pools):
    cluster = GkeCluster("main", location="us-central1", project="my-project")
    run = run_program(platform_program(cluster, {"pools": gcp_pools, "guardrails": {"kubernetes_version": "1.36"}}))
    assert len(run.of_type(v.TYPE_GKE_NODE_POOL)) == 4
