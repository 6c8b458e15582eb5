"""Run a stack's real program under Pulumi's mock engine, as ``pulumi preview`` would run it."""
from __future__ import annotations

import runpy
from dataclasses import dataclass, field, replace
from pathlib import Path

from nodepools.offline.engine import Run, run_program_capture
from nodepools.plan.project import Project, stack_config


@dataclass
class StackRun:
    project: Project
    stack: str
    program: Path
    run: Run
    error: BaseException | None
    secret_keys: list[str] = field(default_factory=list)


def run_stack(project: Project, stack: str, *, preview: bool = True) -> StackRun:
    """Execute ``project``'s program with ``stack``'s config file; never raises for a
    failing program (its exception is in ``StackRun.error``)."""
    config, secrets = stack_config(project, stack)
    program = project.program()

    def main() -> None:
        runpy.run_path(str(program), run_name="__main__")

    run, error = run_program_capture(main, project=project.name, stack=stack, config=config, preview=preview)
    return StackRun(project, stack, program, run, error, secrets)


def with_workloads(platform: StackRun, apps: list[StackRun]) -> StackRun:
    """The platform's run with the app stacks' registrations beside it: what the
    cluster will hold once both are deployed, for the pack and the placement analysis.
    URNs stay distinct (each carries its own project and stack)."""
    merged = Run(stack_urn=platform.run.stack_urn,
                 resources=[*platform.run.resources, *(r for app in apps for r in app.run.resources)],
                 outputs=platform.run.outputs)
    return replace(platform, run=merged)
