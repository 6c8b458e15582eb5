"""Run a stack's real program under Pulumi's mock engine, as ``pulumi preview`` runs it.

As the Python language host does (``nodepools.plan.project``, ``.toolchain``): the
program directory is the working directory, an entry ``.`` puts it on ``sys.path``,
and a project with its own virtualenv runs with that virtualenv's Python, in a child
process (``nodepools.plan.host``, which needs nodepools installed there, as a program
that uses nodepools has it). A program whose environment is this one runs here, and
leaves nothing behind: working directory, ``sys.path``, ``sys.argv`` and the modules
it imported from the project are restored, so two projects with an ``infra`` package
each plan side by side. What the program prints goes to stderr (stdout carries the plan).
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import runpy
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from google.protobuf import struct_pb2
from pulumi.runtime import rpc

from nodepools.offline.engine import Registration, Run, run_program_capture
from nodepools.plan.locate import CONFIG_PATH, config_line, error_position
from nodepools.plan.project import Project, ProjectError, load_project, stack_config
from nodepools.plan.toolchain import is_this_python, project_python

HOST_PROTOCOL = 1


@dataclass
class Failure:
    """Why a run stopped: ``kind`` config (the stack config is invalid) or program (it
    raised); one location per line: its config path, file and line where known."""

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


def failure_of(error: BaseException, project: Project, stack: str) -> Failure:
    """The failure of a program run: a stack config error line by line (config path and
    stack file line), anything else with the project line that raised it."""
    lines = getattr(error, "lines", None)
    if isinstance(lines, list) and type(error).__name__ == "StackConfigError":
        stack_file = project.stack_file(stack)
        locations = []
        for line in lines:
            match = CONFIG_PATH.match(line)
            path = match["path"] if match else None
            locations.append({"config_path": path, "file": str(stack_file),
                              "line": config_line(stack_file, path) if path else None})
        return Failure("config", list(lines), locations)
    text = str(error).splitlines() or [""]
    out = [f"{type(error).__name__}: {text[0]}", *text[1:]]
    where = error_position(error, [project.root])
    location = {"config_path": None, "file": where[0] if where else str(project.program()),
                "line": where[1] if where else None}
    return Failure("program", out, [location] * len(out))


@contextlib.contextmanager
def as_the_language_host(project: Project) -> Iterator[None]:
    """cwd = program directory and argv = [entry], undone after (``runpy.run_path`` of the
    directory puts it on ``sys.path`` itself, for the run only)."""
    cwd, path, argv = os.getcwd(), list(sys.path), list(sys.argv)
    modules = set(sys.modules)
    os.chdir(project.program_dir)
    sys.argv = [project.entry]
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        os.chdir(cwd)
        sys.path[:], sys.argv = path, argv
        root = str(project.root)
        for name in set(sys.modules) - modules:
            origin = getattr(sys.modules[name], "__file__", None) or ""
            if origin.startswith(root) and "site-packages" not in origin:
                del sys.modules[name]


def run_here(project: Project, stack: str, *, preview: bool = True) -> StackRun:
    """Run the program in this process (its environment is this one)."""
    config, secrets = stack_config(project, stack)
    program = project.program()

    # The language host runs ``runpy.run_path(entry)`` in the program directory; the absolute
    # path runs the same code and gives the SDK absolute source positions (a relative
    # one has no file:// URI, so the engine would get none).
    target = project.program_dir if project.entry == "." else project.program_dir / project.entry

    def main() -> None:
        runpy.run_path(str(target), run_name="__main__")

    with as_the_language_host(project):
        run, error = run_program_capture(main, project=project.name, stack=stack, config=config, preview=preview)
    failure = failure_of(error, project, stack) if error is not None else None
    return StackRun(project, stack, program, run, failure, secrets)


def run_stack(project: Project, stack: str, *, preview: bool = True) -> StackRun:
    """Execute ``project``'s program with ``stack``'s config, with the project's Python;
    never raises for a failing program (``StackRun.error``), raises ProjectError when
    the project, stack or environment cannot be found."""
    python = project_python(project)
    if is_this_python(python):
        return run_here(project, stack, preview=preview)
    assert python is not None
    return _run_hosted(project, stack, python, preview)


def _run_hosted(project: Project, stack: str, python: Path, preview: bool) -> StackRun:
    with tempfile.TemporaryDirectory(prefix="nodepools-plan-") as tmp:
        out = Path(tmp) / "run.json"
        request = {"protocol": HOST_PROTOCOL, "project": str(project.root), "stack": stack, "preview": preview,
                   "out": str(out)}
        result = subprocess.run([str(python), "-m", "nodepools.plan.host", json.dumps(request)],
                                stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
        if not out.is_file():
            # The last lines the host printed, without the frames of a traceback.
            detail = [line for line in result.stderr.strip().splitlines()
                      if not line.startswith((" ", "Traceback"))][-3:]
            hint = " (is nodepools installed there? the plan runs the program with it)" \
                if "No module named 'nodepools" in result.stderr else ""
            raise ProjectError(f"the program could not run with the project's virtualenv Python {python}{hint}: "
                               + " | ".join(detail), project.file)
        document = json.loads(out.read_text())
    if document.get("project_error"):
        err = document["project_error"]
        raise ProjectError(err["message"], Path(err["file"]) if err.get("file") else None, err.get("line"))
    run = decode_run(document["run"])
    failure = Failure(**document["error"]) if document.get("error") else None
    return StackRun(project, stack, project.program(), run, failure, document.get("secret_keys", []), str(python))


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


def with_workloads(platform: StackRun, apps: list[StackRun]) -> StackRun:
    """The platform's run with the app stacks' registrations beside it: what the
    cluster will hold once both are deployed, for the pack and the placement analysis.
    URNs stay distinct (each carries its own project and stack)."""
    merged = Run(stack_urn=platform.run.stack_urn,
                 resources=[*platform.run.resources, *(r for app in apps for r in app.run.resources)],
                 outputs=platform.run.outputs,
                 component_outputs={k: v for app in [platform, *apps] for k, v in app.run.component_outputs.items()})
    return replace(platform, run=merged)


def load_and_run(directory: Path, stack: str) -> StackRun:
    return run_stack(load_project(directory), stack)
