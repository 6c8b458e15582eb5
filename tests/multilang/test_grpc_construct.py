"""The whole path over gRPC: the engine's Construct call to the plugin process.

The repository's entry point runs as the language host runs the plugin; this test
plays the engine: a resource monitor (Pulumi's ``MockMonitor`` served over gRPC,
recording every registration) and the engine service (logs, root resource). The
plugin gets a ``ConstructRequest`` as the engine sends it for a TypeScript
program's ``new EksPlatform("p", {...})`` and registers its resources with the
monitor over gRPC, as under ``pulumi up``. Slower than the in-process harness
(a process start), so two cases only.
"""
import os
import re
import subprocess
import sys
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime import mocks
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, provider_pb2, provider_pb2_grpc
from pulumi.runtime.proto import resource_pb2, resource_pb2_grpc
from pulumi.runtime.sync_await import _ensure_event_loop

from nodepools.offline.fakes import preview_outputs
from multilang_configs import EKS_WIRE, eks_python
from multilang_harness import as_python_api, python_api

ROOT = Path(__file__).resolve().parents[2]
PROJECT, STACK = "nodepools", "dev"
STACK_URN = f"urn:pulumi:{STACK}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{STACK}"
REF_SIG = "4dabf18193072939515e22adb298388d"  # rpc._special_sig_key / _special_resource_sig
RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"


class _Mocks(mocks.Mocks):
    """Answers as a preview (the Construct requests are dry runs), the way the offline engine
    that runs the Python API does: the inputs, every computed value and a new resource's id unknown."""

    def new_resource(self, args):
        return args.resource_id or "", preview_outputs(args.typ, args.name, dict(args.inputs))

    def call(self, args):
        return {}


class Monitor(mocks.MockMonitor):
    """``MockMonitor`` with the engine's URNs (parent type chain) and a record of every registration."""

    def __init__(self) -> None:
        super().__init__(_Mocks())
        self.registered: list[resource_pb2.RegisterResourceRequest] = []
        self.urns: dict[int, str] = {}
        self.lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        qualified = parent.split("::")[2] if parent else ""
        if qualified and qualified != "pulumi:pulumi:Stack":
            type_ = f"{qualified}${type_}"
        return f"urn:pulumi:{STACK}::{PROJECT}::{type_}::{name}"

    def RegisterResource(self, request):  # noqa: N802
        response = super().RegisterResource(request)
        with self.lock:
            self.registered.append((response.urn, request))
        return response

    def SupportsFeature(self, request):  # noqa: N802
        return resource_pb2.SupportsFeatureResponse(hasSupport=request.id != "outputValues")


class MonitorService(resource_pb2_grpc.ResourceMonitorServicer):
    def __init__(self, monitor: Monitor) -> None:
        self.monitor = monitor

    def __getattribute__(self, name):
        if name[:1].isupper() and hasattr(Monitor, name):
            def call(request, context):
                _ensure_event_loop()
                return getattr(object.__getattribute__(self, "monitor"), name)(request)
            return call
        return object.__getattribute__(self, name)


