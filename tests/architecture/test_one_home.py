"""One home per concept (docs/architecture.md), checked by behaviour: for each concept every
consumer is asked the same question and must give one answer, and where the home can be changed
(monkeypatched in this process, patched before import in a child process or in the policy pack's
own process) every consumer must follow it. A second home, a copy that agrees today, fails the
second half: it keeps the old answer.

Concepts: the default Kubernetes minor, the supported minors and the minimum (the table in
``spec/kube_versions.py``), the class presets (``spec/presets.py``), GPU resource names
(``vocabulary.is_gpu_resource``), the tolerations reader (``inventory/podspec.toleration_entries``),
a pool's outputs (``spec/outputs.PoolOutputs``) and the guardrails' rules (``guardrails/checks.py``).
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pulumi_kubernetes as k8s
import pytest
import yaml

import nodepools

REPO = Path(__file__).resolve().parents[2]
for helpers in ("policy", "multilang", "pack"):
    sys.path.insert(0, str(REPO / "tests" / helpers))

from multilang_configs import EKS_GUARDRAILS, EKS_POOLS, EKS_WIRE, OIDC_ARN, OIDC_URL  # noqa: E402
from multilang_harness import construct  # noqa: E402
from pack_under_test import pack_runner  # noqa: E402
from policy_builders import (CLASS, DEPLOYMENT, JOB, container, golden, pod_template, toleration,  # noqa: E402
                             workload)
from suite_dates import PINNED  # noqa: E402

from nodepools import vocabulary  # noqa: E402
from nodepools.inventory import podspec  # noqa: E402
from nodepools.offline.engine import run_program_capture  # noqa: E402
from nodepools.spec import kube_versions as kv  # noqa: E402
from nodepools.vocabulary import Cloud, PoolClass  # noqa: E402

PACKAGE = Path(nodepools.__file__).parent
SOURCES = {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text()) for p in PACKAGE.rglob("*.py")}


def patch_everywhere(monkeypatch: pytest.MonkeyPatch, home: ModuleType, name: str, replacement: Callable) -> Callable:
    """Replace ``home.name`` in every nodepools module that holds it (under any name), as a changed
    home would be seen; returns the original. A module with its own copy keeps its copy."""
    original = getattr(home, name)
    for module in [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "nodepools" and m is not None]:
        for attr, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attr, replacement)
    return original


def stack_config(stack: str = "aws-dev") -> dict[str, Any]:
    return yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def run_stack(stack: str = "aws-dev"):
    run, error = run_program_capture(lambda: runpy.run_path(str(REPO / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack=stack, config=stack_config(stack), preview=True)
    assert error is None, error
    return run


def schema_descriptions(type_name: str) -> dict[str, str]:
    from nodepools.multilang.provider import NodepoolsProvider
    types = json.loads(NodepoolsProvider().schema)["types"]
    return {k: p["description"] for k, p in types[f"nodepools:index:{type_name}"]["properties"].items()}


# --- The Kubernetes minors: the default, the supported set, the minimum ----------------------------

# Asked of every consumer, in this process or in a child whose home was changed before it imported them.
MINOR_QUESTIONS = '''
import json, yaml
from pathlib import Path
answers = {}
from nodepools.clouds.cluster_settings import EksClusterConfig, GkeClusterConfig
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.spec.errors import describe
from pydantic import ValidationError
config = yaml.safe_load(Path(STACK_FILE).read_text())["config"]
cluster = dict(config["nodepools:cluster"])
answers["default: EKS cluster settings"] = EksClusterConfig.model_fields["kubernetes_version"].default
answers["default: GKE cluster settings"] = GkeClusterConfig.model_fields["kubernetes_version"].default
answers["default: guardrails"] = GuardrailsSpec().kubernetes_version
from nodepools.config.stack_config import load_stack_config
raw = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith("nodepools:")}
raw["cluster"] = {k: v for k, v in cluster.items() if k != "kubernetes_version"}
loaded = load_stack_config(raw)
answers["default: stack config cluster"] = loaded.cluster.kubernetes_version
answers["default: stack config guardrails"] = loaded.guardrails.kubernetes_version
from nodepools.multilang.provider import NodepoolsProvider
guardrails = json.loads(NodepoolsProvider().schema)["types"]["nodepools:index:Guardrails"]["properties"]
text = guardrails["kubernetesVersion"]["description"]
answers["default: other languages' schema"] = text.rsplit("Default: ", 1)[1].rstrip(".")
answers["supported: other languages' schema"] = text.split("One of ", 1)[1].split(". ", 1)[0].split(", ")
def allowed(build):
    try:
        build()
    except ValidationError as err:
        return next(line for line in describe(err) if "allowed: " in line).split("allowed: ")[1].rstrip(")").split(", ")
answers["supported: EKS cluster settings"] = allowed(lambda: EksClusterConfig.model_validate(
    {**cluster, "kubernetes_version": "0.1"}))
answers["supported: guardrails"] = allowed(lambda: GuardrailsSpec(kubernetes_version="0.1"))
from nodepools.guardrails.upstream import compat
answers["supported: add-on table"] = [row.split(" | ")[0].strip("| ") for row in compat.table().splitlines()[2:]]
from nodepools.policies.settings import PROPERTIES, Settings
from nodepools.policies.registry import BY_NAME
answers["minimum: pack setting"] = Settings().min_cluster_version
answers["minimum: pack schema"] = PROPERTIES["minClusterVersion"]["default"]
answers["minimum: policy description"] = BY_NAME["cluster-version"].description.split("(default ", 1)[1].split(")")[0]
from nodepools.offline.fakes import fake_outputs
answers["EKS's own default: offline EKS"] = fake_outputs("aws:eks/cluster:Cluster", "c", {})["version"]
print(json.dumps(answers))
'''


def ask_every_minor_consumer(preamble: str = "") -> dict[str, Any]:
    code = f"STACK_FILE = {str(REPO / 'stacks' / 'Pulumi.aws-dev.yaml')!r}\n{preamble}\n{MINOR_QUESTIONS}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def one_answer_each(answers: dict[str, Any]) -> dict[str, set]:
    concepts: dict[str, set] = {}
    for question, answer in answers.items():
        concepts.setdefault(question.split(":")[0], set()).add(json.dumps(answer))
    return concepts


def test_the_minors_are_derived_from_one_table():
    """The names every consumer imports are the table's answers, by the rules the table states."""
    supported = tuple(m.minor for m in kv.MINORS if m.supported)
    assert kv.SUPPORTED_KUBERNETES_VERSIONS == supported
    assert kv.MINIMUM_KUBERNETES_VERSION == min(supported, key=kv.minor)
    assert kv.DEFAULT_KUBERNETES_VERSION == max((m.minor for m in kv.MINORS if m.supported
                                                 and m.eks.served and m.gke.served), key=kv.minor)
    assert {c: dict(t) for c, t in kv.STANDARD_SUPPORT_END.items()} == {
        c: {m.minor: m.on(c).standard_support_end for m in kv.MINORS} for c in Cloud}
    assert dict(kv.END_OF_SUPPORT) == {m.minor: m.end_of_life for m in kv.MINORS if m.end_of_life}
    # Each cell names the cloud calendar it was read from, and the day.
    assert all(m.eks.reading.cloud is Cloud.AWS and m.gke.reading.cloud is Cloud.GCP for m in kv.MINORS)
    assert all(m.on(c).reading.source and m.on(c).reading.read_on for m in kv.MINORS for c in Cloud)


