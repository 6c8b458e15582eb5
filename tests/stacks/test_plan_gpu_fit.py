"""``nodepools plan`` shows, per GPU workload, the pools it reaches with GPU model, memory and sharing."""
import json
import os
from pathlib import Path

import pytest

from nodepools.config import StackConfigError
from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import StackModel
from nodepools.placement import analyze
from nodepools.placement.gpu_fit import gpu_fit_rows, gpu_fit_text
from nodepools.plan.cli import main
from suite_dates import PINNED

ROOT = Path(__file__).resolve().parents[2]
EKS = "aws:eks/nodeGroup:NodeGroup"


def test_plan_lists_the_gpu_pools_each_gpu_workload_reaches(capsys):
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["plan", "--stack", "aws-dev", "--json", "--workloads", "examples/gpu-inference",
                     "--workloads", "examples/spot-training"])
    finally:
        os.chdir(cwd)
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = {r["workload"]: r for r in data["placement"]["gpu_fit"]}
    assert set(rows) == {"llm-server", "llm-finetune"}
    server = rows["llm-server"]
    assert (server["model_memory_gib"], server["misfit"]) == (None, None)
    assert [(p["pool"], p["sharing"]) for p in server["pools"]] == [("np-aws-dev-inference", "none")]
    assert all(isinstance(p["memory_gib"], (int, float)) and p["gpu_model"] for p in server["pools"])
    assert any(line.startswith("GPU fit") for line in data["placement"]["text"])


def pool(name, instance_type, model, **labels):
    props = {"clusterName": "prod", "nodeGroupName": name, "instanceTypes": [instance_type], "capacityType": "ON_DEMAND",
             "labels": {"nodepools.io/pool-class": "gpu-inference", "nodepools.io/pool": name,
                        "nodepools.io/accelerator": model, **labels},
             "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]}
    return Resource.of(EKS, name, props, urn=f"urn:pulumi:dev::p::{EKS}::{name}")


def deployment(name, memory_gib, resource="nvidia.com/gpu", pool_name=None):
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"limits": {resource: 1}}}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    if pool_name:
        spec["nodeSelector"] = {"nodepools.io/pool": pool_name}
    props = {"metadata": {"name": name, "namespace": "inference"}, "spec": {"template": {
        "metadata": {"annotations": {"nodepools.io/model-memory-gib": str(memory_gib)}}, "spec": spec}}}
    t = "kubernetes:apps/v1:Deployment"
    return Resource.of(t, name, props, urn=f"urn:pulumi:dev::p::{t}::{name}")


def test_the_gpu_view_flags_misfits_and_reads_mig_slices():
    resources = [
        pool("l4", "g6.xlarge", "nvidia-l4"),
        pool("h100-mig", "p5.48xlarge", "nvidia-h100", **{"nodepools.io/gpu-sharing": "mig",
                                                          "nodepools.io/mig-profile": "3g.40gb"}),
        deployment("big-on-l4", 70, pool_name="l4"),
        deployment("tiny-on-l4", 2, pool_name="l4"),
        deployment("slice", 30, resource="nvidia.com/mig-3g.40gb"),
    ]
    report = analyze(StackModel(resources, today=PINNED))
    assert {r["workload"]: r["misfit"] for r in gpu_fit_rows(report)} == {
        "big-on-l4": "too-small", "tiny-on-l4": "oversized", "slice": None}
    assert gpu_fit_text(report) == [
        "GPU fit (per GPU request: memory of the GPU, or of the MIG slice; nodepools.io/model-memory-gib):",
        "  Deployment inference/big-on-l4 (model 70 GiB) -> l4 (nvidia-l4, 24 GiB)  MISFIT: runs out of GPU memory",
        "  Deployment inference/slice (model 30 GiB) -> h100-mig (nvidia-h100, 40 GiB, MIG 3g.40gb)",
        "  Deployment inference/tiny-on-l4 (model 2 GiB) -> l4 (nvidia-l4, 24 GiB)  MISFIT: GPU memory > 4x the model",
    ]


def test_stack_outputs_name_the_gpu_resource_and_memory_per_request(stack_config, run_stack):
    config = stack_config("aws-dev")
    inference = next(p for p in config["nodepools:pools"] if p["pool_class"] == "gpu-inference")
    inference["gpu_sharing"] = {"mode": "time-slicing", "replicas": 4}
    run, error = run_stack(config, stack="aws-dev", preview=True)
    assert error is None
    gpu = run.outputs["pools"][inference["name"]]["gpu"]
    assert {k: gpu[k] for k in ("resource", "sharing", "memoryGibPerRequest")} == {
        "resource": "nvidia.com/gpu", "sharing": "time-slicing", "memoryGibPerRequest": 24}


@pytest.mark.parametrize("index, sharing, expected", [
    (3, {"mode": "time-slicing", "replicas": 2},
     "nodepools:pools[3].gpu_sharing.mode: gpu_sharing mode 'time-slicing' is not allowed for class gpu-training "
     "(allowed: none)"),
    (2, {"mode": "mig", "profile": "1g.10gb"},
     "nodepools:pools[2].gpu_sharing.mode: gpu_sharing mode 'mig' needs a MIG-capable GPU (allowed: nvidia-a100, "
     "nvidia-a100-80gb, nvidia-h100); nvidia-l4 does not support MIG"),
    (2, {"mode": "slicing"},
     "nodepools:pools[2].gpu_sharing.mode: Input should be 'none', 'time-slicing' or 'mig'"),
])
def test_bad_sharing_in_a_stack_config_registers_nothing(stack_config, run_stack, index, sharing, expected):
    raw = stack_config("aws-dev")
    raw["nodepools:pools"][index]["gpu_sharing"] = sharing
    run, error = run_stack(raw, stack="aws-dev")
    assert isinstance(error, StackConfigError), error
    assert any(line.startswith(expected) for line in error.lines), error.lines
    assert run.resources == []
