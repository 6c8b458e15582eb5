"""The pack's Analyzer service: the engine's gRPC protocol, answered the way pulumi_policy does.

Methods of the pinned protocol (``pulumi.runtime.proto.analyzer_pb2_grpc.AnalyzerServicer``):

- ``GetAnalyzerInfo``, ``GetPluginInfo``: the pack's name, its policies (level, severity,
  config schema, kind, topic tag) and this release's version.
- ``Configure``: every policy's level and properties, kept as sent; each policy's
  settings are parsed once, when a request first needs them, and a policy whose config
  does not parse fails the requests that run it (as pulumi_policy's did).
- ``Analyze`` (resource policies, one resource) and ``AnalyzeStack`` (stack policies):
  each resource is read off the wire once per request (``nodepools.pack.wire``) and every
  policy judges that one copy (``nodepools.pack.judge``), as of its config's ``today``, else
  the request's UTC date (``run_date``: the pack reads the clock here and nowhere else).
- ``Remediate``: nothing to rewrite; a policy set to ``remediate`` is "not applicable".
- ``ConfigureStack``: accepted (the rules read no stack config or tags).
- ``Handshake``, ``Cancel``: UNIMPLEMENTED, which the engine takes as "use the old
  behaviour" (pulumi/pulumi: sdk/go/common/resource/plugin/analyzer_plugin.go), with a
  message and without a traceback on the pack's stderr.

A request the pack cannot read or refuses gets INVALID_ARGUMENT and a message naming
what and where; a fault of a rule costs only its verdict (an advisory note naming the policy,
``nodepools.pack.judge``); any other fault of ours gets INTERNAL naming the method, never the
exception's text. State is the last
configuration only (replaced whole by ``Configure``); every request works on its own.
"""
from __future__ import annotations

import functools
import gc
import sys
import threading
from datetime import date, datetime, timezone
from typing import Any, Callable, Sequence

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import analyzer_pb2 as pb
from pulumi.runtime.proto import analyzer_pb2_grpc, plugin_pb2

from nodepools.pack.judge import (LEVEL_OF_WIRE, LEVELS, PACK_VERSION, SEVERITIES, Configured, RequestError,
                                  configure, judge_resource, judge_stack)
from nodepools.pack.wire import Decoded, WireError, analyzed_resource, properties, stack_resources
from nodepools.policies.base import EnforcementLevel, PolicySpec

NOT_IMPLEMENTED = ("{method} is not implemented by the nodepools pack (the engine then uses the "
                   "protocol's earlier behaviour)")


def _answering(handler: Callable) -> Callable:
    """Turn every failure into a gRPC status with a message, never a hung call or a traceback."""
    @functools.wraps(handler)
    def answer(self: "PackServicer", request: Any, context: Any) -> Any:
        try:
            return handler(self, request, context)
        except RequestError as error:
            code, message = (grpc.StatusCode.INTERNAL if error.internal else grpc.StatusCode.INVALID_ARGUMENT,
                             error.message)
        except WireError as error:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(error)
        except Exception as error:  # noqa: BLE001 - the engine must get an answer, whatever broke
            # The exception's text may quote a property (a secret's included): its type only.
            code, message = grpc.StatusCode.INTERNAL, f"{handler.__name__} failed: internal error " \
                                                      f"({type(error).__name__}) in the nodepools pack"
        context.abort(code, message)
    return answer


