"""Run a Pulumi program under Pulumi's own mock engine and record every registration.

This is the offline stand-in for ``pulumi preview`` / ``pulumi up``: the SDK
serialises each resource exactly as it would for the real engine (camelCase
keys, numbers as floats, unknowns during preview), and we keep the full
``RegisterResourceRequest`` — inputs, parent, dependencies, ignore_changes,
provider, and the source position the SDK computes for the registration (the
file and line of the user code that constructed the resource,
``RegisterResourceRequest.sourcePosition``; pulumi/runtime/resource.py
``_get_source_position``) — so tests can assert what the engine would receive, the
policy pack can be fed the same resources the engine would send it, and findings
can point at the line that registered a resource. Every resource's registered
outputs (``register_outputs`` of components) are kept too.

Each run happens on a fresh thread with its own asyncio event loop, closed at the end: the
SDK keeps its settings in ContextVars, and a new thread starts with none, so runs never leak
state into each other. Only the SDK's exported API is used, but for the two names
``nodepools.offline.pulumi_seam`` pins and a contract test checks.

During a run the cyclic garbage collector's thresholds are raised to
``RUN_GC_THRESHOLDS``: the SDK allocates many short-lived containers per
resource (futures, Outputs, serialised properties), and with CPython's default
first threshold (700) full collections, each one walking every live object,
made the time per resource grow with the size of the program (about 2x at 30
clusters of pools; BENCHMARKS.md, "2 fleet"). The interpreter's own thresholds
are restored afterwards.
"""
from __future__ import annotations

import asyncio
import gc
import json
import threading
from urllib.parse import urlparse
from urllib.request import url2pathname
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, TypeVar

import pulumi
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc

from nodepools import safe_yaml
from nodepools.offline.fakes import fake_outputs, preview_outputs
from nodepools.offline.pulumi_seam import MockMonitor, clear_root_stack

T = TypeVar("T")
STACK_TYPE = "pulumi:pulumi:Stack"
# gen0, gen1, gen2 thresholds during a run; None keeps the interpreter's (the bench's
# diagnostic rows set it to None to show what a program with the defaults pays).
RUN_GC_THRESHOLDS: tuple[int, int, int] | None = (50_000, 20, 20)


@dataclass
class Registration:
    """One resource as the engine would receive it."""

    urn: str
    type: str
    name: str
    custom: bool
    parent: str
    inputs: dict[str, Any]
    wire: struct_pb2.Struct
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    ignore_changes: list[str]
    provider: str
    protect: bool
    delete_before_replace: bool
    aliases: list[str]
    replace_on_changes: list[str]
    # The Alias messages as the SDK sends them (specs: name/type/parent/stack/project, or a URN).
    alias_specs: list = field(default_factory=list)
    # Where user code constructed it: (path, line) of the first frame outside the SDK, and
    # every frame of the stack trace the SDK sent, innermost first (to find the first one
    # inside a project when a library registered the resource).
    source: tuple[str, int] | None = None
    stack: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class Invoke:
    token: str
    args: dict[str, Any]


@dataclass
class Read:
    """A resource read rather than managed (``get`` methods, StackReference)."""

    urn: str
    type: str
    name: str
    id: str
    parent: str
    inputs: dict[str, Any]


@dataclass
class Run:
    """The outcome of one offline run."""

    stack_urn: str = ""
    resources: list[Registration] = field(default_factory=list)
    invokes: list[Invoke] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    logs: list[tuple[str, str]] = field(default_factory=list)
    # URN -> the outputs a resource registered (components' ``register_outputs``).
    component_outputs: dict[str, dict[str, Any]] = field(default_factory=dict)

    def of_type(self, type_token: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_token]

    def named(self, name: str) -> Registration:
        matches = [r for r in self.resources if r.name == name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} resources named {name!r}")
        return matches[0]

    def by_urn(self) -> dict[str, Registration]:
        return {r.urn: r for r in self.resources}

    def children_of(self, urn: str) -> list[Registration]:
        return [r for r in self.resources if r.parent == urn]


