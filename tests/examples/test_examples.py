"""Every example runs under mocks; its workloads are valid Kubernetes objects that land where they should."""
import kubernetes_validate
import pytest
import yaml

from nodepools.offline.engine import Run
from nodepools.plan.model import plan_view
from nodepools.plan.report import clean

EXAMPLES = ("attached-gpu", "batch-cronjob", "existing-cluster", "gpu-inference", "spot-training")


def obj(run, type_, name):
    [found] = [r for r in run.resources if r.type == type_ and r.name == name]
    return clean(found.inputs)


def test_every_example_runs_and_is_listed(example_runs):
    assert sorted(example_runs) == list(EXAMPLES)
    for name, stack_run in example_runs.items():
        assert stack_run.error is None, (name, stack_run.error)
        assert stack_run.run.resources and stack_run.run.invokes == []


@pytest.mark.parametrize("example, type_, name", [
    ("gpu-inference", "kubernetes:apps/v1:Deployment", "llm-server"),
    ("gpu-inference", "kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "llm-server"),
    ("gpu-inference", "kubernetes:policy/v1:PodDisruptionBudget", "llm-server"),
    ("gpu-inference", "kubernetes:core/v1:Service", "llm-server"),
    ("spot-training", "kubernetes:batch/v1:Job", "llm-finetune"),
    ("batch-cronjob", "kubernetes:batch/v1:CronJob", "nightly-report"),
])
def test_objects_validate_against_the_kubernetes_schema(example_runs, example, type_, name):
    manifest = obj(example_runs[example].run, type_, name)
    kubernetes_validate.validate(manifest, "1.33", strict=True)


def test_inference_is_guaranteed_with_probes_sized_to_model_load(example_runs):
    run = example_runs["gpu-inference"].run
    pod = obj(run, "kubernetes:apps/v1:Deployment", "llm-server")["spec"]["template"]
    container = pod["spec"]["containers"][0]
    assert container["resources"]["requests"] == container["resources"]["limits"] == {
        "cpu": "3", "memory": "10Gi", "nvidia.com/gpu": "1"}
    load = int(pod["metadata"]["annotations"]["nodepools.io/model-load-seconds"])
    startup = container["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 1.5 * load == 360
    assert pod["spec"]["priorityClassName"] == "nodepools-gpu-inference"
    assert pod["metadata"]["labels"]["nodepools.io/workload-class"] == "gpu-inference"
    assert pod["spec"]["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]
    assert "replicas" not in obj(run, "kubernetes:apps/v1:Deployment", "llm-server")["spec"]


def test_autoscaler_behaviour_accounts_for_load_time(example_runs):
    hpa = obj(example_runs["gpu-inference"].run, "kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "llm-server")
    behavior = hpa["spec"]["behavior"]
    assert behavior["scaleUp"]["policies"] == [{"type": "Percent", "value": 100, "periodSeconds": 240},
                                               {"type": "Pods", "value": 1, "periodSeconds": 240}]
    assert behavior["scaleDown"]["stabilizationWindowSeconds"] == 720  # 3 x 240 s load
    assert behavior["scaleDown"]["policies"] == [{"type": "Pods", "value": 1, "periodSeconds": 240}]
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (1, 2)


def test_training_job_is_gang_queued_checkpointed_and_not_evicted(example_runs):
    job = obj(example_runs["spot-training"].run, "kubernetes:batch/v1:Job", "llm-finetune")
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "gpu-training"
    assert (job["spec"]["suspend"], job["spec"]["parallelism"], job["spec"]["completions"]) == (True, 2, 2)
    annotations = job["spec"]["template"]["metadata"]["annotations"]
    assert annotations == {"nodepools.io/checkpoint-interval": "15m",
                           "cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
    assert job["spec"]["podFailurePolicy"]["rules"][0] == {
        "action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}


def test_cronjob_runs_in_the_batch_namespace_off_peak(example_runs):
    cron = obj(example_runs["batch-cronjob"].run, "kubernetes:batch/v1:CronJob", "nightly-report")
    assert (cron["metadata"]["namespace"], cron["spec"]["schedule"], cron["spec"]["timeZone"]) == (
        "batch", "0 2 * * *", "Etc/UTC")
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "nodepools-batch"
    assert pod["tolerations"] == [
        {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]


@pytest.mark.parametrize("example, workload, pool", [
    ("gpu-inference", "llm-server", "np-aws-dev-inference"),
    ("spot-training", "llm-finetune", "np-aws-dev-training"),
    ("batch-cronjob", "nightly-report", "np-aws-dev-batch"),
])
def test_each_workload_lands_on_its_pool_only(example_runs, platform_run, today, example, workload, pool):
    report = plan_view(Run(resources=platform_run.run.resources + example_runs[example].run.resources), today).report
    summary = report.summary(workload)
    assert summary.reachable == (pool,)
    assert summary.unschedulable is False and not summary.flagged


def test_existing_cluster_example_builds_pools_on_the_stack_s_cluster(example_runs):
    run = example_runs["existing-cluster"].run
    cluster = next(r for r in run.resources if r.type == "aws:eks/cluster:Cluster")
    groups = [r for r in run.resources if r.type == "aws:eks/nodeGroup:NodeGroup"]
    assert sorted(g.name for g in groups) == ["ml-jobs", "ml-services", "ml-serving", "ml-training"]
    assert all(cluster.urn in g.dependencies for g in groups)
    assert sorted(run.outputs["contracts"]) == ["jobs", "services", "serving", "training"]


def test_deploy_workflow_gates_prs_on_the_offline_plan_then_previews_with_the_pack():
    from pathlib import Path
    workflow = yaml.safe_load((Path(__file__).resolve().parents[2] / ".github/workflows/deploy.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"pull_request", "push"}
    plan = workflow["jobs"]["plan"]
    shipped = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (Path(__file__).resolve().parents[2] / "stacks").glob("Pulumi.*.yaml"))
    assert plan["strategy"]["matrix"]["stack"] == shipped  # a new stack is planned on every PR too
    assert [s["run"] for s in plan["steps"] if s.get("run", "").startswith("make plan")] == [
        'make plan STACK=${{ matrix.stack }} PLAN_ARGS="--json-file plan-out/${{ matrix.stack }}.json"']
    for job_name, group in (("deploy-dev", "dev"), ("deploy-prod", "prod")):
        job = workflow["jobs"][job_name]
        assert "github.event_name == 'push'" in job["if"] and f"needs.stacks.outputs.{group} != '[]'" in job["if"]
        # Only the stacks tools/deployable_stacks.py lets through: never an example.
        assert job["strategy"]["matrix"]["stack"] == f"${{{{ fromJSON(needs.stacks.outputs.{group}) }}}}"
        runs = [s["run"] for s in job["steps"] if "run" in s and s["run"].startswith("pulumi ")]
        assert runs == ["pulumi preview --stack ${{ matrix.stack }} --policy-pack policy --diff",
                        "pulumi up --stack ${{ matrix.stack }} --policy-pack policy --yes"]
    assert workflow["jobs"]["deploy-dev"]["needs"] == ["test", "plan", "stacks"]
    assert workflow["jobs"]["deploy-prod"]["needs"] == ["test", "plan", "stacks", "deploy-dev"]
    (real,) = [s["run"] for s in workflow["jobs"]["stacks"]["steps"] if s.get("id") == "real"]
    assert real.splitlines() == [
        'echo "dev=$(python tools/deployable_stacks.py aws-dev gcp-dev)" >> "$GITHUB_OUTPUT"',
        'echo "prod=$(python tools/deployable_stacks.py aws-prod)" >> "$GITHUB_OUTPUT"']


def test_example_stacks_are_planned_never_deployed(tmp_path):
    """Every stack the repository ships has placeholder ids and is marked so; a copy with its own
    ids and the mark removed is deployed."""
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    tool = [sys.executable, str(root / "tools" / "deployable_stacks.py")]
    stacks = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (root / "stacks").glob("Pulumi.*.yaml"))
    assert stacks == ["aws-attach", "aws-dev", "aws-karpenter", "aws-prod", "gcp-dev"]
    shipped = subprocess.run([*tool, *stacks], capture_output=True, text=True)
    assert (shipped.returncode, json.loads(shipped.stdout)) == (0, [])
    for stack in stacks:
        shutil.copy(root / "stacks" / f"Pulumi.{stack}.yaml", tmp_path)
    real = tmp_path / "Pulumi.aws-prod.yaml"
    real.write_text(real.read_text().replace("  nodepools:example: true\n", ""))
    mine = subprocess.run([*tool, "--stacks-dir", str(tmp_path), *stacks], capture_output=True, text=True)
    assert (mine.returncode, json.loads(mine.stdout)) == (0, ["aws-prod"])
    missing = subprocess.run([*tool, "--stacks-dir", str(tmp_path), "aws-stage"], capture_output=True, text=True)
    assert (missing.returncode, missing.stderr.strip()) == (
        2, f"deployable_stacks: stack 'aws-stage' has no config file {tmp_path / 'Pulumi.aws-stage.yaml'}")


@pytest.mark.parametrize("example", ["gpu-inference", "spot-training", "batch-cronjob"])
def test_the_policy_pack_passes_each_workload_on_the_platform(example_runs, platform_run, policy_pack, example):
    resources = platform_run.run.resources + example_runs[example].run.resources
    diagnostics = policy_pack.check(resources)
    assert [(d.policy, d.level, d.message) for d in diagnostics] == []


def test_the_policy_pack_passes_the_existing_cluster_example(example_runs, policy_pack):
    assert [(d.policy, d.message) for d in policy_pack.check(example_runs["existing-cluster"].run.resources)] == []


def test_the_attached_cluster_example_builds_gpu_pools_and_guardrails_on_its_system_nodes(example_runs):
    """examples/attached-gpu: no resident pool, no cluster created; the add-ons on the cluster's own nodes."""
    run = example_runs["attached-gpu"].run
    types = {r.type for r in run.resources}
    assert "aws:eks/cluster:Cluster" not in types
    assert sorted(r.name for r in run.of_type("aws:eks/nodeGroup:NodeGroup")) == ["ml-serving", "ml-training"]
    values = {r.inputs["name"]: r.inputs["values"] for r in run.of_type("kubernetes:helm.sh/v3:Release")}
    assert values["cluster-autoscaler"]["nodeSelector"] == {"eks.amazonaws.com/nodegroup": "system"}
    assert values["kueue"]["controllerManager"]["nodeSelector"] == {"eks.amazonaws.com/nodegroup": "system"}
    assert len(run.of_type("kubernetes:scheduling.k8s.io/v1:PriorityClass")) == 4


def test_the_attached_cluster_example_s_own_unit_tests_pass(tmp_path):
    """Its tests/ (NodepoolsMocks and plain Pulumi mocks) run as its README says, from its directory."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "attached-gpu"
    copy = tmp_path / "attached-gpu"
    shutil.copytree(example, copy, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=copy,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "3 passed" in result.stdout
