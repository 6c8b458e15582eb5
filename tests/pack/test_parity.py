"""Parity with the reference server: a corpus of stacks and configs sent to nodepools' own
servicer (``policy/``) and to the rules under pulumi_policy's servicer
(``tests/pack/reference_pack``), every answer required identical, field for field
(``parity.ParityRunner``). ``make test-parity`` sends the whole policy suite, the fuzzer
and the upstream corpus through both the same way."""
from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fuzz_mutations import mutated_props  # noqa: E402
from fuzz_stack import base_stack  # noqa: E402
from karpenter_builders import karpenter_golden  # noqa: E402
from pack_under_test import OURS, REFERENCE  # noqa: E402
from parity import ParityError, ParityRunner  # noqa: E402
from policy_builders import GPU_Q, golden  # noqa: E402

from nodepools.offline.analyzer import UNKNOWN_WIRE, PackError  # noqa: E402
from nodepools.offline.analyzer_wire import analyze_requests  # noqa: E402
from nodepools.policies.config import spread  # noqa: E402


def waiver(policy: str, resource: str, expires: str) -> dict:
    return {"policy": policy, "resource": resource, "owner": "alice", "reason": "tracked in OPS-1", "expires": expires}


CONFIGS = {
    "defaults": None,
    "all-mandatory": {"all": "mandatory"},
    "remediate-and-disabled": {"all": "remediate", "schedulable": "disabled", "gpu-quota": "advisory"},
    "settings": spread({
        "exemptNamespaces": ["batch"], "nodeAgentNamespaces": ["logging"],
        "nodeLabelSources": ["feature.node.kubernetes.io/"], "gpuDeviceClasses": ["gpu.example.com"],
        "spot-checkpointing": {"spotCheckpointMax": "5m"}, "model-load-probes": {"defaultModelLoadSeconds": 900},
        "namespace-quota": {"batchQuotaShare": 0.1}, "cluster-version": {"minClusterVersion": "1.34"},
        "shared-pool-off-peak": {"offPeakWindow": {"start": "22:00", "end": "23:00", "timeZone": "Europe/Berlin"}},
        "toleration-approval": {"tolerationApprovals": {"nvidia.com/gpu": ["services"]}},
        "waivers": [waiver("gpu-quota", "quota-*", "2999-12-31"), waiver("topology-spread", "*", "2020-01-01")]}),
}


def broken_golden():
    """The golden stack with a violation of most kinds and values preview cannot know."""
    return (golden().drop("cpu-contention")
            .edit("quota-services", lambda p: p["spec"]["hard"].pop(GPU_Q))
            .edit("api", lambda p: p["spec"]["template"]["spec"].pop("priorityClassName"))
            .edit("llm", lambda p: p["spec"]["template"]["spec"].update(tolerations=UNKNOWN_WIRE))
            .edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].update(
                {"nodepools.io/checkpoint-interval": "2h"}))
            .edit("train", lambda p: p.update(capacityType=UNKNOWN_WIRE)))


STACKS = {"golden": lambda: list(golden().items), "broken": lambda: list(broken_golden().items),
          "karpenter": lambda: list(karpenter_golden().items),
          **{f"fuzz-base-{cloud}": (lambda cloud=cloud: base_stack(cloud)) for cloud in ("aws", "gcp", "karpenter")}}


@pytest.fixture(scope="module")
def both():
    with ParityRunner(pack_dir=OURS, reference_dir=REFERENCE) as runner:
        yield runner


@pytest.mark.parametrize("config", list(CONFIGS), ids=list(CONFIGS))
@pytest.mark.parametrize("stack", list(STACKS), ids=list(STACKS))
def test_the_same_answers_as_the_reference(both, stack, config):
    resources = STACKS[stack]()
    both.configure(CONFIGS[config])
    diagnostics = both.analyze(resources)  # every call compared; ParityError on the first difference
    if stack == "broken" and config == "defaults":
        assert {d.policy for d in diagnostics} >= {"throttling-monitoring", "gpu-quota", "priority-class-assigned"}
        assert [d for d in diagnostics if d.cannot_judge]
    if config == "remediate-and-disabled":
        for request in analyze_requests(resources):
            both.call("Remediate", request)


def test_the_same_refusal_of_a_bad_config(both):
    both.configure({"gpu-quota": {"colour": "red", "waivers": [waiver("pool-taints", "x", "2999-12-31")]},
                    "spot-checkpointing": {"spotCheckpointMax": "soon"}}, validate=False)
    for _ in range(2):  # Analyze refuses (gpu-quota); with it disabled, AnalyzeStack does (spot-checkpointing)
        with pytest.raises(PackError):
            both.analyze(list(golden().items))
        both.configure({"gpu-quota": "disabled", "spot-checkpointing": {"spotCheckpointMax": "soon"}}, validate=False)


@settings(max_examples=8, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_same_answers_on_damaged_stacks(both, data):
    both.configure()
    stack = base_stack(data.draw(st.sampled_from(["aws", "gcp", "karpenter"]), label="cloud"))
    for i in data.draw(st.lists(st.integers(0, len(stack) - 1), min_size=1, max_size=3, unique=True)):
        stack[i] = replace(stack[i], props=data.draw(mutated_props(stack[i].props), label=stack[i].name))
    both.analyze(stack)


def test_a_difference_is_caught(both):
    """The comparison itself: a reply that differs in one field fails."""
    from parity import same_answer
    from pulumi.runtime.proto import analyzer_pb2 as pb
    ours = pb.AnalyzeResponse(diagnostics=[pb.AnalyzeDiagnostic(policyName="gpu-quota", message="m", urn="u")])
    theirs = pb.AnalyzeResponse(diagnostics=[pb.AnalyzeDiagnostic(policyName="gpu-quota", message="m", urn="")])
    with pytest.raises(ParityError, match="AnalyzeStack answered differently"):
        same_answer("AnalyzeStack", ours, theirs)
