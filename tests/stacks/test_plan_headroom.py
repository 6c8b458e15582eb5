"""The plan's warm capacity (docs/design.md section 9.4): per gpu-inference pool what keeps it warm, per
autoscaled model server the wait for a new replica with and without it."""
import json
import os
from pathlib import Path

from nodepools.plan.cli import main

ROOT = Path(__file__).resolve().parents[2]


def plan(capsys, *args):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["plan", *args])
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().out


def test_the_plan_shows_warm_pools_and_each_model_servers_wait(capsys, tmp_path):
    config = tmp_path / "pack.json"
    config.write_text(json.dumps({"inference-scale-headroom": {"gpuNodeStartSeconds": 420}}))
    code, out = plan(capsys, "--stack", "aws-dev", "--workloads", "examples/gpu-inference", "--json",
                     "--policy-pack-config", str(config))
    headroom = json.loads(out)["headroom"]
    assert code == 0
    assert headroom["pools"] == [{
        # aws-dev runs 1.35: cluster-autoscaler v1.35.2 serves CapacityBuffers (v1beta1).
        "pool": "np-aws-dev-inference", "warm": True, "slots": 1.0,
        "held_by": "CapacityBuffer 'nodepools-warm-inference' in namespace 'nodepools-warm'"}]
    # The example server loads its model in 240s (nodepools.io/model-load-seconds).
    assert headroom["servers"] == [{
        "workload": "llm-server", "kind": "Deployment", "namespace": "inference",
        "autoscaled_by": "HorizontalPodAutoscaler 'llm-server'", "pools": [{"pool": "np-aws-dev-inference", "warm": True}],
        "warm": True, "model_load_seconds": 240.0, "gpu_node_start_seconds": 420.0,
        "wait_with_warm_seconds": 240.0, "wait_without_warm_seconds": 660.0}]


def test_the_text_plan_names_a_cold_pool_and_the_longer_wait(stack_config, run_stack, today):
    """aws-dev without its warm replica: the example's server waits for a node as well as its model."""
    from nodepools.plan.headroom import headroom_report
    from nodepools.plan.model import plan_view
    from nodepools.plan.project import load_project
    from nodepools.plan.render import render
    from nodepools.plan.run import StackRun, run_stack as run_project, with_workloads

    config = stack_config("aws-dev")
    del config["nodepools:pools"][2]["warm"]
    run, error = run_stack(config, stack="aws-dev")
    assert error is None
    platform = StackRun(load_project(ROOT), "aws-dev", ROOT / "stacks" / "__main__.py", run, None)
    judged = with_workloads(platform, [run_project(load_project(ROOT / "examples" / "gpu-inference"), "dev")])
    report = headroom_report(plan_view(judged.run, today))
    assert report["text"] == [
        "Warm capacity (gpu-inference pools):",
        "  np-aws-dev-inference: none (a new replica waits for a GPU node to start; set warm: {replicas: N})",
        "",
        "Autoscaled model servers (wait for a new replica: with warm capacity / without):",
        "  Deployment 'llm-server' in namespace 'inference', autoscaled by HorizontalPodAutoscaler 'llm-server': "
        "240s with warm capacity, 540s without (240s model load + 300s GPU node start); lands on np-aws-dev-inference "
        "(cold): cold now"]
    rendered = render({"stack": "aws-dev", "project": "nodepools", "program": "stacks/__main__.py", "engine": "mock",
                       "error": None, "resources": [], "counts": {}, "pools": [], "notes": [], "headroom": report})
    # Rendered within the width (100 columns), entries wrapped under their indent.
    section = rendered[rendered.index("Warm capacity"):rendered.index("Result:")].rstrip()
    assert " ".join(section.split()) == " ".join(" ".join(report["text"]).split())
    assert max(len(line) for line in section.splitlines()) <= 100
    assert "\n      lands on np-aws-dev-inference (cold): cold now" in section
