"""The shipped stacks' training setup as the engine receives it, and the plan's Training section
(docs/design.md section 9.3): aws-prod and gcp-dev render a Topology whose levels are exactly the
labels their training pools carry, flavors pointing at it, the admission check on the training
ClusterQueue and what serves it; aws-karpenter renders the Topology without the check."""
from pathlib import Path

import pytest

from nodepools import vocabulary as v
from nodepools.clouds.topology import is_topology_label
from nodepools.inventory.pools import read_pool
from nodepools.plan.project import load_project
from nodepools.plan.run import run_stack
from nodepools.plan.model import plan_view
from nodepools.plan.training import training_report
from suite_dates import PINNED

ROOT = Path(__file__).resolve().parents[2]
CHECK = "nodepools-atomic-provisioning"


def training(stack_run):
    """The plan's training section of ``stack_run`` (its stack model on the suite's date)."""
    return training_report(stack_run, plan_view(stack_run.run, PINNED))


@pytest.fixture(scope="module")
def runs():
    project = load_project(ROOT)
    return {stack: run_stack(project, stack) for stack in ("aws-prod", "gcp-dev", "aws-karpenter")}


def one(run, type_token):
    (reg,) = run.of_type(type_token)
    return reg


def training_pool(run):
    pools = [read_pool(r.type, r.inputs, r.urn, r.name) for r in run.resources if r.type in (
        v.TYPE_EKS_NODE_GROUP, v.TYPE_GKE_NODE_POOL, v.TYPE_KARPENTER_NODE_POOL)]
    (pool,) = [p for p in pools if p.pool_class is v.PoolClass.GPU_TRAINING]
    return pool


def training_flavor(run):
    (flavor,) = [r for r in run.of_type(v.TYPE_KUEUE_RESOURCE_FLAVOR)
                 if r.inputs["spec"]["nodeLabels"][v.LABEL_POOL_CLASS] == "gpu-training"]
    return flavor.inputs


def training_queue(run):
    (queue,) = [r for r in run.of_type(v.TYPE_KUEUE_CLUSTER_QUEUE)
                if r.inputs["metadata"]["name"] == "nodepools-gpu-training"]
    return queue.inputs["spec"]


@pytest.mark.parametrize("stack, topology", [("aws-prod", "nodepools-aws-network-3"),
                                             ("gcp-dev", "nodepools-gke-host"),
                                             ("aws-karpenter", "nodepools-aws-network-3")])
def test_the_topology_is_exactly_the_labels_the_training_pool_carries(runs, stack, topology):
    run = runs[stack].run
    levels = [level["nodeLabel"] for level in one(run, v.TYPE_KUEUE_TOPOLOGY).inputs["spec"]["levels"]]
    assert one(run, v.TYPE_KUEUE_TOPOLOGY).inputs["metadata"]["name"] == topology
    assert levels[-1] == v.LABEL_HOSTNAME
    carried = [key for key in training_pool(run).labels if is_topology_label(key)]
    assert levels[:-1] == carried  # broadest first, as the cloud numbers them
    flavor = training_flavor(run)
    assert flavor["spec"]["topologyName"] == topology
    assert [f["name"] for g in training_queue(run)["resourceGroups"] for f in g["flavors"]] == [
        flavor["metadata"]["name"]]


@pytest.mark.parametrize("stack, flags", [("aws-prod", True), ("gcp-dev", False)])
def test_the_admission_check_is_wired_to_the_training_queue(runs, stack, flags):
    run = runs[stack].run
    assert training_queue(run)["admissionChecksStrategy"] == {"admissionChecks": [
        {"name": CHECK, "onFlavors": [training_flavor(run)["metadata"]["name"]]}]}
    assert one(run, v.TYPE_KUEUE_ADMISSION_CHECK).inputs["spec"]["parameters"]["name"] == CHECK
    klass = one(run, v.TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG).inputs["spec"]["provisioningClassName"]
    assert klass == "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    autoscalers = [r for r in run.of_type(v.TYPE_HELM_RELEASE) if r.inputs["chart"] == "cluster-autoscaler"]
    assert bool(autoscalers) is flags  # GKE's autoscaler is built in: no release, no flag, no CRD
    assert bool(run.of_type(v.TYPE_CRD)) is flags
    if flags:
        assert autoscalers[0].inputs["values"]["extraArgs"]["enable-provisioning-requests"] == "true"