def test_every_consumer_gives_the_tables_answer_and_follows_the_table():
    today = ask_every_minor_consumer()
    expected = {"default": kv.DEFAULT_KUBERNETES_VERSION, "supported": list(kv.SUPPORTED_KUBERNETES_VERSIONS),
                "minimum": kv.MINIMUM_KUBERNETES_VERSION, "EKS's own default": kv.newest_served(Cloud.AWS)}
    assert {q: a for q, a in today.items()} == {q: expected[q.split(":")[0]] for q in today}
    # The table moves (1.36 served on both clouds, 1.37 supported, 1.32 dropped): so does every consumer.
    moved = ask_every_minor_consumer('''
import dataclasses
import nodepools.spec.kube_versions as kv
def moved(m):
    if m.minor == "1.36":
        return dataclasses.replace(m, eks=dataclasses.replace(m.eks, served=True),
                                   gke=dataclasses.replace(m.gke, served=True))
    return dataclasses.replace(m, supported=False) if m.minor == "1.32" else m
kv.MINORS = (*map(moved, kv.MINORS), dataclasses.replace(kv.MINORS[-1], minor="1.37"))
kv.SUPPORTED_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36", "1.37")
kv.DEFAULT_KUBERNETES_VERSION, kv.MINIMUM_KUBERNETES_VERSION = "1.36", "1.33"
''')
    expected = {"default": "1.36", "supported": ["1.33", "1.34", "1.35", "1.36", "1.37"], "minimum": "1.33",
                "EKS's own default": "1.36"}
    assert moved == {q: expected[q.split(":")[0]] for q in moved}


