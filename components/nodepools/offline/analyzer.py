"""Run a CrossGuard pack as the Pulumi engine does, offline, and collect its diagnostics.

The engine boots a Python pack with ``python -u -m pulumi.policy <engine> .``
in the pack's directory (pulumi/pulumi: sdk/python/dist/pulumi-analyzer-policy-python),
with ``PULUMI_CONFIG``, ``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN``
and ``PULUMI_ORGANIZATION`` set; the pack prints its gRPC port as the first
stdout line. ``PolicyPackRunner`` does the same (the module run as ``-m`` runs it, in a
process group of its own that dies with this process: ``nodepools.offline.lifeline``;
``timeout_seconds`` bounds the whole session), then speaks the Analyzer
protocol: ``ConfigureStack`` (stack, project, tags); ``GetAnalyzerInfo``;
``Configure`` with every policy's level and config, reconciled like the CLI
(schema defaults, then ``all``, then per-policy values, validated against each
policy's schema); ``Analyze`` per resource and ``AnalyzeStack`` once. Start one
runner per test session and reconfigure it per test.

Inputs: the registrations of a mocked run (``nodepools.offline.engine``, whose
exact wire ``Struct``, dependencies and property dependencies go through
untouched) or hand-built ``nodepools.inventory.resource.Resource``s (``Resource.of``),
marshalled as the engine would (``analyzer_wire.wire_value``); ``analyzer_wire.exact`` sends a
hand-built resource with an exact wire ``Struct`` (secret signatures included).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Mapping

import grpc
import yaml
from google.protobuf import empty_pb2
from pulumi.runtime import proto
from pulumi.runtime.proto import analyzer_pb2_grpc

from nodepools import safe_yaml
from nodepools.offline.engine import Run
from nodepools.offline.lifeline import Child, spawn
from nodepools.offline.analyzer_wire import (UNKNOWN_WIRE, Diagnostic, Item, PackConfigError, PackError, PackInfo,
                                             PolicyInfo, analyze_requests, exact, policy_info, reconcile,
                                             stack_request, with_today)

# The pack never dials the engine; the CLI passes its host address here.
ENGINE_ADDRESS = "127.0.0.1:0"
_LEVELS = {"advisory": proto.ADVISORY, "mandatory": proto.MANDATORY, "remediate": proto.REMEDIATE,
           "disabled": proto.DISABLED}
_LEVEL_NAMES = {value: name for name, value in _LEVELS.items()}

__all__ = ["UNKNOWN_WIRE", "Diagnostic", "Item", "PackConfigError", "PackError", "PackInfo",
           "PackTimeoutError", "PolicyInfo", "PolicyPackRunner", "exact", "run_pack"]


class PackTimeoutError(PackError):
    """The pack did not start or answer within the runner's ``timeout_seconds``."""


