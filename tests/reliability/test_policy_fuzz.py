"""Fuzzing the real policy pack over gRPC (one pack process for the session).

Hypothesis damages the properties of resources in an otherwise compliant stack
(``fuzz_stack``: the reference platforms plus one workload of every kind), for
every resource type the pack reads, and sends the whole stack through the
Analyzer protocol as the engine would. Whatever arrives, the pack must answer:
no gRPC error, no crash, and no diagnostic that is an exception's text.

Examples per test are modest by default; ``NODEPOOLS_FUZZ_EXAMPLES=<n>`` raises
the per-type count (the other tests scale with it) and ``NODEPOOLS_FUZZ_RANDOM=1``
explores new inputs instead of the fixed (derandomized) sequence.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from nodepools.offline.analyzer import UNKNOWN_WIRE, Diagnostic, PackError, PolicyPackRunner
from nodepools.inventory.resource import Resource

from nodepools.inventory.workloads import WORKLOAD_TYPES

from fuzz_mutations import get_path, malformations, mutated_props, pod_spec_paths, set_path
from fuzz_random import EXCEPTION_TEXT, INTERNAL_ERROR, RUNS, analyze_damaged, date_seed, positions, run
from fuzz_stack import TRIED, base_stack, pack_types

PER_TYPE = int(os.environ.get("NODEPOOLS_FUZZ_EXAMPLES", "4"))
# The counting fuzzer's slice in every run: a new one each day (the seed is the date unless
# NODEPOOLS_FUZZ_SEED gives one), printed in the summary; `make fuzz` runs 100,000.
SLICE = int(os.environ.get("NODEPOOLS_FUZZ_SLICE", "100"))
SEED = os.environ.get("NODEPOOLS_FUZZ_SEED") or date_seed()
FUZZ = dict(deadline=None, database=None, derandomize=os.environ.get("NODEPOOLS_FUZZ_RANDOM") != "1",
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.function_scoped_fixture])
# Without shrinking a failure is reported at once instead of after minutes of
# minimising; the drawn path and value already say what broke.
FIRST_FAILURE = (Phase.explicit, Phase.generate)
sys.path.insert(0, str(Path(__file__).parents[1] / "pack"))
from pack_under_test import pack_runner  # noqa: E402


@pytest.fixture(scope="module")
def pack(session_told):
    """``policy/`` unless ``NODEPOOLS_TEST_PACK`` says otherwise (tests/pack/pack_under_test.py), on the
    suite's date."""
    runner = pack_runner(today=session_told).start()
    runner.configure()  # every policy at its default level and config
    yield runner
    runner.close()


BASES = {cloud: base_stack(cloud) for cloud in ("aws", "gcp", "karpenter")}
TYPES = pack_types(BASES)
WORKLOADS = sorted((r.type, r.name) for r in BASES["gcp"] if r.type in WORKLOAD_TYPES)


def judged(pack: PolicyPackRunner, stack: list[Resource], damaged: set[str]) -> list[Diagnostic]:
    """The pack's diagnostics; every way of failing to answer is a test failure."""
    for item in stack:
        if item.urn in damaged:
            TRIED[item.type] += 1
    try:
        diagnostics = analyze_damaged(pack, stack, damaged)
    except PackError as error:
        pytest.fail(f"the pack failed on damaged {sorted(damaged)}:\n{error}")
    names = set(pack.info().policies)
    for d in diagnostics:
        assert d.policy in names, d
        assert d.message.strip(), d
        assert not EXCEPTION_TEXT.search(d.message), f"exception text in a diagnostic: {d}"
        assert INTERNAL_ERROR not in d.message, f"a rule raised: {d}"
        assert UNKNOWN_WIRE not in d.message, f"the preview sentinel leaked into a message: {d}"
        if d.cannot_judge:
            assert d.level == "advisory", d
    return diagnostics


def damage(data, stack: list[Resource], indexes: list[int], unknown_only: bool = False) -> set[str]:
    for i in indexes:
        stack[i] = replace(stack[i], props=data.draw(mutated_props(stack[i].props, unknown_only),
                                                          label=f"{stack[i].type} {stack[i].name}"))
    return {stack[i].urn for i in indexes}