# --- Class presets --------------------------------------------------------------------------------

def preset_answers() -> dict[str, Any]:
    """gpu-training's default min, max and disk, as each consumer states or applies it."""
    from nodepools.spec.pool import PoolSpec
    built = PoolSpec(name="train", pool_class="gpu-training", instance_types=["p4d.24xlarge"])
    schema = PoolSpec.model_json_schema()["properties"]
    other_languages = schema_descriptions("Pool")

    def stated(text: str) -> int:
        return int(re.search(r"gpu-training (\d+)", text).group(1))
    return {
        "built PoolSpec": (built.min_nodes, built.max_nodes, built.disk_size_gib),
        "PoolSpec's JSON schema": tuple(stated(schema[f]["description"])
                                        for f in ("min_nodes", "max_nodes", "disk_size_gib")),
        "other languages' schema": tuple(stated(other_languages[f]) for f in ("minNodes", "maxNodes", "diskSizeGib")),
    }


def test_every_consumer_states_and_applies_the_class_presets_and_follows_them(monkeypatch):
    from nodepools.spec import presets
    training = presets.PRESETS[PoolClass.GPU_TRAINING]
    today = (training.default_min_nodes, training.default_max_nodes, training.default_disk_size_gib)
    assert set(preset_answers().values()) == {today}
    monkeypatch.setitem(presets.PRESETS, PoolClass.GPU_TRAINING, dataclasses.replace(
        training, default_min_nodes=1, default_max_nodes=7, default_disk_size_gib=300))
    assert set(preset_answers().values()) == {(1, 7, 300)}


# --- GPU resource names and the tolerations reader --------------------------------------------------

NAMES = ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared", "amd.com/gpu", "example.com/fpga")
PATCHED_GPU = "example.com/fpga"


def gpu_answers() -> dict[str, tuple[bool, ...]]:
    """For each name: is it a GPU, asked of the request side (does a container requesting it request a
    GPU) and the offer side (does a GPU node's capacity count it as its GPU)."""
    from nodepools.inventory.gpu_requests import containers_request_gpu
    from nodepools.inventory.pools import PoolView
    from nodepools.placement.capacity import node_sizes
    pool = PoolView(type="aws:eks/nodeGroup:NodeGroup", urn="urn:infer", name="infer", cluster="prod", labels={},
                    taints=[], spot=False, min_nodes=1.0, max_nodes=2.0, instance_types=["g6.xlarge"], gpu_count=1.0,
                    gpu_model="nvidia-l4", gpu_image=True)
    [size] = node_sizes(pool)
    return {
        "request side": tuple(containers_request_gpu({"containers": [{"resources": {"requests": {n: "1"}}}]}) is True
                              for n in NAMES),
        "offer side": tuple(isinstance(size.allocatable(n), float) for n in NAMES),
        "vocabulary": tuple(vocabulary.is_gpu_resource(n) for n in NAMES),
    }


def test_one_answer_to_is_this_a_gpu_resource_and_it_follows_the_vocabulary(monkeypatch):
    answers = gpu_answers()
    assert set(answers.values()) == {(True, True, True, False, False)}, answers
    original = vocabulary.is_gpu_resource
    patch_everywhere(monkeypatch, vocabulary, "is_gpu_resource", lambda name: name == PATCHED_GPU or original(name))
    assert set(gpu_answers().values()) == {(True, True, True, False, True)}