@dataclass
class PolicyPackRunner:
    """One running pack process. Use as a context manager or call ``start``/``close``."""

    pack_dir: Path
    python: str = sys.executable
    project: str = "nodepools"
    stack: str = "dev"
    dry_run: bool = True
    organization: str = "organization"
    stack_config: Mapping[str, str] = field(default_factory=dict)
    stack_tags: Mapping[str, str] = field(default_factory=dict)
    startup_timeout_seconds: float = 60.0
    # The whole session, start to the last answer; None: no bound but the start-up's.
    timeout_seconds: float | None = None
    # The date the pack judges by: sent as every policy's ``today`` unless the config names one
    # (``analyzer_wire.with_today``); None leaves the pack's own default, the run's UTC date.
    today: date | None = None
    _child: Child | None = field(default=None, init=False, repr=False)
    _deadline: float | None = field(default=None, init=False, repr=False)
    _channel: grpc.Channel | None = field(default=None, init=False, repr=False)
    _stub: Any = field(default=None, init=False, repr=False)
    _stderr: deque = field(default_factory=lambda: deque(maxlen=200), init=False, repr=False)
    _info: PackInfo | None = field(default=None, init=False, repr=False)

    # --- lifecycle ------------------------------------------------------------
    def start(self) -> "PolicyPackRunner":
        env = {**os.environ, "PULUMI_CONFIG": json.dumps(dict(self.stack_config)), "PULUMI_PROJECT": self.project,
               "PULUMI_STACK": self.stack, "PULUMI_DRY_RUN": "true" if self.dry_run else "false",
               "PULUMI_ORGANIZATION": self.organization}
        self._deadline = None if self.timeout_seconds is None else time.monotonic() + self.timeout_seconds
        self._child = spawn(self.python, "pulumi.policy", [ENGINE_ADDRESS, "."], cwd=self.pack_dir, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            port = self._read_port()
            self._channel = grpc.insecure_channel(f"127.0.0.1:{port}",
                                                  options=[("grpc.max_receive_message_length", 400 * 2**20)])
            try:
                grpc.channel_ready_future(self._channel).result(timeout=self._startup_seconds())
            except grpc.FutureTimeoutError:
                raise self._late("start") from None
            self._stub = analyzer_pb2_grpc.AnalyzerStub(self._channel)
            self.call("ConfigureStack", proto.AnalyzerStackConfigureRequest(
                stack=self.stack, project=self.project, organization=self.organization, dry_run=self.dry_run,
                config=dict(self.stack_config), tags=dict(self.stack_tags)))
        except BaseException:
            self.close()  # nothing is left running when start fails (a `with` never reaches __exit__)
            raise
        return self

    def _startup_seconds(self) -> float:
        left = self._left()
        return self.startup_timeout_seconds if left is None else min(left, self.startup_timeout_seconds)

    def _left(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def _late(self, what: str) -> PackTimeoutError:
        """The timeout that ran out: the session's (``timeout_seconds``) or the start-up's."""
        session = self.timeout_seconds is not None and self._left() == 0.0
        limit = self.timeout_seconds if session else self.startup_timeout_seconds
        return PackTimeoutError(f"the pack in {self.pack_dir} did not {what} within {limit:g} s")

    def _read_port(self) -> int:
        assert self._child is not None
        process = self._child.process
        assert process.stdout is not None
        stderr_reader = threading.Thread(target=self._drain, args=(process.stderr, self._stderr), daemon=True)
        stderr_reader.start()
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(self._startup_seconds())
        if reader.is_alive():
            raise self._late("start")
        line = box[0].strip() if box else ""
        if not line.isdigit():
            self.close()
            # The pack exited (or was stopped): its last words are what the error must show, so
            # let the reader take the rest of stderr instead of racing it.
            stderr_reader.join(5.0)
            raise PackError(f"the pack in {self.pack_dir} did not print a port (got {line!r}); stderr:\n"
                            + "".join(self._stderr))
        threading.Thread(target=self._drain, args=(process.stdout, deque(maxlen=50)), daemon=True).start()
        return int(line)

    @staticmethod
    def _drain(stream: Any, sink: deque) -> None:
        for line in iter(stream.readline, ""):
            sink.append(line)

    @property
    def pid(self) -> int | None:
        """The pack process's id while it runs."""
        return self._child.pid if self._child is not None else None

    def close(self) -> None:
        """Stop the pack and everything it started (its process group)."""
        channel, child = self._channel, self._child
        self._channel = self._stub = self._child = None
        try:
            if channel is not None:
                channel.close()
        finally:
            if child is not None:
                child.stop()

    def __enter__(self) -> "PolicyPackRunner":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def call(self, method: str, request: Any) -> Any:
        """One raw Analyzer call (``PackError`` with the pack's stderr when it fails)."""
        if self._stub is None:
            raise PackError("the pack is not running: call start() first")
        left = self._left()
        if left == 0.0:
            raise self._late(f"answer {method}")
        try:
            return getattr(self._stub, method)(request, timeout=left)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED and self._deadline is not None:
                raise self._late(f"answer {method}") from None
            raise PackError(f"{method} failed: {error.details()}\npack stderr:\n" + "".join(self._stderr)) from error

    # --- protocol -------------------------------------------------------------
    def info(self) -> PackInfo:
        if self._info is None:
            reply = self.call("GetAnalyzerInfo", empty_pb2.Empty())
            # Python packs always answer 0.0.1; the CLI reports PulumiPolicy.yaml's version instead.
            version = _yaml_version(Path(self.pack_dir)) or reply.version
            self._info = PackInfo(reply.name, version, {p.name: policy_info(p, _LEVEL_NAMES)
                                                        for p in reply.policies})
        return self._info

    def configure(self, config: Mapping[str, Any] | None = None, *, validate: bool = True
                  ) -> dict[str, tuple[str, dict]]:
        """Send every policy's (level, properties), reconciled from ``config`` in the
        ``--policy-pack-config`` format, dated with ``today`` when set (``PackConfigError`` when it
        does not validate, unless ``validate`` is False); returns what was sent."""
        if self.today is not None:
            config = with_today(self.info(), config, self.today)
        reconciled = reconcile(self.info(), config or {}, validate)
        request = proto.ConfigureAnalyzerRequest()
        for name, (level, properties) in reconciled.items():
            entry = request.policyConfig[name]
            entry.enforcementLevel = _LEVELS[level]
            entry.properties.update(properties)
        self.call("Configure", request)
        return reconciled

    def analyze(self, resources: Iterable[Item]) -> list[Diagnostic]:
        """``Analyze`` each resource, then ``AnalyzeStack`` once; every diagnostic."""
        items = list(resources)
        out: list[Diagnostic] = []
        for item, request in zip(items, analyze_requests(items)):
            reply = self.call("Analyze", request)
            out += [Diagnostic.of(d, item.urn, "analyze", _LEVEL_NAMES) for d in reply.diagnostics]
        reply = self.call("AnalyzeStack", stack_request(items))
        out += [Diagnostic.of(d, "", "analyze-stack", _LEVEL_NAMES) for d in reply.diagnostics]
        return out

    def analyze_run(self, run: Run) -> list[Diagnostic]:
        return self.analyze(run.resources)

    def check(self, resources: Iterable[Item],
              config: Mapping[str, Any] | None = None) -> list[Diagnostic]:
        """``configure(config)`` then ``analyze(resources)``."""
        self.configure(config)
        return self.analyze(resources)


def run_pack(resources: Iterable[Item], config: Mapping[str, Any] | None = None,
             **runner: Any) -> list[Diagnostic]:
    """One-shot: start the pack, configure, analyze ``resources``, stop. Prefer one
    ``PolicyPackRunner`` for many checks (starting the pack costs about half a second)."""
    with PolicyPackRunner(**runner) as pack:
        return pack.check(resources, config)


def _yaml_version(pack_dir: Path) -> str | None:
    manifest = pack_dir / "PulumiPolicy.yaml"
    if not manifest.is_file():
        return None
    try:
        document = safe_yaml.load(manifest)
    except (OSError, yaml.YAMLError) as err:
        raise PackError(f"cannot read {manifest}: {err}") from None
    version = document.get("version") if isinstance(document, dict) else None
    return str(version) if version is not None else None
