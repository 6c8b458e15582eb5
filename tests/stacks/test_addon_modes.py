"""Add-ons an existing cluster already runs: enabled: false / existing: true per add-on, the GPU
Operator, and contradictions refused by config path before anything registers."""
import pytest

from nodepools.config import StackConfigError

RELEASE = "kubernetes:helm.sh/v3:Release"


def releases(run):
    return sorted(r.inputs["name"] for r in run.of_type(RELEASE))


def with_addons(config, **addons):
    config["nodepools:guardrails"] = {"addons": addons}
    return config


def test_defaults_install_every_addon(stack_runs):
    assert releases(stack_runs["aws-dev"]) == ["cluster-autoscaler", "kueue", "nvidia-device-plugin"]


def test_gpu_operator_means_no_device_plugin(stack_config, run_stack):
    run, error = run_stack(with_addons(stack_config("aws-dev"), gpu_operator=True))
    assert error is None
    assert releases(run) == ["cluster-autoscaler", "kueue"]


def test_existing_addons_are_not_installed_but_kueue_objects_still_are(stack_config, run_stack):
    config = with_addons(stack_config("aws-dev"), device_plugin={"existing": True},
                         cluster_autoscaler={"existing": True}, kueue={"existing": True})
    run, error = run_stack(config)
    assert error is None
    assert releases(run) == []
    # No autoscaler identity either; Kueue's queues are built against the running Kueue.
    assert not [r for r in run.resources if "cluster-autoscaler" in r.name]
    assert sorted(r.inputs["metadata"]["name"] for r in run.of_type(
        "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue")) == ["batch", "gpu-training"]


def test_disabled_kueue_builds_no_queues(stack_config, run_stack):
    run, error = run_stack(with_addons(stack_config("aws-dev"), kueue={"enabled": False}))
    assert error is None
    assert releases(run) == ["cluster-autoscaler", "nvidia-device-plugin"]
    assert not run.of_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")


def test_existing_karpenter_gets_node_role_and_pools_but_no_controller(stack_config, run_stack):
    run, error = run_stack(with_addons(stack_config("aws-karpenter"), karpenter={"existing": True}))
    assert error is None
    assert "karpenter" not in releases(run)
    assert not run.of_type("aws:sqs/queue:Queue")
    assert not [r for r in run.of_type("aws:iam/role:Role") if r.name.endswith("-controller")]
    assert len(run.of_type("kubernetes:karpenter.sh/v1:NodePool")) == 3
    # The Karpenter node role's entry, beside the cluster admin's.
    assert sorted(r.inputs["type"] for r in run.of_type("aws:eks/accessEntry:AccessEntry")) == ["EC2_LINUX", "STANDARD"]


def test_managed_group_that_autoscales_brings_cluster_autoscaler_back(stack_config, run_stack):
    config = stack_config("aws-karpenter")
    config["nodepools:pools"][0]["max_nodes"] = 4
    run, error = run_stack(config)
    assert error is None
    assert releases(run) == ["cluster-autoscaler", "karpenter", "kueue", "nvidia-device-plugin"]


def karpenter_pool(config, i, **fields):
    config["nodepools:pools"][i].update(fields)
    if fields.get("provisioner") == "karpenter":  # Karpenter keeps no minimum: min_nodes is refused there
        config["nodepools:pools"][i].pop("min_nodes", None)
    return config


@pytest.mark.parametrize("stack,edit,line", [
    ("aws-karpenter", lambda c: with_addons(c, karpenter={"enabled": False}),
     "nodepools:guardrails.addons.karpenter.enabled: pools ['batch', 'inference', 'training'] have provisioner "
     "'karpenter', but Karpenter is disabled; set addons.karpenter.existing: true if the cluster runs it, or "
     "provisioner: managed on those pools"),
    ("aws-dev", lambda c: with_addons(c, device_plugin={"enabled": False}),
     "nodepools:guardrails.addons.device_plugin.enabled: GPU pools ['inference', 'training'] need the NVIDIA device "
     "plugin (without it no node advertises nvidia.com/gpu), but it is disabled and gpu_operator is false; set "
     "addons.device_plugin.existing: true or addons.gpu_operator: true if the cluster runs one"),
    ("aws-dev", lambda c: with_addons(c, kueue={"existing": True, "enabled": False}),
     "nodepools:guardrails.addons.kueue.existing: existing: true says the cluster runs the add-on, enabled: false "
     "that it does not; set one of them"),
    ("aws-dev", lambda c: c.update({"nodepools:guardrails": {"kueue": "on", "addons": {"kueue": {"enabled": False}}}}),
     "nodepools:guardrails.addons.kueue.enabled: kueue 'on' asks for Kueue's queues, but addons.kueue.enabled is "
     "false; set kueue: off, or addons.kueue.existing: true"),
    ("aws-karpenter", lambda c: karpenter_pool(c, 0, provisioner="karpenter"),
     "nodepools:pools[0].provisioner: pool 'system' is the cluster's system pool (its resident pool, where the "
     "add-ons and the Karpenter controller run) and must be a managed node group: Karpenter must not provision the "
     "nodes it runs on; set provisioner: managed, or add a resident pool with provisioner: managed"),
    ("gcp-dev", lambda c: karpenter_pool(c, 1, provisioner="karpenter"),
     "nodepools:pools[1].provisioner: provisioner 'karpenter' is for EKS clusters only (this cluster is on gcp; "
     "allowed here: managed)"),
    ("aws-karpenter", lambda c: karpenter_pool(c, 1, provisioner="fargate"),
     "nodepools:pools[1].provisioner: Input should be 'managed' or 'karpenter'"),
])
def test_contradictions_are_refused_by_config_path_and_register_nothing(stack_config, run_stack, stack, edit, line):
    config = stack_config(stack)
    edit(config)
    run, error = run_stack(config)
    assert isinstance(error, StackConfigError), error
    assert line in error.lines
    assert run.resources == []
