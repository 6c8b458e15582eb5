"""nodepools' own Analyzer servicer over gRPC: the protocol's corners the engine relies on,
refusals with a message (never a hang or a traceback), one view of the stack per request,
and no secret in a message."""
from __future__ import annotations

import threading
from concurrent import futures
from datetime import date

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2 as pb
from pulumi.runtime.proto import analyzer_pb2_grpc

from nodepools.offline.analyzer_wire import analyze_requests, stack_request
from nodepools.pack import servicer
from nodepools.pack.servicer import PackServicer
from nodepools.pack.wire import SECRET_SIG, SIG_KEY
from nodepools.policies import stack_view
from nodepools.policies.base import EnforcementLevel, Finding, PolicySpec, Severity
from policy_builders import GPU_Q, golden


def configure(stub, levels: dict[str, int] | None = None, properties: dict[str, dict] | None = None) -> None:
    request = pb.ConfigureAnalyzerRequest()
    for name in {*(levels or {}), *(properties or {})}:
        entry = request.policyConfig[name]
        entry.enforcementLevel = (levels or {}).get(name, pb.ADVISORY)
        entry.properties.update((properties or {}).get(name, {}))
    stub.Configure(request)


def refused(call, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as error:
        call(request, timeout=30)
    return error.value


@pytest.fixture
def stub(served):
    stub, _ = served
    stub.Configure(pb.ConfigureAnalyzerRequest())  # every policy at its defaults
    return stub


def test_plugin_info_and_the_calls_the_engine_falls_back_from(stub):
    assert stub.GetPluginInfo(empty_pb2.Empty()).version == "9.9.9"
    for call, request, method in ((stub.Handshake, pb.AnalyzerHandshakeRequest(engine_address="127.0.0.1:1"),
                                   "Handshake"), (stub.Cancel, empty_pb2.Empty(), "Cancel")):
        error = refused(call, request)
        assert (error.code(), error.details()) == (grpc.StatusCode.UNIMPLEMENTED, (
            f"{method} is not implemented by the nodepools pack (the engine then uses the protocol's earlier "
            "behaviour)"))
    assert stub.ConfigureStack(pb.AnalyzerStackConfigureRequest(stack="dev", project="p")) == \
        pb.AnalyzerStackConfigureResponse()


def test_remediate_rewrites_nothing_and_a_remediate_level_reports_as_mandatory(stub):
    fx = golden().edit("quota-services", lambda p: p["spec"]["hard"].pop(GPU_Q))
    [request] = [r for r in analyze_requests(list(fx.items)) if r.urn == fx.urn("quota-services")]
    assert stub.Remediate(request) == pb.RemediateResponse()
    configure(stub, {"gpu-quota": pb.REMEDIATE, "schedulable": pb.REMEDIATE})
    assert stub.Remediate(request) == pb.RemediateResponse(not_applicable=[
        pb.PolicyNotApplicable(policy_name="gpu-quota", reason="Policy does not implement remediate")])
    [diagnostic] = stub.Analyze(request).diagnostics
    assert (diagnostic.policyName, diagnostic.enforcementLevel, diagnostic.urn) == (
        "gpu-quota", pb.MANDATORY, fx.urn("quota-services"))


def test_a_level_outside_the_protocol_is_refused_and_unknown_policies_are_ignored(stub):
    request = pb.ConfigureAnalyzerRequest()
    request.policyConfig["gpu-quota"].enforcementLevel = 7
    error = refused(stub.Configure, request)
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, (
        "policy 'gpu-quota': enforcement level 7 is not one of advisory (0), mandatory (1), remediate (3), "
        "disabled (2)"))
    # As pulumi_policy, the server ignores a policy it does not have (the CLI and PolicyPackRunner refuse it).
    configure(stub, {"pool-taint": pb.MANDATORY})
    assert [d.policyName for d in stub.AnalyzeStack(stack_request(list(golden().items))).diagnostics] == []


def test_bad_config_fails_the_requests_that_run_the_policy_naming_every_field(stub):
    configure(stub, properties={"gpu-quota": {"colour": "red"}, "spot-checkpointing": {"spotCheckpointMax": "soon"}})
    requests = analyze_requests(list(golden().items))
    error = refused(stub.Analyze, requests[0])
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details().startswith("policy 'gpu-quota' config: colour: unknown config key 'colour' for policy "
                                      "'gpu-quota' (allowed: exemptNamespaces, gpuDeviceClasses, today, waivers)")
    error = refused(stub.AnalyzeStack, stack_request(list(golden().items)))
    assert error.details() == ("policy 'spot-checkpointing' config: spotCheckpointMax: 'soon' is not a positive "
                               "duration like 30m, 1h or 90s")
    configure(stub, {"gpu-quota": pb.DISABLED}, {"gpu-quota": {"colour": "red"}})
    assert stub.Analyze(requests[0]).diagnostics == []  # a disabled policy's config is never read


def test_malformed_requests_get_a_message_never_a_hang(stub, served):
    nan = struct_pb2.Struct()
    nan.update({"spec": {"replicas": float("nan")}})
    error = refused(stub.Analyze, pb.AnalyzeRequest(type="kubernetes:apps/v1:Deployment", urn="urn:x", properties=nan))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT,
                                               "urn:x: properties.spec.replicas: nan is not a JSON number "
                                               "(the engine sends none)")
    garbage = served[1].unary_unary("/pulumirpc.Analyzer/AnalyzeStack", request_serializer=None,
                                  response_deserializer=None)
    error = refused(garbage, b"\xff\xff\xff\x01")
    assert error.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT) and error.details()


