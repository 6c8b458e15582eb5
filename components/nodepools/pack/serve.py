"""Serve a CrossGuard pack of nodepools policies: what a pack folder's ``__main__.py`` calls.

``serve`` starts the Analyzer gRPC server on 127.0.0.1, prints its port as the first
line of stdout (how the engine finds it) and blocks until the engine stops the process,
so only a pack's ``__main__.py`` may call it; the rules stay importable from
``nodepools.policies``. A pack of your own, from any ``PolicySpec``s (ours from
``nodepools.policies.registry.POLICIES`` or yours written the same way)::

    from nodepools.pack.serve import serve
    from nodepools.policies.registry import BY_NAME

    serve([BY_NAME["schedulable"], BY_NAME["gpu-pool-taint"]], name="platform-placement")

Start-up is on every preview's path: the engine waits for ``GetAnalyzerInfo`` and
``Configure`` before it starts the program. So the port goes out before the policies
are imported, the registered pack answers those two from ``catalogue.json`` and the
configuration as sent, and the policies load on a thread of their own from the first
``GetAnalyzerInfo`` on, while the engine starts the program; a request that needs them
sooner waits for them.
"""
from __future__ import annotations

import gc
import logging
import re
import sys
from typing import Iterable

from nodepools.pack import catalogue
from nodepools.pack.catalogue import DESCRIPTION, PACK_NAME
from nodepools.policies.base import PolicySpec

# The engine's limit for a pack name (as pulumi_policy checks it), and its request size.
_PACK_NAME = re.compile(r"^[a-zA-Z0-9-_.]{1,100}$")
MAX_MESSAGE_BYTES = 400 * 2**20


def check_pack(name: str, policies: Iterable[PolicySpec]) -> tuple[PolicySpec, ...]:
    """The policies of a pack named ``name``, or a ``ValueError`` naming every problem."""
    specs = tuple(policies)
    problems = [] if _PACK_NAME.match(name or "") else [
        f"pack name {name!r} may only hold letters, digits, '-', '_' and '.' (1-100 characters)"]
    if not specs:
        problems.append("a pack needs at least one policy")
    names = [getattr(s, "name", None) for s in specs]
    problems += [f"{s!r} is not a nodepools.policies.base.PolicySpec" for s in specs if not isinstance(s, PolicySpec)]
    problems += [f"policy {n!r} appears {names.count(n)} times" for n in sorted(set(names), key=str)
                 if names.count(n) > 1]
    problems += ["'all' is reserved for the pack-wide level" for n in names if n == "all"]
    if problems:
        raise ValueError("cannot serve this pack: " + "; ".join(problems))
    return specs


def serve(policies: Iterable[PolicySpec] | None = None, *, name: str = PACK_NAME,
          description: str = DESCRIPTION) -> None:
    """Serve ``policies`` (default: every registered policy) as the pack ``name`` until
    the engine stops the process. Levels, severities and config schemas are the specs'."""
    import grpc
    from concurrent import futures
    from pulumi.runtime.proto import analyzer_pb2_grpc

    import nodepools
    from nodepools.pack.servicer import PackServicer

    try:
        given = None if policies is None else check_pack(name, policies)
    except ValueError as error:  # the pack's own __main__ is wrong: say so, exit 2, no traceback
        sys.stderr.write(f"nodepools pack: {error}\n")
        sys.exit(2)
    registered = given is None and (name, description) == (PACK_NAME, DESCRIPTION)
    servicer = PackServicer(catalogue.registered if given is None else (lambda: given), name, description,
                            nodepools.__version__, catalogue.load if registered else None)
    # The objects imported so far live as long as the process: keep the collector off them
    # (the servicer freezes the policies' too once loaded), and collect less often while a
    # request builds its view of the stack (BENCHMARKS.md).
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    _quiet_grpc_tracebacks()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4),
                         options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)])
    analyzer_pb2_grpc.add_AnalyzerServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(0)


class _OneLine(logging.Formatter):
    """gRPC logs a traceback for a request it cannot even parse; the caller already has
    an error status, so the pack's stderr gets one line."""

    def format(self, record: logging.LogRecord) -> str:
        return f"nodepools pack: {record.getMessage()}"


def _quiet_grpc_tracebacks() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    grpc_log = logging.getLogger("grpc")
    grpc_log.addHandler(handler)
    grpc_log.propagate = False