def probes() -> list:
    """A 2-pod batch Job asking for ``PATCHED_GPU``, and a resident Deployment that tolerates nothing."""
    ask = {PATCHED_GPU: 1.0}
    gpu = workload(JOB, "probe-gpu", "batch", {"parallelism": 2.0, "template": pod_template("batch", {
        "priorityClassName": "nodepools-batch", "restartPolicy": "Never", "tolerations": [toleration(CLASS, "batch")],
        "containers": [{**container("1", "1Gi"), "resources": {"requests": {"cpu": "1", "memory": "1Gi", **ask},
                                                                "limits": {"cpu": "1", "memory": "1Gi", **ask}}}]},
        annotations={"nodepools.io/checkpoint-interval": "15m"})})
    tolerant = workload(DEPLOYMENT, "probe-tolerant", "services", {"replicas": 2.0, "template": pod_template(
        "resident", {"priorityClassName": "nodepools-resident", "containers": [container("500m", "512Mi")]})})
    return [gpu, tolerant]


# Patched in the policy pack's own process before it imports a rule: "example.com/fpga" is a GPU,
# and every pod tolerates every taint (a blanket toleration after its own).
SITECUSTOMIZE = f'''
import nodepools.vocabulary as vocabulary
import nodepools.inventory.podspec as podspec
_is_gpu, _entries = vocabulary.is_gpu_resource, podspec.toleration_entries
vocabulary.is_gpu_resource = lambda name: name == {PATCHED_GPU!r} or _is_gpu(name)
def toleration_entries(spec):
    entries = _entries(spec)
    return entries if podspec.is_unknown(entries) else [*entries, (len(entries), {{"operator": "Exists"}})]
podspec.toleration_entries = toleration_entries
'''
# What the patched homes change, per probe: each side of each question must move with its home.
FOLLOWING = {("probe-gpu", "gang-scheduling"), ("probe-tolerant", "no-blanket-tolerations"),
             ("probe-tolerant", "gpu-nodes-gpu-only")}


def pack_verdicts(patched_dir: Path | None, monkeypatch) -> set[tuple[str, str]]:
    """(probe, policy) of each violation the real pack reports over gRPC about a probe."""
    if patched_dir is not None:  # its sitecustomize runs in the pack's interpreter before anything else
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(patched_dir),
                                                                        os.environ.get("PYTHONPATH")))))
    runner = pack_runner(today=PINNED).start()
    try:
        stack = golden().add(*probes())
        names = {r.urn: r.name for r in stack.items}
        return {(names[d.urn], d.policy) for d in runner.check(list(stack.items), None)
                if names.get(d.urn, "").startswith("probe-") and not d.cannot_judge}
    finally:
        runner.close()


def placement_verdicts() -> dict[str, Any]:
    from nodepools.inventory.stack_model import StackModel
    from nodepools.placement import analyze
    stack = golden().add(*probes())
    report = analyze(StackModel(stack.items, today=PINNED))
    return {"probe-gpu requests a GPU": report.summary("probe-gpu").requests_gpu,
            "probe-tolerant admitted on the GPU pools": sorted(v.pool.name for v in report.verdicts
                                                               if v.workload.name == "probe-tolerant" and v.admitted
                                                               and v.pool.name in ("infer", "train"))}


def test_the_pack_and_placement_read_gpu_names_and_tolerations_from_their_homes(tmp_path, monkeypatch):
    """Today the probes draw none of FOLLOWING; with both homes changed in the pack's process and
    in this one (placement), all of them."""
    assert pack_verdicts(None, monkeypatch) & FOLLOWING == set()
    assert placement_verdicts() == {"probe-gpu requests a GPU": False, "probe-tolerant admitted on the GPU pools": []}
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    assert pack_verdicts(tmp_path, monkeypatch) >= FOLLOWING
    original_gpu = vocabulary.is_gpu_resource
    patch_everywhere(monkeypatch, vocabulary, "is_gpu_resource", lambda n: n == PATCHED_GPU or original_gpu(n))
    original_entries = podspec.toleration_entries
    patch_everywhere(monkeypatch, podspec, "toleration_entries", lambda spec: (
        entries if podspec.is_unknown(entries := original_entries(spec))
        else [*entries, (len(entries), {"operator": "Exists"})]))
    assert placement_verdicts() == {"probe-gpu requests a GPU": True,
                                    "probe-tolerant admitted on the GPU pools": ["infer", "train"]}


