"""``make plan STACK=aws-karpenter``: the Karpenter stack plans offline with 0 violations and
the examples' workloads land on its Karpenter pools."""
import json
import os
from pathlib import Path

from nodepools.plan.cli import main
from nodepools.policies.registry import POLICIES

ROOT = Path(__file__).resolve().parents[2]
APPS = ["examples/gpu-inference", "examples/spot-training", "examples/batch-cronjob"]


def test_aws_karpenter_plans_clean_with_the_examples_placed(capsys):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["plan", "--stack", "aws-karpenter", "--json",
                     *[arg for app in APPS for arg in ("--workloads", app)]])
    finally:
        os.chdir(cwd)
    data = json.loads(capsys.readouterr().out)
    assert (code, data["error"]) == (0, None)
    # One advisory finding: the training example asks for no topology (it sets no topologyLevel), while
    # aws-karpenter's training flavor points at the Topology of its g6e nodes.
    assert data["policy"]["policies"] == len(POLICIES)
    assert [(v["policy"], v["enforcement"], v["resource"]) for v in data["policy"]["violations"]] == [
        ("training-topology", "advisory", "kubernetes:batch/v1:Job llm-finetune")]
    assert data["counts"]["kubernetes:karpenter.sh/v1:NodePool"] == 3
    assert data["counts"]["aws:eks/nodeGroup:NodeGroup"] == 1
    # Karpenter keeps no minimum: the pools table says so instead of echoing the spec's min_nodes.
    assert {p["name"]: (p["provisioner"], p["min_nodes"]) for p in data["pools"]} == {
        "system": ("managed", 2), "batch": ("karpenter", None), "inference": ("karpenter", None),
        "training": ("karpenter", None)}
    reach = {w["workload"]: w["reachable"] for w in data["placement"]["workloads"]}
    assert reach == {"nightly-report": ["batch"], "llm-server": ["inference"], "llm-finetune": ["training"]}
