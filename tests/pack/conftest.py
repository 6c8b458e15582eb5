"""The pack's own server in this process (for protocol details), and the policy suite's builders."""
import sys
from concurrent import futures
from pathlib import Path

import grpc
import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "policy"))
sys.path.insert(0, str(Path(__file__).parents[1] / "reliability"))

from pulumi.runtime.proto import analyzer_pb2_grpc  # noqa: E402

from nodepools.pack.servicer import PackServicer  # noqa: E402
from nodepools.policies.registry import POLICIES  # noqa: E402


@pytest.fixture(scope="module")
def served(session_told):
    """``(stub, channel)``: every registered policy served over gRPC from this process, whose run date
    (the servicer's one clock, ``servicer.run_date``) is the suite's."""
    from nodepools.pack import servicer as module
    patch = pytest.MonkeyPatch()
    if session_told is not None:
        patch.setattr(module, "run_date", lambda: session_told)
    servicer = PackServicer(lambda: POLICIES, "nodepools", "test pack", "9.9.9")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield analyzer_pb2_grpc.AnalyzerStub(channel), channel
    channel.close()
    server.stop(0)
    patch.undo()