def test_no_module_but_the_reader_reads_a_pod_specs_tolerations_field():
    """The rules that run only in the pack read tolerations through the reader too."""
    readers = {m for m, tree in SOURCES.items() for node in ast.walk(tree)
               if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dig"
               and any(isinstance(a, ast.Constant) and a.value == "tolerations" for a in node.args)}
    assert readers == {"inventory/podspec.py"}


# --- A pool's outputs -------------------------------------------------------------------------------

def pool_names_in_outputs() -> dict[str, set[str]]:
    """The poolName of each pool as every consumer of a pool's outputs shows it."""
    from nodepools.plan.pools import registered_pools
    run = run_stack()
    components = [run.component_outputs[r.urn] for r in run.of_type(vocabulary.COMPONENT_NODE_POOL)]
    built = construct("EksPlatform", EKS_WIRE)
    assert built.error is None, built.error
    return {
        "NodePool component": {c["poolName"] for c in components},
        "stack export": {p["poolName"] for p in run.outputs["pools"].values()},
        "plan's pools table": {row["name"] for row in registered_pools(run)},
        "other languages' output": {p["poolName"] for p in built.state["pools"].values()},
    }


def test_every_consumer_of_a_pools_outputs_writes_pool_outputs(monkeypatch):
    from nodepools.spec.outputs import PoolOutputs
    pools = {p["name"] for p in stack_config()["nodepools:pools"]}
    wire = {p["name"] for p in EKS_WIRE["pools"]}
    today = pool_names_in_outputs()
    assert today == {"NodePool component": pools, "stack export": pools, "plan's pools table": pools,
                     "other languages' output": wire}
    original = PoolOutputs.as_dict
    monkeypatch.setattr(PoolOutputs, "as_dict", lambda self: {**original(self), "poolName": f"one-{self.pool_name}"})
    moved = pool_names_in_outputs()
    assert moved == {k: {f"one-{n}" for n in v} for k, v in today.items()}


# --- The guardrails' rules --------------------------------------------------------------------------

MARK_SPEC, MARK_POOLS = "rule of the spec alone", "rule against the pools"


def guardrail_messages() -> dict[str, str]:
    """Every door's refusal of one platform whose guardrails break a rule of each kind (a LimitRange
    request above its limit; a namespace for a GPU class without a pool), as one text per door."""
    from pydantic import ValidationError

    from nodepools.backends.aws import EksCluster
    from nodepools.components.platform import Platform
    from nodepools.config.stack_config import StackConfigError, load_stack_config
    from nodepools.guardrails.spec import GuardrailsSpec
    bad = {**EKS_GUARDRAILS, "limit_range": {"default_request_cpu_millicores": 4000},
           "namespaces": {"gpu-inference": "serving"}}
    out = {}
    try:
        GuardrailsSpec(**bad)
    except ValidationError as err:
        out["GuardrailsSpec"] = str(err)
    cluster = EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000c1a",
                         oidc_provider_arn=OIDC_ARN, oidc_issuer_url=OIDC_URL)
    for name, guardrails in (("Platform.validate (spec)", bad),
                             ("Platform.validate (pools)", {**EKS_GUARDRAILS, "namespaces": bad["namespaces"]})):
        try:
            Platform.validate(cluster, {"pools": EKS_POOLS, "guardrails": guardrails, "region": "us-west-2"})
        except ValidationError as err:
            out[name] = str(err)
    config = stack_config()
    raw = {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith("nodepools:")}
    for name, guardrails in (("stack config (spec)", bad), ("stack config (pools)", {"namespaces": bad["namespaces"]})):
        try:
            load_stack_config({**raw, "guardrails": {**raw.get("guardrails", {}), **guardrails,
                                                     "kubernetes_version": raw["cluster"]["kubernetes_version"]}})
        except StackConfigError as err:
            out[name] = str(err)
    wire = {**EKS_WIRE, "guardrails": {**EKS_WIRE["guardrails"], "limitRange": {"defaultRequestCpuMillicores": 4000.0},
                                       "namespaces": {"gpu-inference": "serving"}}}
    out["other languages (spec)"] = str(construct("EksPlatform", wire).error)
    wire = {**EKS_WIRE, "guardrails": {**EKS_WIRE["guardrails"], "namespaces": {"gpu-inference": "serving"}}}
    out["other languages (pools)"] = str(construct("EksPlatform", wire).error)
    return out


