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
