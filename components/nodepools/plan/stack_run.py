"""One program's recorded run as the plan holds it (``StackRun``), why it stopped
(``Failure``), and the run as JSON (``encode_run``/``decode_run``): how the program host
(``nodepools.plan.host``, in a child process) hands its run back, each registration's
exact wire ``Struct`` included.
"""
from __future__ import annotations

import base64
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from google.protobuf import struct_pb2
from pulumi.runtime import rpc

from nodepools.offline.engine import Registration, Run
from nodepools.plan.project import Project

# The request and result the plan and its program host exchange (``nodepools.plan.host``).
HOST_PROTOCOL = 2


@dataclass
class Failure:
    """Why a run stopped: ``kind`` config (the stack config is invalid), program (it raised or
    ended the process before the run finished) or timeout (it ran past ``--timeout``); one
    location per line: its config path, file and line where known."""

    kind: str
    lines: list[str]
    locations: list[dict[str, Any]]


@dataclass
class StackRun:
    project: Project
    stack: str
    program: Path
    run: Run
    error: Failure | None
    secret_keys: list[str] = field(default_factory=list)
    python: str = sys.executable


def encode_run(run: Run) -> dict[str, Any]:
    """A run as JSON: each registration with its exact wire Struct (base64)."""
    resources = []
    for reg in run.resources:
        row = asdict(replace(reg, inputs={}, wire=None, alias_specs=[]))  # type: ignore[arg-type]
        row["wire"] = base64.b64encode(reg.wire.SerializeToString()).decode()
        row["alias_specs"] = [base64.b64encode(a.SerializeToString()).decode() for a in reg.alias_specs]
        resources.append(row)
    return {"stack_urn": run.stack_urn, "resources": resources, "outputs": run.outputs, "logs": run.logs,
            "component_outputs": run.component_outputs}


def decode_run(data: dict[str, Any]) -> Run:
    from pulumi.runtime.proto import alias_pb2
    resources = []
    for row in data["resources"]:
        wire = struct_pb2.Struct()
        wire.ParseFromString(base64.b64decode(row.pop("wire")))
        aliases = [alias_pb2.Alias.FromString(base64.b64decode(a)) for a in row.pop("alias_specs")]
        source = tuple(row.pop("source")) if row.get("source") else None
        stack = [tuple(f) for f in row.pop("stack")]
        row.pop("inputs", None)
        resources.append(Registration(**row, inputs=rpc.deserialize_properties(wire, keep_unknowns=True), wire=wire,
                                      alias_specs=aliases, source=source, stack=stack))  # type: ignore[arg-type]
    return Run(stack_urn=data["stack_urn"], resources=resources, outputs=data["outputs"],
               logs=[tuple(x) for x in data["logs"]], component_outputs=data["component_outputs"])  # type: ignore
