"""The stages of ``nodepools plan``, in order: run the programs (each in a child process of its
own, all at once: ``nodepools.plan.isolated``), report what they registered, build its stack model
(``nodepools.plan.model``, as the pack reads it), judge it with the policy pack and the placement
analysis on ``args.today``, write the Markdown report.

``Progress`` says which stage is running and holds the report once it exists, so a plan a
signal stops still reports what it had and names where it stopped.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nodepools.offline.analyzer import PackTimeoutError
from nodepools.plan import headroom, verdicts
from nodepools.plan.findings import locate
from nodepools.plan.model import plan_view
from nodepools.plan.outcome import error
from nodepools.plan.project import find_project, load_project
from nodepools.plan.report import build_report
from nodepools.plan.run import StackRun, run_isolated, with_workloads
from nodepools.plan.training import training_report
from nodepools.policies.stack_view import StackView


@dataclass
class Progress:
    """The stage running now (words that follow "while") and the report once built."""

    stage: str = "reading the project"
    plan: dict[str, Any] | None = None


def plan(args: argparse.Namespace, progress: Progress) -> dict[str, Any]:
    project = load_project(args.project_dir) if args.project_dir else find_project()
    targets = [(project, args.stack)]
    for spec in args.workloads:
        directory, _, stack = spec.partition(":")
        targets.append((load_project(Path(os.path.abspath(directory))), stack or "dev"))
    progress.stage = "the programs ran"
    stack_run, *apps = run_isolated(targets, timeout_seconds=args.timeout)
    report = progress.plan = build_report(stack_run)
    report["project_dir"] = str(project.root)
    report["workload_projects"] = [f"{a.project.root}:{a.stack}" for a in apps]
    failed = next((a for a in apps if a.error is not None), None)
    if report["error"] is None and failed is not None and failed.error is not None:
        where = f"{failed.project.root} (stack {failed.stack})"
        report["errors"] = [error(failed.error.kind, f"{where}: {line}", loc.get("file"), loc.get("line"),
                                  loc.get("config_path"))
                            for line, loc in zip(failed.error.lines, failed.error.locations)]
        report["error"] = {"kind": failed.error.kind, "lines": [e["message"] for e in report["errors"]]}
    judged = with_workloads(stack_run, apps)
    report["today"] = args.today.isoformat()
    if report["error"] is None:
        progress.stage = "the stack model was built"
        view = plan_view(judged.run, args.today)
        progress.stage = "the training section was built"
        report["training"] = training_report(judged, view)
        if not args.no_policy:
            _judge(args, report, judged, view, apps, progress)
    if args.no_policy:
        report["notes"].append("Policies were not checked and placement was not analysed: --no-policy.")
    return report


def _judge(args: argparse.Namespace, report: dict[str, Any], judged: StackRun, view: StackView,
           apps: list[StackRun], progress: Progress) -> None:
    config = None
    progress.stage = "the policy pack judged the run"
    try:
        config = policy_config(args.policy_pack_config)
        report["policy"] = verdicts.policy_report(judged, args.today, args.policy_pack, config,
                                                  timeout_seconds=args.timeout)
    except PackTimeoutError as err:
        message = f"the policy pack timed out: {err} (--timeout); nothing was judged"
        report["error"] = {"kind": "timeout", "lines": [message]}
        report["errors"] = [error("timeout", message, args.policy_pack)]
    except (OSError, ValueError, verdicts.PackError) as err:
        message = f"the policy pack could not run: {err}"
        report["error"] = {"kind": "policy", "lines": [message]}
        report["errors"] = [error("policy", message, args.policy_pack)]
    else:
        project = judged.project
        locate([*report["policy"]["violations"], *report["policy"]["undecided"]], judged.run.by_urn(), project,
               args.stack, {a.project.name: a.project for a in apps if a.project.name != project.name})
    progress.stage = "placement was analysed"
    report["placement"] = verdicts.placement_matrix(view)
    report["headroom"] = headroom.headroom_report(view, config)
    if args.report:
        progress.stage = f"the report {args.report} was written"
        _write_report(args.report, f"# Offline plan of {judged.project.name}/{args.stack}\n\n"
                                   f"{report['placement']['markdown']}", report)


def _write_report(path: Path, text: str, report: dict[str, Any]) -> None:
    """``--report``: a path that cannot be written is an error of its own (kind output): the plan's
    verdicts stand and its JSON report is still written."""
    try:
        if not path.parent.is_dir():
            path.parent.mkdir(parents=True)
        path.write_text(text)
    except OSError as err:
        reason = f"{err.filename} is not a folder" if isinstance(err, FileExistsError) else (err.strerror or err)
        message = f"cannot write --report {path}: {reason}"
        report["errors"] = [*report["errors"], error("output", message, path)]
        report["error"] = report["error"] or {"kind": "output", "lines": [message]}
        return
    report["notes"].append(f"Placement report (matrix and Mermaid diagram) written to {path}.")


def policy_config(path: Path | None) -> Any:
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except RecursionError:
        raise ValueError(f"--policy-pack-config {path}: nested too deeply to read") from None
