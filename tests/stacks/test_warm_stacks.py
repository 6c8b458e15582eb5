"""The shipped stacks' warm capacity and node repair (docs/design.md sections 9.4, 9.5), as the engine receives them."""
import pytest

from nodepools import vocabulary as v

BUFFER = v.TYPE_CAPACITY_BUFFER_V1BETA1
DEPLOYMENT, HELM = "kubernetes:apps/v1:Deployment", v.TYPE_HELM_RELEASE
INFERENCE_TOLERATIONS = [
    {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]


BUFFER_CRD = "capacitybuffers.autoscaling.x-k8s.io"


def buffer_crds(run):
    return [r for r in run.of_type(v.TYPE_CRD) if r.inputs["metadata"]["name"] == BUFFER_CRD]


def by_name(run, type_):
    return {r.name: r.inputs for r in run.of_type(type_)}


def autoscaler_args(run, prefix):
    return by_name(run, HELM)[f"{prefix}-guardrails-cluster-autoscaler"]["values"]["extraArgs"]


def at_minor(stack_config, run_stack, stack, minor):
    config = stack_config(stack)
    config["nodepools:cluster"]["kubernetes_version"] = minor
    run, error = run_stack(config)
    assert error is None
    return run


def test_aws_prod_keeps_a_placeholder_on_its_inference_pool_at_1_33(stack_config, run_stack):
    run = at_minor(stack_config, run_stack, "aws-prod", "1.33")
    (placeholder,) = by_name(run, DEPLOYMENT).values()
    assert placeholder["metadata"]["namespace"] == "nodepools-warm" and placeholder["spec"]["replicas"] == 1.0
    pod = placeholder["spec"]["template"]["spec"]
    assert (pod["tolerations"], pod["nodeSelector"], pod["priorityClassName"]) == (
        INFERENCE_TOLERATIONS, {"nodepools.io/pool": "inference"}, "nodepools-overprovisioning")
    assert pod["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "1"}
    assert run.of_type(BUFFER) == [] and run.of_type(v.TYPE_POD_TEMPLATE) == []
    # cluster-autoscaler 1.33 has no buffer controller: its flags are the ones it always had.
    assert not any(k.startswith("capacity-buffer") for k in autoscaler_args(run, "np-aws-prod"))
    quota = by_name(run, v.TYPE_RESOURCE_QUOTA)["np-aws-prod-guardrails-quota-warm"]
    assert quota["spec"]["hard"] == {"requests.nvidia.com/gpu": "1", "pods": "1"}


def test_aws_prod_renders_a_capacity_buffer_and_the_autoscaler_flags_from_1_35(stack_config, run_stack):
    run = at_minor(stack_config, run_stack, "aws-prod", "1.35")
    (buffer,) = run.of_type(BUFFER)
    assert buffer.inputs["spec"] == {"provisioningStrategy": "buffer.x-k8s.io/active-capacity",
                                     "podTemplateRef": {"name": "nodepools-warm-inference"}, "replicas": 1.0}
    (template,) = run.of_type(v.TYPE_POD_TEMPLATE)
    assert template.inputs["template"]["spec"]["tolerations"] == INFERENCE_TOLERATIONS
    (crd,) = [r for r in run.of_type(v.TYPE_CRD) if r.inputs["metadata"]["name"] == BUFFER_CRD]
    assert crd.urn in buffer.dependencies
    args = autoscaler_args(run, "np-aws-prod")
    assert {k: val for k, val in args.items() if k.startswith("capacity-buffer")} == {
        "capacity-buffer-controller-enabled": "true", "capacity-buffer-pod-injection-enabled": "true"}
    rules = by_name(run, HELM)["np-aws-prod-guardrails-cluster-autoscaler"]["values"]["rbac"]["additionalRules"]
    assert rules[0] == {"apiGroups": [""], "resources": ["resourcequotas"], "verbs": ["get", "list", "watch"]}
    assert run.of_type(DEPLOYMENT) == []


@pytest.mark.parametrize("stack", ["aws-dev", "aws-prod", "aws-karpenter"])
def test_every_gpu_node_group_repairs_and_cpu_groups_are_unchanged(stack_config, run_stack, stack):
    run, error = run_stack(stack_config(stack), stack=stack)
    assert error is None
    for name, group in by_name(run, v.TYPE_EKS_NODE_GROUP).items():
        gpu = group["amiType"].endswith("NVIDIA")
        assert group.get("nodeRepairConfig") == ({"enabled": True} if gpu else None), name


def test_aws_karpenter_turns_both_gates_on_and_buffers_its_warm_pool(stack_config, run_stack):
    run, error = run_stack(stack_config("aws-karpenter"), stack="aws-karpenter")
    assert error is None
    karpenter = by_name(run, HELM)["np-aws-karpenter-karpenter-chart"]["values"]["settings"]
    assert karpenter["featureGates"] == {"nodeRepair": True, "capacityBuffer": True}
    (buffer,) = run.of_type(BUFFER)
    # Karpenter's chart ships the CRD: the buffer waits for the release, and no second CRD is installed.
    release = next(r for r in run.of_type(HELM) if r.name == "np-aws-karpenter-karpenter-chart")
    assert release.urn in buffer.dependencies and buffer_crds(run) == []


def test_gcp_dev_repairs_every_pool_and_keeps_warm_capacity_the_gke_way(stack_config, run_stack):
    run = at_minor(stack_config, run_stack, "gcp-dev", "1.33")
    assert {name: pool["management"] for name, pool in by_name(run, v.TYPE_GKE_NODE_POOL).items()} == {
        f"np-gcp-dev-{p}": {"autoRepair": True, "autoUpgrade": True} for p in ("system", "batch", "inference", "training")}
    # 1.33: placeholders (GKE serves buffers from 1.35); GKE runs its own autoscaler, so no release to configure.
    assert [r.inputs["metadata"]["name"] for r in run.of_type(DEPLOYMENT)] == ["nodepools-warm-inference"]
    assert "np-gcp-dev-guardrails-cluster-autoscaler" not in by_name(run, HELM)
    newer = at_minor(stack_config, run_stack, "gcp-dev", "1.35")
    assert [r.inputs["metadata"]["name"] for r in newer.of_type(BUFFER)] == ["nodepools-warm-inference"]
    assert buffer_crds(newer) == [] and newer.of_type(DEPLOYMENT) == []