@pytest.mark.parametrize("cloud, type_", TYPES, ids=[f"{c}:{t}" for c, t in TYPES])
@settings(max_examples=PER_TYPE, **FUZZ)
@given(data=st.data())
def test_damaged_properties_of_every_type_never_break_the_pack(pack, cloud, type_, data):
    stack = list(BASES[cloud])
    candidates = [i for i, r in enumerate(stack) if r.type == type_]
    picked = data.draw(st.sampled_from(candidates), label="resource")
    judged(pack, stack, damage(data, stack, [picked]))


@settings(max_examples=PER_TYPE * 5, **FUZZ)
@given(data=st.data())
def test_several_damaged_resources_at_once(pack, data):
    cloud = data.draw(st.sampled_from(sorted(BASES)), label="cloud")
    stack = list(BASES[cloud])
    picked = data.draw(st.lists(st.integers(0, len(stack) - 1), min_size=2, max_size=5, unique=True), label="resources")
    judged(pack, stack, damage(data, stack, picked))


def _about(d: Diagnostic, item: Resource) -> bool:
    """A diagnostic on ``item``: a violation naming it, or a cannot-judge note for it."""
    return d.urn == item.urn or (d.cannot_judge and f"'{item.name}'" in d.message)


@pytest.mark.parametrize("type_, name", [pytest.param(t, n, id=f"{t.rsplit(':', 1)[-1]}:{n}") for t, n in WORKLOADS])
@settings(max_examples=PER_TYPE * 2, phases=FIRST_FAILURE, **FUZZ)
@given(data=st.data())
def test_a_malformed_workload_is_never_silently_accepted(pack, type_, name, data):
    """The workload is compliant as given; without a valid pod to judge (its spec,
    template, pod spec or containers absent, null, unknown, empty or mistyped) the
    pack must say so: a violation, or a cannot-judge note naming it."""
    stack = list(BASES["gcp"])
    i = next(i for i, r in enumerate(stack) if r.type == type_ and r.name == name)
    path = data.draw(st.sampled_from(pod_spec_paths(WORKLOAD_TYPES[type_])), label="path")
    bad = data.draw(malformations(get_path(stack[i].props, path)), label="malformation")
    stack[i] = replace(stack[i], props=set_path(stack[i].props, path, bad))
    diagnostics = judged(pack, stack, {stack[i].urn})
    assert [d for d in diagnostics if _about(d, stack[i])], (
        f"{name} with {'.'.join(map(str, path))} = {bad!r:.80} got no verdict")


@settings(max_examples=PER_TYPE * 6, phases=FIRST_FAILURE, **FUZZ)
@given(data=st.data())
def test_unknown_values_never_turn_a_compliant_stack_into_violations(pack, data):
    """Preview leaves values unknown: the pack may not reach a verdict (an advisory
    cannot-judge note) but it may never report a violation the known value would not."""
    cloud = data.draw(st.sampled_from(sorted(BASES)), label="cloud")
    stack = list(BASES[cloud])
    picked = data.draw(st.lists(st.integers(0, len(stack) - 1), min_size=1, max_size=3, unique=True),
                       label="resources")
    diagnostics = judged(pack, stack, damage(data, stack, picked, unknown_only=True))
    assert [d for d in diagnostics if not d.cannot_judge] == []


def test_a_random_slice_of_the_counting_fuzzer(pack):
    """Inputs 0..SLICE-1 of today's seed: random damage of every type in turn, a third of it
    unknowns only; every outcome counted (crashes, exception text, unknowns turned into violations)."""
    tally = run(pack, BASES, TYPES, SEED, range(SLICE))
    RUNS.append(f"seed {SEED!r}: {tally.summary()}")
    TRIED.update(tally.per_type)
    assert tally.inputs == SLICE and set(tally.per_type) == {t for _, t in TYPES}
    assert tally.failures == 0, f"seed {SEED!r}: {tally.summary()}\n" + "\n".join(tally.examples)


# Every position the sentinel can take, per type: each property path of each resource of it.
POSITIONS = {type_: [(i, path) for i, r in enumerate(BASES[cloud]) if r.type == type_
                     for path in positions(r.props)] for cloud, type_ in TYPES}


