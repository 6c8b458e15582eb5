"""``nodepools plan --workloads``: app projects' workloads judged on a platform stack's pools."""
import json
import os
from pathlib import Path

from nodepools.plan.cli import main

ROOT = Path(__file__).resolve().parents[2]
APPS = ["examples/gpu-inference", "examples/spot-training", "examples/batch-cronjob"]


def plan(capsys, *args):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["plan", *args])
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().out


def workloads_args():
    return [arg for app in APPS for arg in ("--workloads", app)]


def test_examples_land_on_their_own_aws_dev_pools_and_the_report_holds_matrix_and_diagram(capsys, tmp_path):
    report = tmp_path / "aws-dev.md"
    code, out = plan(capsys, "--stack", "aws-dev", "--json", *workloads_args(), "--report", str(report))
    data = json.loads(out)
    assert code == 0 and data["policy"]["mandatory"] == 0
    reach = {w["workload"]: w["reachable"] for w in data["placement"]["workloads"]}
    # aws-dev (1.35) keeps its warm GPU with a CapacityBuffer, which is not a workload (section 9).
    assert reach == {"nightly-report": ["np-aws-dev-batch"], "llm-server": ["np-aws-dev-inference"],
                     "llm-finetune": ["np-aws-dev-training"]}
    text = report.read_text()
    assert "```mermaid\ngraph LR" in text
    assert "Job training/llm-finetune" in text and "w2 --> p3" in text


def test_a_workload_sized_for_another_platform_fails_the_gate_with_the_reason(capsys):
    # The training example asks for 40 CPUs (a g6.12xlarge); gcp-dev's training pool is a2-highgpu-1g.
    code, out = plan(capsys, "--stack", "gcp-dev", "--workloads", "examples/spot-training")
    assert code == 1
    assert "[mandatory] schedulable on kubernetes:batch/v1:Job llm-finetune:" in out
    assert "training: too big for a2-highgpu-1g: requests cpu 40 > allocatable 11.9" in out


def test_a_missing_app_project_is_an_error(capsys):
    code, _ = plan(capsys, "--stack", "aws-dev", "--workloads", "examples/does-not-exist")
    assert code == 2


# An app whose namespace is named by the platform stack (a StackReference output: unknown at preview) and
# labelled resident; its Deployment names the namespace by the Namespace's output (a property dependency).
NAMESPACE_BY_DEPENDENCY = '''
import pulumi
import pulumi_kubernetes as k8s

platform = pulumi.StackReference("organization/platform/aws-dev")
namespace = k8s.core.v1.Namespace("shop", metadata={"name": platform.get_output("shopNamespace"),
                                                    "labels": {"nodepools.io/workload-class": "resident"}})
requests = {"cpu": "500m", "memory": "512Mi"}
k8s.apps.v1.Deployment("shop-api", metadata={"name": "shop-api", "namespace": namespace.metadata.name}, spec={
    "replicas": 2, "selector": {"matchLabels": {"app": "shop-api"}},
    "template": {"metadata": {"labels": {"app": "shop-api"}}, "spec": {
        "priorityClassName": "nodepools-resident",
        "tolerations": [{"key": "nodepools.io/pool-class", "operator": "Equal", "value": "batch",
                         "effect": "NoSchedule"}],
        "containers": [{"name": "api", "image": "registry.example/shop:1",
                        "resources": {"requests": requests, "limits": requests}}]}}})
'''


def test_a_namespace_named_by_dependency_gives_its_class_to_the_plan_as_to_the_pack(capsys, tmp_path):
    """Issue 30: the pack reported resident-off-spot while the plan's placement said class None."""
    app = tmp_path / "shop"
    app.mkdir()
    (app / "Pulumi.yaml").write_text("name: shop\nruntime: python\n")
    (app / "Pulumi.dev.yaml").write_text("config: {}\n")
    (app / "__main__.py").write_text(NAMESPACE_BY_DEPENDENCY)
    code, out = plan(capsys, "--stack", "aws-dev", "--json", "--workloads", str(app))
    data = json.loads(out)
    assert code == 1 and data["status"] == "violations"
    [row] = [w for w in data["placement"]["workloads"] if w["workload"] == "shop-api"]
    assert (row["namespace"], row["class"], row["spot_pools_while_resident"]) == (
        "<shop>", "resident", ["np-aws-dev-batch"])
    assert "shop-api" in data["placement"]["flagged"]
    [off_spot] = [v for v in data["policy"]["violations"]
                  if v["policy"] == "resident-off-spot" and v["resource"] == "kubernetes:apps/v1:Deployment shop-api"]
    assert (off_spot["enforcement"], off_spot["message"].split("\n", 1)[1]) == ("mandatory", (
        "Deployment 'shop-api' in namespace '<shop>': spec.template.spec: a resident workload can land on spot "
        "pool(s) 'np-aws-dev-batch', which the cloud reclaims at short notice. Fix: select on-demand capacity "
        "(nodepools.io/capacity: on-demand) or a pool of its own class"))