def test_a_rule_that_raises_costs_only_its_verdict_never_the_request_or_the_exception_text(capfd):
    def broken(res, settings):
        raise KeyError("hunter2-secret-value")
        yield  # pragma: no cover

    def fine(res, settings):
        yield Finding(res.urn, "Thing 'x'", "spec", "always", "nothing")

    specs = (PolicySpec("broken-rule", "Never passes. Fix: none.", Severity.LOW, EnforcementLevel.MANDATORY,
                        "resource", broken),
             PolicySpec("fine-rule", "Always fires. Fix: none.", Severity.LOW, EnforcementLevel.ADVISORY,
                        "resource", fine))
    servicer = PackServicer(lambda: specs, "mine", "mine", "1.0.0")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            reply = analyzer_pb2_grpc.AnalyzerStub(channel).Analyze(
                pb.AnalyzeRequest(type="kubernetes:apps/v1:Deployment", urn="urn:y", name="web"), timeout=30)
    finally:
        server.stop(0)
    assert [(d.policyName, d.urn, d.enforcementLevel, d.message) for d in reply.diagnostics] == [
        ("broken-rule", "urn:y", pb.ADVISORY, "nodepools could not judge Deployment 'web': internal error in broken-rule"),
        ("fine-rule", "urn:y", pb.ADVISORY, "Always fires. Fix: none.\nThing 'x': spec: always. Fix: nothing")]
    err = capfd.readouterr().err
    assert "policy 'broken-rule' raised KeyError judging Deployment 'web'" in err and "hunter2" not in err


def test_one_view_of_the_stack_per_request_and_per_view_setting(stub, monkeypatch):
    built = []

    class Counted(stack_view.StackView):
        def __init__(self, *args, **kwargs):
            built.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(stack_view, "StackView", Counted)
    monkeypatch.setattr(servicer, "run_date", lambda: date(2027, 3, 28))  # the servicer's one clock
    request = stack_request(list(golden().items))
    stub.AnalyzeStack(request)
    stub.AnalyzeStack(request)
    run = {"today": date(2027, 3, 28), "label_sources": (), "gpu_device_classes": ()}
    assert built == [run] * 2  # 23 stack policies, one view each time
    built.clear()
    configure(stub, properties={"schedulable": {"nodeLabelSources": ["feature.node.kubernetes.io/"]},
                                "cluster-version": {"today": "2026-12-01"}})
    stub.AnalyzeStack(request)
    assert built == [run, {**run, "label_sources": ("feature.node.kubernetes.io/",)},
                     {**run, "today": date(2026, 12, 1)}]


def test_concurrent_requests_each_get_their_own_answer(stub):
    fine, broken = golden(), golden().drop("cpu-contention")
    requests = {"fine": stack_request(list(fine.items)), "broken": stack_request(list(broken.items))}
    expected = {name: stub.AnalyzeStack(r) for name, r in requests.items()}
    assert expected["fine"].diagnostics == [] and expected["broken"].diagnostics
    answers: list[tuple[str, object]] = []

    def ask(name: str) -> None:
        answers.append((name, stub.AnalyzeStack(requests[name])))

    threads = [threading.Thread(target=ask, args=(name,)) for name in ["fine", "broken"] * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(answers) == 8 and all(answer == expected[name] for name, answer in answers)


def test_a_secret_value_never_appears_in_a_message(stub):
    fx = golden().edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].update(
        {"nodepools.io/checkpoint-interval": {SIG_KEY: SECRET_SIG, "value": "every-epoch"}}))
    messages = [d.message for d in stub.AnalyzeStack(stack_request(list(fx.items))).diagnostics]
    assert [m for m in messages if "is not a duration" in m] == [m for m in messages if "a secret value is not a" in m]
    assert messages and not [m for m in messages if "every-epoch" in m]


def test_a_secret_pack_config_value_is_used_and_never_quoted(stub):
    """Pack config reaches Configure as the engine marshals it: a secret is a signed object.
    (issue 26: the pack quoted ``'hunter2-...' is not a positive duration``.)"""
    configure(stub, properties={"spot-checkpointing": {"spotCheckpointMax": {SIG_KEY: SECRET_SIG,
                                                                            "value": "hunter2-token"}}})
    error = refused(stub.AnalyzeStack, stack_request(list(golden().items)))
    assert error.details() == ("policy 'spot-checkpointing' config: spotCheckpointMax: a secret value is not a "
                               "positive duration like 30m, 1h or 90s")
    # A secret that parses is the policy's setting, as a plain one would be.
    configure(stub, properties={"spot-checkpointing": {"spotCheckpointMax": {SIG_KEY: SECRET_SIG, "value": "1m"}}})
    fx = golden().edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].update(
        {"nodepools.io/checkpoint-interval": "5m"}))
    messages = [d.message for d in stub.AnalyzeStack(stack_request(list(fx.items))).diagnostics
                if d.policyName == "spot-checkpointing"]
    assert len(messages) == 1 and "5m" in messages[0]