def test_karpenter_training_gets_the_topology_without_the_check(runs):
    run = runs["aws-karpenter"].run
    assert "admissionChecksStrategy" not in training_queue(run)
    assert [r for t in (v.TYPE_KUEUE_ADMISSION_CHECK, v.TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG, v.TYPE_CRD)
            for r in run.of_type(t)] == []


def test_the_plan_shows_each_training_pool(runs):
    assert training(runs["aws-prod"])["text"] == [
        "Training (gpu-training pools and multi-pod GPU workloads):",
        "  pool np-aws-prod-training: placement compact (cluster placement group)",
        "    topology: Topology nodepools-aws-network-3: topology.k8s.aws/network-node-layer-1 > "
        "topology.k8s.aws/network-node-layer-2 > topology.k8s.aws/network-node-layer-3 > kubernetes.io/hostname",
        "    gangs provisioned atomically (ClusterQueue nodepools-gpu-training: AdmissionCheck "
        "nodepools-atomic-provisioning, best-effort-atomic-scale-up.autoscaling.x-k8s.io)",
        "  autoscaler: cluster-autoscaler runs with --enable-provisioning-requests=true "
        "--kube-api-content-type=application/json"]
    gke = training(runs["gcp-dev"])
    assert gke["autoscaler"] == "GKE's built-in autoscaler serves ProvisioningRequests (no flag to set)"
    assert gke["pools"][0]["placement"] == "compact (compact placement policy)"
    karpenter = training(runs["aws-karpenter"])["pools"][0]
    assert (karpenter["placement"], karpenter["gangs"]) == (
        "spread (Karpenter launches its nodes without a placement group)",
        "as Karpenter buys nodes, not atomically (Karpenter serves no ProvisioningRequests)")


def test_the_plan_says_the_default_placement_is_set_at_creation_only():
    run = run_stack(load_project(ROOT), "aws-dev")
    assert training(run)["pools"][0]["placement"] == (
        "compact (cluster placement group; the default, set when the pool is created: a pool that already exists "
        "keeps its placement, set placement: compact to move it, which replaces it)")


def test_the_plan_shows_each_multi_pod_training_workload(runs):
    from nodepools.plan.run import with_workloads
    app = run_stack(load_project(ROOT / "examples" / "spot-training"), "dev")
    report = training(with_workloads(runs["aws-karpenter"], [app]))
    assert report["workloads"] == [{
        "workload": "Job training/llm-finetune", "pods": 2.0,
        "gang": "Kueue (kueue.x-k8s.io/queue-name: gpu-training)", "topology_request": "none",
        "lands_on": ["training"]}]
    assert report["notes"] == []


def test_a_native_gang_is_named_with_the_apis_stage():
    import pulumi_kubernetes as k8s

    from nodepools.offline.engine import run_program
    from nodepools.plan.run import StackRun

    def program():
        template = {"metadata": {"labels": {v.LABEL_WORKLOAD_CLASS: "gpu-training"}}, "spec": {
            "restartPolicy": "Never", "schedulingGroup": {"podGroupName": "ranks"},
            "containers": [{"name": "t", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}
        k8s.batch.v1.Job("ranks", metadata={"name": "ranks", "namespace": "training"},
                         spec={"parallelism": 4, "template": template})
    project = load_project(ROOT)
    report = training(StackRun(project, "dev", project.root / "stacks", run_program(program), None))
    assert report["workloads"][0]["gang"] == "native scheduling group (PodGroup 'ranks')"
    assert report["notes"] == [
        "The native scheduling group (scheduling.k8s.io Workload / PodGroup) is alpha in Kubernetes 1.36 (KEP-4671: "
        "alpha v1.35, beta v1.37; KEP-5832: alpha v1.36), behind the GenericWorkload feature gate, which EKS and GKE "
        "standard clusters do not turn on: the gang forms only on a cluster that serves it."]


def test_a_kueue_the_stack_does_not_install_must_restart_after_the_crd():
    from nodepools.plan.training import KUEUE_RESTART_NOTE
    from nodepools.plan.project import stack_config
    from nodepools.offline.engine import run_program_capture
    from nodepools.plan.run import StackRun
    import runpy

    config, _ = stack_config(load_project(ROOT), "aws-prod")
    config["nodepools:guardrails"] = {"addons": {"kueue": {"existing": True}}}
    project = load_project(ROOT)
    run, error = run_program_capture(lambda: runpy.run_path(str(project.program()), run_name="__main__"),
                                     project=project.name, stack="aws-prod", config=config)
    assert error is None
    assert training(StackRun(project, "aws-prod", project.program(), run, None))["notes"] == [KUEUE_RESTART_NOTE]