def test_every_door_runs_the_one_rule_module_and_follows_it(monkeypatch):
    from nodepools.guardrails import checks
    today = guardrail_messages()
    spec_doors = [d for d in today if "(pools)" not in d]
    assert all("must be <=" in today[d] for d in spec_doors), today
    assert all("has no gpu-inference pool" in today[d] for d in today if "(pools)" in d), today
    original_spec, original_pools = checks.spec_problems, checks.guardrail_problems

    def spec_problems(spec, problems):  # the home, changed: one more line wherever it finds a problem
        original_spec(spec, problems)
        if problems:
            problems.add("kueue", MARK_SPEC, None)

    def guardrail_problems(spec, pools, problems, root=()):
        original_pools(spec, pools, problems, root)
        if problems:
            problems.add(root + ("kueue",), MARK_POOLS, None)

    patch_everywhere(monkeypatch, checks, "spec_problems", spec_problems)
    patch_everywhere(monkeypatch, checks, "guardrail_problems", guardrail_problems)
    moved = guardrail_messages()
    assert {d: (MARK_SPEC in text) for d, text in moved.items() if d in spec_doors} == {d: True for d in spec_doors}
    assert {d: (MARK_POOLS in text) for d, text in moved.items() if "(pools)" in d} == {
        d: True for d in today if "(pools)" in d}


# --- Concepts whose one home is a table or a model --------------------------------------------------

def defined(pattern: str) -> set[str]:
    """Modules defining a function, class or module-level name matching ``pattern``."""
    rx = re.compile(pattern)
    found = set()
    for module, tree in SOURCES.items():
        for node in ast.walk(tree):
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node in tree.body:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(rx.fullmatch(n) for n in names):
                found.add(module)
    return found


def test_one_taint_effect_table():
    assert defined(r"TAINT_EFFECTS|TAINT_EFFECT_OF") == {"clouds/taints.py"}


def test_the_whole_version_rule_in_one_module():
    assert defined(r"check_\w*version\w*|check_minimum|_?VERSION_FIELD|_MINOR") == {"policies/rules_versions.py"}


def test_the_pack_config_is_one_model():
    assert defined(r"PROPERTIES|SHARED(_KEYS)?|Settings") == {"policies/settings.py"}
    # Defaults are written once, on the model's fields: no schema literal repeats one.
    settings = SOURCES["policies/settings.py"]
    literal_defaults = [node for node in ast.walk(settings) if isinstance(node, ast.Dict) and any(
        isinstance(k, ast.Constant) and k.value == "default" and isinstance(val, (ast.Constant, ast.List, ast.Dict))
        for k, val in zip(node.keys, node.values))]
    assert literal_defaults == []


# --- A workload's namespace and class: one stack model ------------------------------------------------

def test_one_reader_of_a_workloads_namespace_and_class(today):
    """Asked about the same stack, the plan's placement and the pack's stack view give every workload the
    same namespace and class (over every corpus of the suite: test_one_stack_model.py); here the stacks
    whose namespace a Namespace's output names, which two readers once answered differently."""
    from policy_builders import namespaced_by_dependency
    from stack_sides import PackProbe, plan_side

    probe = PackProbe(today)
    for named in (False, True):
        items = list(namespaced_by_dependency(named).items)
        plan, pack = plan_side(items, today), probe.side(items)
        assert plan == pack and plan[namespaced_by_dependency(named).urn("shop")][1] is PoolClass.RESIDENT
