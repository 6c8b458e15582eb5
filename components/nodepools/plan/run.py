"""Run a stack's real program under Pulumi's mock engine, as ``pulumi preview`` runs it.

As the Python language host does (``nodepools.plan.project``, ``.toolchain``): the
program directory is the working directory, an entry ``.`` puts it on ``sys.path``,
and a project with its own virtualenv runs with that virtualenv's Python.

``nodepools plan`` runs each program in a child process of its own
(``nodepools.plan.isolated``). ``run_here`` runs a program in this process (tests, tools
that trust it; ``run_stack`` when the project's Python is this one) and leaves nothing
behind: working directory, ``sys.path``, ``sys.argv`` and the modules it imported from the
project are restored, so two projects with an ``infra`` package each plan side by side.
What the program prints goes to stderr (stdout carries the plan).
"""
from __future__ import annotations

import contextlib
import os
import runpy
import sys
from dataclasses import replace
from pathlib import Path
from typing import Iterator

from nodepools.offline.engine import Run, run_program_capture
from nodepools.plan.isolated import run_isolated
from nodepools.plan.locate import CONFIG_PATH, config_line, error_position
from nodepools.plan.project import Project, load_project, stack_config
from nodepools.plan.stack_run import HOST_PROTOCOL, Failure, StackRun, decode_run, encode_run
from nodepools.plan.toolchain import is_this_python, project_python

# With what nodepools.plan.stack_run holds: the plan's modules and tests import them from here.
__all__ = ["HOST_PROTOCOL", "Failure", "StackRun", "as_the_language_host", "decode_run", "encode_run",
           "failure_of", "load_and_run", "run_here", "run_isolated", "run_stack", "with_workloads"]


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
    """Execute ``project``'s program with ``stack``'s config, with the project's Python (here
    when it is this one); never raises for a failing program (``StackRun.error``), raises
    ProjectError when the project, stack or environment cannot be found."""
    python = project_python(project)
    if is_this_python(python):
        return run_here(project, stack, preview=preview)
    return run_isolated([(project, stack)], preview=preview)[0]


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