class _OfflineMocks(pulumi.runtime.Mocks):
    """A preview returns the inputs alone, every computed output unknown, a new resource's id
    too, as a real preview; an update adds plausible fake outputs and ids
    (``nodepools.offline.fakes``)."""

    def __init__(self, run: Run, preview: bool) -> None:
        self._run = run
        self._preview = preview

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        if self._preview:
            # The empty id is what a provider's preview of a create answers; the SDK reads it as
            # unknown. A read (``get``) keeps the id it asked for.
            return args.resource_id or "", preview_outputs(args.typ, args.name, args.inputs)
        state = dict(args.inputs)
        state.update(fake_outputs(args.typ, args.name, args.inputs))
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs):
        self._run.invokes.append(Invoke(args.token, dict(args.args)))
        if args.token == YAML_DECODE:
            return {"result": decode_yaml(args.args.get("text", ""))}
        return {}


# The provider function pulumi-kubernetes' ConfigFile / ConfigGroup (yaml v1) call to split their
# YAML into objects; answered here as the provider does, so their children are registered offline
# with the same type tokens the engine sends the pack (docs/design.md section 8).
YAML_DECODE = "kubernetes:yaml:decode"


def decode_yaml(text: Any) -> list[Any]:
    """Every object of a YAML stream (empty documents dropped); none when it does not parse."""
    try:
        return [doc for doc in safe_yaml.loads_all(text if isinstance(text, str) else "", "ConfigFile YAML")
                if isinstance(doc, dict)]
    except safe_yaml.YamlFileError:
        return []


class _RecordingMonitor(MockMonitor):
    def __init__(self, mocks: _OfflineMocks, run: Run) -> None:
        super().__init__(mocks)
        self._run = run
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """URNs as the engine builds them: a child's type is prefixed by its parent's
        whole qualified type, except under the root stack (the mock monitor keeps
        only the parent's last type and keeps the stack's). Waivers and pinned
        identities match real URNs."""
        if parent:
            qualified = parent.split("::")[2]
            if qualified != STACK_TYPE:
                type_ = f"{qualified}${type_}"
        return "urn:pulumi:" + "::".join([pulumi.get_stack(), pulumi.get_project(), type_, name])

    def RegisterResource(self, request):  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type == STACK_TYPE:
            self._run.stack_urn = response.urn
            return response
        # MockMonitor gave this thread an event loop (rpc reads resource references with one).
        wire = struct_pb2.Struct()
        wire.CopyFrom(request.object)
        registration = Registration(
            urn=response.urn, type=request.type, name=request.name, custom=bool(request.custom),
            parent=request.parent, inputs=rpc.deserialize_properties(request.object, keep_unknowns=True),
            wire=wire, dependencies=list(request.dependencies),
            property_dependencies={k: list(v.urns) for k, v in request.propertyDependencies.items()},
            ignore_changes=list(request.ignoreChanges), provider=request.provider, protect=bool(request.protect),
            delete_before_replace=bool(request.deleteBeforeReplace), aliases=[a for a in request.aliasURNs],
            replace_on_changes=list(request.replaceOnChanges), alias_specs=list(request.aliases),
            source=_position(request.sourcePosition) if request.HasField("sourcePosition") else None,
            stack=[pos for pos in (_position(f.pc) for f in request.stackTrace.frames if f.HasField("pc")) if pos],
        )
        with self._lock:
            self._run.resources.append(registration)
        return response

    def ReadResource(self, request):  # noqa: N802 - gRPC method name
        response = super().ReadResource(request)
        read = Read(urn=response.urn, type=request.type, name=request.name, id=request.id, parent=request.parent,
                    inputs=rpc.deserialize_properties(request.properties, keep_unknowns=True))
        with self._lock:
            self._run.reads.append(read)
        return response

    def RegisterResourceOutputs(self, request):  # noqa: N802 - gRPC method name
        outputs = json_format.MessageToDict(request.outputs)
        with self._lock:
            self._run.component_outputs[request.urn] = outputs
        if request.urn == self._run.stack_urn:
            self._run.outputs = outputs
        return super().RegisterResourceOutputs(request)


