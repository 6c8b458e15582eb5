"""aws-prod with ``gpu_allocation: dra`` (docs/design.md section 11.4): the stack program under the mock engine
registers NVIDIA's DRA driver instead of the device plugin, nodepools' DeviceClass of its MIG pool, Kueue's
device-class mapping and quotas capping every GPU class; every object is valid against the schemas of the
stack's minor; and ``nodepools plan`` (the real program, the real pack over gRPC, the placement analysis) places
an unchanged ``nvidia.com/gpu`` Deployment on the GPU pool."""
from __future__ import annotations

import copy
import json
import os
import runpy
import shutil
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from nodepools.guardrails import GuardrailsSpec
from nodepools.guardrails.dra_driver import published_classes
from nodepools.offline.engine import run_program_capture
from nodepools.plan.cli import main
from nodepools.vocabulary import TYPE_HELM_RELEASE

ROOT = Path(__file__).resolve().parents[2]
MINOR = "1.36"  # DeviceClass.spec.extendedResourceName is served (beta, on by default) from here
MIG_POOL = {"name": "inference-mig", "pool_class": "gpu-inference", "instance_types": ["p4d.24xlarge"],
            "min_nodes": 1, "max_nodes": 2, "gpu_sharing": {"mode": "mig", "profile": "1g.5gb"}}
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"


def dra_config(stack_config) -> dict:
    """aws-prod on 1.36 with gpu_allocation dra, plus a MIG inference pool (A100 40GB split into 1g.5gb)."""
    config = stack_config("aws-prod")
    config["nodepools:cluster"]["kubernetes_version"] = MINOR
    config["nodepools:pools"].append(copy.deepcopy(MIG_POOL))
    config["nodepools:guardrails"] = {"gpu_allocation": "dra"}
    return config


def aws_prod(stack: str) -> dict:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