@pytest.mark.parametrize("cloud, type_", TYPES, ids=[f"{c}:{t}" for c, t in TYPES])
@settings(max_examples=max(1, PER_TYPE // 2), phases=FIRST_FAILURE, **FUZZ)
@given(data=st.data())
def test_the_unknown_sentinel_anywhere_is_never_a_violation(pack, cloud, type_, data):
    """Pulumi's unknown, as it arrives over gRPC, in any one position of any resource the pack
    reads: no error, no violation (cannot-judge notes only). `make fuzz` puts it in every one."""
    i, path = data.draw(st.sampled_from(POSITIONS[type_]), label="position")
    stack = list(BASES[cloud])
    stack[i] = replace(stack[i], props=set_path(stack[i].props, path, UNKNOWN_WIRE))
    diagnostics = judged(pack, stack, {stack[i].urn})
    assert [(d.policy, d.message) for d in diagnostics if not d.cannot_judge] == [], path


# Representative cases of two gaps the fuzzer found (malformed containers got no
# verdict; unknowns became violations), each stating the verdict it gets now.
# (path, value): value "<delete>" removes the entry.
KNOWN_GAPS = [
    # A pod with no containers is not a valid pod: say so (or say it cannot be judged).
    ("no-containers", "kubernetes:apps/v1:Deployment", "api", ("spec", "template", "spec", "containers"), "<delete>",
     "verdict"),
    ("containers-not-a-list", "kubernetes:batch/v1:Job", "etl", ("spec", "template", "spec", "containers"), "main",
     "verdict"),
    ("unknown-container", "kubernetes:apps/v1:Deployment", "api", ("spec", "template", "spec", "containers", 0),
     UNKNOWN_WIRE, "verdict"),
    # Unknown at preview: no violation the known value would not have.
    ("unknown-pool-taint", "aws:eks/nodeGroup:NodeGroup", "p-jobs", ("taints", 0), UNKNOWN_WIRE, "no-violation"),
    ("unknown-gke-pool-class-label", "gcp:container/nodePool:NodePool", "p-jobs",
     ("nodeConfig", "labels", "nodepools.io/pool-class"), UNKNOWN_WIRE, "no-violation"),
    ("unknown-pod-template", "kubernetes:apps/v1:Deployment", "api", ("spec", "template"), UNKNOWN_WIRE,
     "no-violation"),
    ("unknown-toleration", "kubernetes:batch/v1:Job", "etl", ("spec", "template", "spec", "tolerations", 0),
     UNKNOWN_WIRE, "no-violation"),
    ("unknown-gpu-request", "kubernetes:kubeflow.org/v1:PyTorchJob", "finetune",
     ("spec", "pytorchReplicaSpecs", "Worker", "template", "spec", "containers", 0, "resources", "requests",
      "nvidia.com/gpu"), UNKNOWN_WIRE, "no-violation"),
    ("unknown-workload-labels", "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "pretrain", ("metadata", "labels"),
     UNKNOWN_WIRE, "no-violation"),
    ("unknown-namespace-name", "kubernetes:core/v1:Namespace", "p-guardrails-ns-resident", ("metadata", "name"),
     UNKNOWN_WIRE, "no-violation"),
    ("unknown-cronjob-spec", "kubernetes:batch/v1:CronJob", "nightly", ("spec",), UNKNOWN_WIRE, "no-violation"),
]


@pytest.mark.parametrize("case, type_, name, path, value, expect", [
    pytest.param(*c, id=c[0]) for c in KNOWN_GAPS])
def test_known_gap(pack, case, type_, name, path, value, expect):
    cloud = "aws" if type_.startswith("aws:") else "gcp"
    stack = list(BASES[cloud])
    i = next(i for i, r in enumerate(stack) if r.type == type_ and r.name == name)
    stack[i] = replace(stack[i], props=set_path(stack[i].props, path, value))
    diagnostics = judged(pack, stack, {stack[i].urn})
    if expect == "verdict":
        assert [d for d in diagnostics if _about(d, stack[i])], f"{case}: no verdict"
    else:
        assert [(d.policy, d.message) for d in diagnostics if not d.cannot_judge] == []


KARPENTER = "kubernetes:karpenter.sh/v1:NodePool"
REQUIREMENT = ("spec", "template", "spec", "requirements", 1)  # the jobs pool's instance-type requirement
QUOTA_NOTE = ("namespace-quota", "ResourceQuota 'p-guardrails-quota-batch-nodepools-quota' in namespace 'batch': "
              "cannot judge spec.hard during preview: pool 'jobs': its {} is unknown, so the resident and batch "
              "pools' size is")
# Issue 26: what the fuzzers found, each with the verdict it gets now: (cloud, type, name, path,
# value, the notes that must be among the answer's, as (policy, text)). A value of the wrong shape
# gets an answer (the provider refuses it anyway); an unknown one no violation.
FOUND = [
    ("capacity-type-a-list", "aws", "aws:eks/nodeGroup:NodeGroup", "p-jobs", ("capacityType",), ["SPOT"], []),
    ("capacity-type-a-map", "aws", "aws:eks/nodeGroup:NodeGroup", "p-jobs", ("capacityType",), {"v": "SPOT"}, []),
    ("accelerator-type-a-list", "gcp", "gcp:container/nodePool:NodePool", "p-infer",
     ("nodeConfig", "guestAccelerators", 0, "type"), ["nvidia-l4"], []),
    ("requirement-key-a-list", "karpenter", KARPENTER, "p-jobs-nodepool", (*REQUIREMENT, "key"), ["x"], []),
    ("requirement-values-a-number", "karpenter", KARPENTER, "p-jobs-nodepool", (*REQUIREMENT, "values"), 3.0, []),
    ("unknown-karpenter-cpu-limit", "karpenter", KARPENTER, "p-jobs-nodepool", ("spec", "limits", "cpu"),
     UNKNOWN_WIRE, [(QUOTA_NOTE[0], QUOTA_NOTE[1].format("spec.limits"))]),
    ("unknown-requirement-key", "karpenter", KARPENTER, "p-jobs-nodepool", (*REQUIREMENT, "key"), UNKNOWN_WIRE,
     [("gpu-pool-taint", "NodePool 'jobs': cannot judge spec.template.spec.requirements during preview: whether "
                         "the pool has GPUs is unknown"),
      (QUOTA_NOTE[0], QUOTA_NOTE[1].format("spec.template.spec.requirements"))]),
    # A value of the wrong shape is named, never quoted (it held the sentinel as a key).
    ("priority-class-a-list", "gcp", "kubernetes:apps/v1:DaemonSet", "agent",
     ("spec", "template", "spec", "priorityClassName"), ["In", {UNKNOWN_WIRE: [True]}], []),
    ("unknown-dra-alternatives", "gcp", "kubernetes:resource.k8s.io/v1:ResourceClaim", "shared-gpu",
     ("spec", "devices", "requests", 0, "firstAvailable"), UNKNOWN_WIRE, []),
]


@pytest.mark.parametrize("case, cloud, type_, name, path, value, notes", [pytest.param(*c, id=c[0]) for c in FOUND])
def test_found_by_the_fuzzers(pack, case, cloud, type_, name, path, value, notes):
    stack = list(BASES[cloud])
    i = next(i for i, r in enumerate(stack) if r.type == type_ and r.name == name)
    stack[i] = replace(stack[i], props=set_path(stack[i].props, path, value))
    diagnostics = judged(pack, stack, {stack[i].urn})
    if value == UNKNOWN_WIRE:
        assert [(d.policy, d.message) for d in diagnostics if not d.cannot_judge] == []
    if case == "priority-class-a-list":
        assert [d.message.split("\n")[1] for d in diagnostics if d.policy == "priority-class-assigned"] == [
            "DaemonSet 'agent' in namespace 'services': spec.template.spec.priorityClassName: is a list, not a "
            "PriorityClass name. Fix: set it to one of: nodepools-batch, nodepools-gpu-inference, "
            "nodepools-gpu-training, nodepools-resident (or a system-* class for node agents)"]
    for policy, text in notes:
        assert [d for d in diagnostics if d.policy == policy and d.cannot_judge and text in d.message], (policy, text)


@pytest.mark.parametrize("index", [4534, 8006, 18444])
def test_found_by_make_fuzz_on_the_merged_code(pack, index):
    """RELIABILITY.md run 3 (seed 2026-12-02): inference-scale-headroom hashed a PodTemplate name
    of the wrong shape and read a null predictor's tolerations; replayed by seed and index."""
    from fuzz_random import generate
    case = generate(BASES, TYPES, "2026-12-02", index)
    judged(pack, case.stack, case.damaged_urns)