def _position(pos: Any) -> tuple[str, int] | None:
    """A ``SourcePosition`` (``file://`` URI, 1-based line) as (path, line)."""
    if not pos.uri.startswith("file://") or pos.line <= 0:
        return None
    return url2pathname(urlparse(pos.uri).path), int(pos.line)


def run_program(
    program: Callable[[], Any],
    *,
    project: str = "nodepools",
    stack: str = "dev",
    config: Mapping[str, Any] | None = None,
    preview: bool = True,
    secret_keys: Iterable[str] = (),
) -> Run:
    """Run ``program`` as the engine would and return what it registered.

    ``config`` maps ``namespace:key`` (or bare ``key``, namespaced to ``project``)
    to a value; structured values are passed as JSON, as the CLI does; the keys of
    ``secret_keys`` are marked secret, as ``pulumi config set --secret`` marks them. An
    exception raised by the program is re-raised here; ``Run`` is then lost, so
    use :func:`run_program_capture` to assert that nothing was registered.
    """
    run, error = run_program_capture(program, project=project, stack=stack, config=config, preview=preview,
                                     secret_keys=secret_keys)
    if error is not None:
        raise error
    return run


def run_program_capture(
    program: Callable[[], Any],
    *,
    project: str = "nodepools",
    stack: str = "dev",
    config: Mapping[str, Any] | None = None,
    preview: bool = True,
    secret_keys: Iterable[str] = (),
) -> tuple[Run, BaseException | None]:
    """Like :func:`run_program` but returns ``(run, error)`` instead of raising."""
    secret = [key if ":" in key else f"{project}:{key}" for key in secret_keys]
    run = Run()
    flat = {}
    for key, value in (config or {}).items():
        full = key if ":" in key else f"{project}:{key}"
        flat[full] = value if isinstance(value, str) else json.dumps(value)

    def body(loop: asyncio.AbstractEventLoop) -> None:
        pulumi.runtime.set_all_config(flat, secret)
        mocks = _OfflineMocks(run, preview)
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=preview,
                                 monitor=_RecordingMonitor(mocks, run))
        # set_mocks registers a finished root Stack of its own; replace it with the
        # one run_in_stack creates, so stack exports are registered as in a real run.
        clear_root_stack()
        loop.run_until_complete(pulumi.runtime.run_in_stack(program))

    previous = gc.get_threshold()
    if RUN_GC_THRESHOLDS is not None and previous[0] != 0:  # 0: the caller turned collection off
        gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(RUN_GC_THRESHOLDS, previous)))
    try:
        _, error = on_a_fresh_loop(body, name=f"nodepools-offline-{stack}")
    finally:
        gc.set_threshold(*previous)
    return run, error


def on_a_fresh_loop(body: Callable[[asyncio.AbstractEventLoop], T], name: str = "nodepools-offline") -> \
        tuple[T | None, BaseException | None]:
    """``(body(loop), None)``, or ``(None, the error it raised)``: ``body`` run on a new thread with its
    own asyncio event loop, closed afterwards (its default executor, where the SDK calls the mock
    monitor, shut down first). The SDK keeps its settings in ContextVars and a new thread starts
    with none, so nothing of one run reaches the next."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)  # the SDK schedules registrations on the thread's loop
        try:
            outcome["value"] = body(loop)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome["error"] = exc
        finally:
            loop.run_until_complete(loop.shutdown_default_executor())
            asyncio.set_event_loop(None)
            loop.close()

    thread = threading.Thread(target=target, name=name)
    thread.start()
    thread.join()
    return outcome.get("value"), outcome.get("error")