@pytest.fixture(scope="module")
def dra_run():
    """One preview of the stack program on the derived config, shared by the tests of this module."""
    run, error = run_program_capture(lambda: runpy.run_path(str(ROOT / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack="aws-prod", config=dra_config(aws_prod), preview=True)
    assert error is None, error
    return run


def releases(run) -> dict[str, dict]:
    return {r.inputs["name"]: r.inputs for r in run.of_type(TYPE_HELM_RELEASE)}


def test_the_dra_driver_replaces_the_device_plugin(dra_run):
    found = releases(dra_run)
    assert sorted(found) == ["cluster-autoscaler", "dra-driver-nvidia-gpu", "kueue"]  # no nvidia-device-plugin
    driver = found["dra-driver-nvidia-gpu"]
    assert (driver["chart"], driver["version"], driver["namespace"], driver.get("repositoryOpts")) == (
        "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", "0.4.1", "kube-system", None)
    gpu_taints = [{"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference",
                   "effect": "NoSchedule"},
                  {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
                  {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-training",
                   "effect": "NoSchedule"}]
    assert driver["values"] == {
        "resourceApiVersion": "resource.k8s.io/v1", "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}},
        "kubeletPlugin": {"priorityClassName": "system-node-critical", "tolerations": gpu_taints, "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]}}}}}


ACCELERATOR = "k8s.amazonaws.com/accelerator"


def accelerator_labels(run) -> dict[str, bool]:
    """Per GPU node group: whether its nodes and its ASG's node template carry cluster-autoscaler's GPU label."""
    tags = {r.name: r.inputs["tag"]["key"] for r in run.of_type("aws:autoscaling/tag:Tag")}
    return {r.name: (ACCELERATOR in r.inputs["labels"],
                     tags.get(f"{r.name}-ca-label-{ACCELERATOR}") == f"k8s.io/cluster-autoscaler/node-template/label/"
                                                                    f"{ACCELERATOR}")
            for r in run.of_type("aws:eks/nodeGroup:NodeGroup") if "nvidia.com/gpu.present" in r.inputs["labels"]}


def test_dra_gpu_nodes_carry_no_autoscaler_gpu_label(dra_run):
    """cluster-autoscaler 1.36.1 counts a node with its GPU label and no allocatable GPU as ResourceUnready, and a
    DRA GPU is in no node's allocatable (docs/kubernetes-facts.md section 1.4): the label goes with dra."""
    assert accelerator_labels(dra_run) == {"np-aws-prod-inference": (False, False),
                                           "np-aws-prod-training": (False, False),
                                           "np-aws-prod-inference-mig": (False, False)}
    config = dra_config(aws_prod)
    del config["nodepools:guardrails"]["gpu_allocation"]  # the default on 1.36: the device plugin
    run, error = run_program_capture(lambda: runpy.run_path(str(ROOT / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack="aws-prod", config=config, preview=True)
    assert error is None and accelerator_labels(run) == {"np-aws-prod-inference": (True, True),
                                                         "np-aws-prod-training": (True, True),
                                                         "np-aws-prod-inference-mig": (False, False)}
    assert "nvidia-device-plugin" in releases(run)


def test_the_device_classes_map_the_extended_resources_and_validate_at_the_stacks_minor(dra_run):
    [mig] = [r.inputs for r in dra_run.of_type(DEVICE_CLASS)]
    assert mig == {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                   "metadata": {"name": "mig-1g.5gb.nodepools.io"}, "spec": {
        "selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com' && "
                                             "device.attributes['gpu.nvidia.com'].type == 'mig' && "
                                             "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"}}],
        "extendedResourceName": "nvidia.com/mig-1g.5gb"}}
    published = published_classes(GuardrailsSpec(kubernetes_version=MINOR, gpu_allocation="dra"))
    assert [(c["metadata"]["name"], c["spec"].get("extendedResourceName")) for c in published] == [
        ("gpu.nvidia.com", "nvidia.com/gpu"), ("mig.nvidia.com", None), ("vfio.gpu.nvidia.com", None)]
    for obj in [mig, *published]:
        kubernetes_validate.validate(copy.deepcopy(obj), MINOR, strict=True)


@pytest.mark.parametrize("minor, stage", [("1.34", "alpha"), ("1.35", "alpha"), ("1.36", "beta"), ("1.37", None)])
def test_the_extended_resource_name_is_kept_from_the_minor_whose_schema_makes_it_beta(minor, stage):
    """kubernetes-validate's OpenAPI of each minor marks the field; alpha fields are dropped by an API server whose
    gate is off (managed clusters turn no alpha gate on), so the class carries it from the beta minor on."""
    schemas = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{minor}.0-local-strict"
    field = json.loads((schemas / "deviceclassspec-resource-v1.json").read_text())["properties"]["extendedResourceName"]
    assert ("This is an alpha field." in field["description"], "This is a beta field." in field["description"]) == (
        stage == "alpha", stage == "beta")
    published = published_classes(GuardrailsSpec(kubernetes_version=minor if minor != "1.37" else "1.36",
                                                 gpu_allocation="dra"))
    if minor != "1.37":  # not a supported minor yet (spec/cluster.py)
        assert ("extendedResourceName" in published[0]["spec"]) is (stage != "alpha")


def test_kueue_counts_dra_gpus_as_nvidia_com_gpu(dra_run):
    config = yaml.safe_load(releases(dra_run)["kueue"]["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert config["resources"] == {"deviceClassMappings": [{"name": "nvidia.com/gpu",
                                                             "deviceClassNames": ["gpu.nvidia.com"]}]}


def test_every_quota_caps_each_gpu_class_mig_slices_counted_one_each(dra_run):
    quotas = {r.inputs["metadata"]["namespace"]: r.inputs for r in dra_run.of_type("kubernetes:core/v1:ResourceQuota")}
    hard = {ns: {k: v for k, v in q["spec"]["hard"].items() if "deviceclass" in k} for ns, q in quotas.items()}
    # inference: g6e (1 GPU) x 8 nodes; MIG: 8 A100 x 7 slices of 1g.5gb x 2 nodes; training: p4d (8) x 4 nodes.
    assert hard["inference"] == {"gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "8",
                                 "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "112",
                                 "vfio.gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "0",
                                 "mig-1g.5gb.nodepools.io.deviceclass.resource.k8s.io/devices": "112"}
    assert hard["training"]["gpu.nvidia.com.deviceclass.resource.k8s.io/devices"] == "32"
    assert set(hard["services"].values()) == {"0"} and set(hard["batch"].values()) == {"0"}
    for quota in quotas.values():
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "ResourceQuota", **copy.deepcopy(quota)}, MINOR,
                                     strict=True)


# The platform's own program, then an unchanged model server asking for nvidia.com/gpu (no claim, no class).
PROGRAM = '''\
import runpy
import pulumi_kubernetes as k8s
runpy.run_path({program!r}, run_name="__main__")
resources = {{"cpu": "3", "memory": "12Gi", "nvidia.com/gpu": "1"}}
probe = {{"httpGet": {{"path": "/health", "port": 8000}}, "periodSeconds": 10}}
k8s.apps.v1.Deployment("llm", metadata={{"name": "llm", "namespace": "inference"}}, spec={{
    "replicas": 2, "selector": {{"matchLabels": {{"app": "llm"}}}},
    "template": {{"metadata": {{"labels": {{"app": "llm", "nodepools.io/workload-class": "gpu-inference"}}}},
                 "spec": {{"priorityClassName": "nodepools-gpu-inference",
                          "tolerations": [{{"key": "nodepools.io/pool-class", "operator": "Equal",
                                           "value": "gpu-inference", "effect": "NoSchedule"}}],
                          "topologySpreadConstraints": [{{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                                         "whenUnsatisfiable": "ScheduleAnyway",
                                                         "labelSelector": {{"matchLabels": {{"app": "llm"}}}}}}],
                          "containers": [{{"name": "server", "image": "vllm/vllm-openai:v0.11.0",
                                          "resources": {{"requests": resources, "limits": resources}},
                                          "readinessProbe": probe,
                                          "startupProbe": {{**probe, "failureThreshold": 60}}}}]}}}}}})
{extra}'''
# A second allocator on the same pools: NVIDIA's device plugin chart, as its defaults place it plus our taints.
EXTRA_PLUGIN = '''k8s.helm.v3.Release("extra-plugin", name="nvidia-device-plugin", chart="nvidia-device-plugin",
    namespace="kube-system", version="0.20.0", values={"tolerations": [{"operator": "Exists"}]})
'''


def plan_project(tmp_path: Path, config: dict, extra: str = "") -> Path:
    root = tmp_path / "platform"
    (root / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", root / "Pulumi.yaml")
    project = yaml.safe_load((root / "Pulumi.yaml").read_text())
    project["runtime"] = "python"  # this interpreter: the checkout's venv is the one running the tests
    (root / "Pulumi.yaml").write_text(yaml.safe_dump(project))
    (root / "stacks" / "__main__.py").write_text(PROGRAM.format(program=str(ROOT / "stacks" / "__main__.py"),
                                                                extra=extra))
    (root / "stacks" / "Pulumi.aws-prod-dra.yaml").write_text(yaml.safe_dump({"config": config}))
    return root


def run_plan(capsys, root: Path) -> tuple[int, dict]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["plan", "--project-dir", str(root), "--stack", "aws-prod-dra", "--json"])
    finally:
        os.chdir(cwd)
    return code, json.loads(capsys.readouterr().out)


def allocation_findings(data: dict) -> list[tuple[str, str]]:
    return [(v["policy"], v["resource"]) for v in data["policy"]["violations"]
            if v["policy"] in ("gpu-allocation-single", "gpu-device-plugin", "schedulable")]


def test_an_unchanged_nvidia_gpu_deployment_places_on_the_gpu_pool_and_the_pack_agrees(capsys, tmp_path, stack_config):
    code, data = run_plan(capsys, plan_project(tmp_path, dra_config(stack_config)))
    assert data["error"] is None and code == 0 and data["policy"]["mandatory"] == 0
    reach = {w["workload"]: w["reachable"] for w in data["placement"]["workloads"]}
    assert reach["llm"] == ["np-aws-prod-inference"]  # not the MIG pool: it offers nvidia.com/mig-1g.5gb
    assert allocation_findings(data) == []
    assert {a["release"] for a in data["addons"]} == {"dra-driver-nvidia-gpu", "cluster-autoscaler", "kueue"}


def test_a_device_plugin_beside_the_dra_driver_fails_the_plan(capsys, tmp_path, stack_config):
    code, data = run_plan(capsys, plan_project(tmp_path, dra_config(stack_config), EXTRA_PLUGIN))
    assert code == 1
    assert sorted(allocation_findings(data)) == [
        ("gpu-allocation-single", "aws:eks/nodeGroup:NodeGroup np-aws-prod-inference"),
        ("gpu-allocation-single", "aws:eks/nodeGroup:NodeGroup np-aws-prod-inference-mig"),
        ("gpu-allocation-single", "aws:eks/nodeGroup:NodeGroup np-aws-prod-training")]