class PackServicer(analyzer_pb2_grpc.AnalyzerServicer):
    """The policies ``policies()`` returns (called once, when a request first needs them).
    ``catalogue()``, when given, answers ``GetAnalyzerInfo`` until they are loaded
    (``nodepools.pack.catalogue``); the loaded policies' own answer replaces it if it differs."""

    def __init__(self, policies: Callable[[], Sequence[PolicySpec]], name: str, description: str,
                 plugin_version: str, catalogue: Callable[[], Any] | None = None) -> None:
        self._source = policies
        self._name = name
        self._description = description
        self._plugin_version = plugin_version
        self._catalogue = catalogue
        self._loading = threading.Lock()  # held while the policies import
        self._lock = threading.Lock()  # held only to read or swap the state below
        self._specs: tuple[PolicySpec, ...] | None = None
        self._info: Any = None
        self._config: dict[str, tuple[EnforcementLevel, dict]] = {}  # as the last Configure sent it
        self._config_secrets: frozenset[str] = frozenset()  # its strings the engine sent marked secret
        self._configured: tuple[Configured, ...] | None = None  # ``_config`` parsed, once needed
        self._warming = False

    # --- state -----------------------------------------------------------------
    def specs(self) -> tuple[PolicySpec, ...]:
        with self._loading:
            if self._specs is None:
                self._specs = tuple(self._source())
            return self._specs

    def configured(self) -> tuple[Configured, ...]:
        """The policies as last configured (their defaults until ``Configure``)."""
        with self._lock:
            configured, config, secrets = self._configured, self._config, self._config_secrets
        if configured is None:
            configured = configure(self.specs(), config, secrets)
            with self._lock:
                if self._config is config:
                    self._configured = configured
        return configured

    def info(self) -> Any:
        with self._lock:
            info = self._info
        if info is None:
            info = self._catalogue() if self._catalogue is not None else None
            if info is None:
                info = analyzer_info(self.specs(), self._name, self._description)
            with self._lock:
                if self._info is None:
                    self._info = info
                info = self._info
        return info

    def start_warm_up(self) -> None:
        """Load the policies on a thread of their own, once: started when ``GetAnalyzerInfo``
        is answered, so the engine's first questions never wait for the imports."""
        with self._lock:
            if self._warming:
                return
            self._warming = True
        threading.Thread(target=self._warm_up_quietly, name="nodepools-pack-warm-up", daemon=True).start()

    def _warm_up_quietly(self) -> None:
        try:
            self.warm_up()
        except Exception:  # noqa: BLE001 - the request that needs the policies reports the same failure
            return
        gc.freeze()  # what the imports built lives as long as the process

    def warm_up(self) -> None:
        """Load what the first judgements need, and replace a catalogue answer that is not
        the loaded policies' own."""
        answered = self.info()
        self.configured()
        if self._catalogue is not None:
            live = analyzer_info(self.specs(), self._name, self._description)
            if live != answered:
                sys.stderr.write("nodepools pack: nodepools/pack/catalogue.json is not what the registered policies "
                                 "give; answering from the policies (python -m nodepools.pack.catalogue rewrites it)\n")
                with self._lock:
                    self._info = live

    # --- the protocol ------------------------------------------------------------
    @_answering
    def GetAnalyzerInfo(self, request: Any, context: Any) -> Any:
        info = self.info()
        self.start_warm_up()
        return info

    @_answering
    def GetPluginInfo(self, request: Any, context: Any) -> Any:
        return plugin_pb2.PluginInfo(version=self._plugin_version)

    @_answering
    def Configure(self, request: Any, context: Any) -> Any:
        """Checked and kept; parsed into each policy's settings when a request first needs them
        (a config that does not parse fails the requests that run the policy, as before). The
        properties are read as resources are (``nodepools.pack.wire``): a value sent marked
        secret is used, and never quoted by a message."""
        config = {}
        decoded = Decoded()
        for name, entry in request.policyConfig.items():
            level = LEVEL_OF_WIRE.get(entry.enforcementLevel)
            if level is None:
                raise RequestError(f"policy {name!r}: enforcement level {entry.enforcementLevel} is not one of "
                                   + ", ".join(f"{lv.value} ({wire})" for lv, wire in LEVELS.items()))
            try:
                config[name] = (level, properties(entry.properties, decoded))
            except WireError as error:
                raise error.where(f"policy {name!r}", "config") from None
        with self._lock:
            self._config, self._configured = config, None
            self._config_secrets = frozenset(decoded.secrets)
        return empty_pb2.Empty()

    @_answering
    def ConfigureStack(self, request: Any, context: Any) -> Any:
        return pb.AnalyzerStackConfigureResponse()

    def _judged(self, scope: str, read: Callable, judge: Callable, request: Any) -> Any:
        """The running ``scope`` policies' diagnostics on what ``read`` takes off the wire, once,
        as of the request's date (``run_date``) where a policy's config names none."""
        configured = self.configured()
        response = pb.AnalyzeResponse()
        if any(c.runs and c.spec.scope == scope for c in configured):
            decoded = Decoded()
            subject = read(request, decoded)
            response.diagnostics.extend(judge(configured, subject, self._name, run_date(), decoded.secrets))
        return response

    @_answering
    def Analyze(self, request: Any, context: Any) -> Any:
        return self._judged("resource", analyzed_resource, judge_resource, request)

    @_answering
    def AnalyzeStack(self, request: Any, context: Any) -> Any:
        return self._judged("stack", stack_resources, judge_stack, request)

    @_answering
    def Remediate(self, request: Any, context: Any) -> Any:
        response = pb.RemediateResponse()
        for c in self.configured():
            if c.level is EnforcementLevel.REMEDIATE and c.spec.scope == "resource":
                response.not_applicable.append(pb.PolicyNotApplicable(
                    policy_name=c.spec.name, reason="Policy does not implement remediate"))
        return response

    def Handshake(self, request: Any, context: Any) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_IMPLEMENTED.format(method="Handshake"))

    def Cancel(self, request: Any, context: Any) -> Any:
        context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_IMPLEMENTED.format(method="Cancel"))


def run_date() -> date:
    """The run's UTC date: the default of the pack config's ``today``. The pack's one clock (the
    date is an input everywhere else; tests/architecture/test_no_clock.py holds it here)."""
    return datetime.now(timezone.utc).date()


def analyzer_info(specs: Sequence[PolicySpec], name: str, description: str) -> Any:
    """``GetAnalyzerInfo``'s answer: the pack and, in order, each policy with its default
    level, severity, kind, topic tag and config schema (shared keys plus its own)."""
    from nodepools.policies.settings import schema_properties

    info = pb.AnalyzerInfo(name=name, version=PACK_VERSION, supportsConfig=True, description=description)
    for spec in specs:
        policy = pb.PolicyInfo(name=spec.name, description=spec.description, enforcementLevel=LEVELS[spec.level],
                               policy_type=pb.POLICY_TYPE_RESOURCE if spec.scope == "resource"
                               else pb.POLICY_TYPE_STACK, severity=SEVERITIES[spec.severity])
        policy.configSchema.properties.update(schema_properties(spec.name, spec.config))
        if spec.topic:
            policy.tags.append(spec.topic)
        info.policies.append(policy)
    return info