class EngineService(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.logs: list[str] = []

    def Log(self, request, context):  # noqa: N802
        self.logs.append(request.message)
        return empty_pb2.Empty()

    def GetRootResource(self, request, context):  # noqa: N802
        return engine_pb2.GetRootResourceResponse(urn=STACK_URN)

    def SetRootResource(self, request, context):  # noqa: N802
        return engine_pb2.SetRootResourceResponse()


@pytest.fixture(scope="module")
def engine():
    """(monitor, monitor address, plugin stub): the engine's side, and the plugin started as the host starts it."""
    monitor, engine_service = Monitor(), EngineService()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    resource_pb2_grpc.add_ResourceMonitorServicer_to_server(MonitorService(monitor), server)
    engine_pb2_grpc.add_EngineServicer_to_server(engine_service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")])}
    plugin = subprocess.Popen([sys.executable, str(ROOT), address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, cwd=ROOT)
    try:
        line = plugin.stdout.readline().decode().strip()  # type: ignore[union-attr]
        assert re.fullmatch(r"\d+", line), plugin.stderr.read().decode()  # type: ignore[union-attr]
        channel = grpc.insecure_channel(f"127.0.0.1:{line}")
        # The program's own Kubernetes provider, registered before the component (as a program does).
        k8s = monitor.RegisterResource(resource_pb2.RegisterResourceRequest(
            type="pulumi:providers:kubernetes", name="k8s", custom=True, parent=STACK_URN,
            object=json_format.ParseDict({"kubeconfig": "fake", "version": "4.34.2"}, struct_pb2.Struct())))
        yield monitor, address, provider_pb2_grpc.ResourceProviderStub(channel), k8s
        channel.close()
    finally:
        plugin.terminate()
        plugin.wait(timeout=30)
        server.stop(None)


def construct_request(address: str, k8s, wire: dict) -> provider_pb2.ConstructRequest:
    reference = {REF_SIG: RESOURCE_SIG, "urn": k8s.urn, "id": k8s.id, "packageVersion": ""}
    inputs = json_format.ParseDict({**wire, "kubernetesProvider": reference}, struct_pb2.Struct())
    return provider_pb2.ConstructRequest(
        project=PROJECT, stack=STACK, monitorEndpoint=address, dryRun=True, parallel=1,
        type="nodepools:index:EksPlatform", name="p", parent=STACK_URN, inputs=inputs,
        inputDependencies={"kubernetesProvider": provider_pb2.ConstructRequest.PropertyDependencies(urns=[k8s.urn])})


def test_construct_over_grpc_registers_the_python_apis_resources(engine):
    monitor, address, plugin, k8s = engine
    response = plugin.Construct(construct_request(address, k8s, EKS_WIRE), timeout=120)
    assert response.urn == f"urn:pulumi:{STACK}::{PROJECT}::nodepools:index:EksPlatform::p"
    state = json_format.MessageToDict(response.state)
    assert sorted(state) == ["localQueues", "namespaces", "pools"]
    assert state["pools"]["web"]["contract"]["nodeSelector"] == {"nodepools.io/pool": "web"}
    with monitor.lock:
        registered = [(urn, r) for urn, r in monitor.registered if r.type != "pulumi:providers:kubernetes"]
    expected = as_python_api(python_api(eks_python), "nodepools:index:EksPlatform")
    expected = {urn: row for urn, row in expected.items() if row[0] != "pulumi:providers:kubernetes"}
    prefix = "nodepools:index:EksPlatform$"

    def strip(urn: str) -> str:
        return STACK_URN if urn == response.urn else urn.replace(prefix, "")

    got = {strip(urn): (r.type, strip(r.parent), json_format.MessageToDict(r.object), r.provider and strip(r.provider),
                        sorted(map(strip, r.dependencies)),
                        {k: sorted(map(strip, v.urns)) for k, v in r.propertyDependencies.items()},
                        list(r.ignoreChanges))
           for urn, r in registered if r.type != "nodepools:index:EksPlatform"}
    assert sorted(got) == sorted(expected)
    # Types, parents, wire inputs, providers and dependencies as the Python API registers them.
    assert [u for u in expected if got[u] != expected[u]] == []


def test_bad_inputs_over_grpc_are_an_invalid_argument_naming_the_input(engine):
    monitor, address, plugin, k8s = engine
    wire = {**EKS_WIRE, "pools": [{**EKS_WIRE["pools"][0], "minNodes": 7.0}, *EKS_WIRE["pools"][1:]]}
    with monitor.lock:
        before = len(monitor.registered)
    with pytest.raises(grpc.RpcError) as raised:
        plugin.Construct(construct_request(address, k8s, wire), timeout=120)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "pools[0].minNodes: minNodes (7) must be <= maxNodes (6)" in raised.value.details()
    with monitor.lock:
        assert len(monitor.registered) == before  # nothing registered
