"""``nodepools``: the offline plan of a stack (``nodepools plan``) and the policy pack folder
(``nodepools pack new``).

Exit status: 0 planned; 1 a mandatory policy is violated; 2 anything else (bad
arguments, config or project; the program failed, ended early or ran past ``--timeout``;
the pack could not run or answer in time; a file could not be written); 130 (143)
stopped by Ctrl-C (SIGTERM). Every failure is a message, never a traceback; the JSON
report (``--json``, ``--json-file``) is written whatever the result (``report.schema.json``:
``schemaVersion``, ``status`` ok | violations | invalid | failed | interrupted, ``errors``
with config path, file and line; ``nodepools.plan.outcome``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import nodepools
from nodepools.pack import PackExistsError, PackLinkError, write_pack
from nodepools.plan import guard
from nodepools.plan.outcome import (EXIT_ERROR, EXIT_OK, EXIT_POLICY, INVALID_KINDS, RESULTS, empty, error,
                                    status_of)
from nodepools.plan.project import Project, ProjectError, find_project, load_project
from nodepools.plan.terminal import Terminal

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_POLICY", "INVALID_KINDS", "RESULTS", "main", "parser", "report_document",
           "status_of"]

# --timeout's default, for each program and for the pack. The largest runs measured take well
# under a minute (BENCHMARKS.md: a pack pass over 10,000 workloads, 17.5 s on 2 shared cores;
# the 30-cluster fleet program); ten minutes leaves room for a slow, shared CI runner many
# times over, and still ends a hung gate long before a CI job's own limit (GitHub Actions: 6 h).
DEFAULT_TIMEOUT_SECONDS = 600.0

PLAN_HELP = """\
Run a Pulumi project's real program under Pulumi's mock engine, as `pulumi preview`
would run it (working directory, sys.path, virtualenv and config as the Pulumi
Python language host sets them), then judge what it registers with the CrossGuard
policy pack and the placement analysis. No cloud account, no Pulumi CLI.

Prints the resource tree, the pools of every nodepools component the program
builds (exported or not), the layout verdict, where the throttling alerts are
evaluated, the add-ons and the nodes they run on, the policy findings, where each
workload can land, and what a mock run cannot know.

The pack is --policy-pack DIR, else the project's policy/, else the pack shipped in
this package; a pack folder with its own virtualenv runs with that virtualenv's
Python, as the Pulumi CLI runs it. Relative paths are taken from the directory you
run the command in.

Each program runs in a child process of its own: one that ends before its run finished
(os._exit, a crash) fails the plan, and so does a program or pack that runs past
--timeout; both are stopped, and nothing the plan started outlives it.

exit status: 0 planned; 1 a mandatory policy is violated; 2 bad arguments, config
or project, the program failed, ended early or timed out, the pack could not run or
answer in time, or a file could not be written; 130 interrupted (Ctrl-C; 143 SIGTERM).
The JSON report is written on every exit (--json-file; status `interrupted` when
stopped), for `python -m nodepools.plan.annotations`.

examples:
  nodepools plan --stack aws-dev
  nodepools plan --project-dir infra --stack prod --json-file plan-out/prod.json
  nodepools plan --stack aws-dev --workloads ../my-app:prod --report plan-out/aws-dev.md
  nodepools plan --stack prod --policy-pack ../org-policies/nodepools
  COLUMNS=80 nodepools plan --stack gcp-dev --no-color
"""

PACK_NEW_HELP = """\
Write a ready CrossGuard pack folder (PulumiPolicy.yaml, __main__.py,
requirements.txt pinned to this nodepools version), e.g. for a policy repository
your pipelines share, and print the commands that create its virtualenv.

examples:
  nodepools pack new org-policies/nodepools
  nodepools pack new policy --force
"""


class UsageError(Exception):
    """Bad command-line arguments (argparse would exit; the report must be written first)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def parser() -> argparse.ArgumentParser:
    plain = argparse.RawDescriptionHelpFormatter
    root = _Parser(prog="nodepools", description="nodepools: node pools and guardrails for EKS and GKE, "
                   "checked offline", formatter_class=plain,
                   epilog="examples:\n  nodepools plan --stack aws-dev\n  nodepools pack new org-policies/nodepools"
                          "\n\n`nodepools COMMAND --help` says more.")
    root.add_argument("--version", action="version", version=f"nodepools {nodepools.__version__}")
    sub = root.add_subparsers(dest="command", required=True, parser_class=_Parser)
    pack = sub.add_parser("pack", help="the CrossGuard policy pack", description="The CrossGuard policy pack.")
    pack_sub = pack.add_subparsers(dest="pack_command", required=True, parser_class=_Parser)
    new = pack_sub.add_parser("new", help="write a ready pack folder", description=PACK_NEW_HELP,
                              formatter_class=plain)
    new.add_argument("directory", type=Path, help="the pack folder to write (created if missing)")
    new.add_argument("--force", action="store_true", help="overwrite the pack files already there")
    plan = sub.add_parser("plan", help="offline plan of a stack (no cloud, no Pulumi CLI)", description=PLAN_HELP,
                          formatter_class=plain)
    plan.add_argument("--stack", default="aws-dev", help="stack name: reads Pulumi.<stack>.yaml (default: aws-dev)")
    plan.add_argument("--project-dir", type=Path, default=None, metavar="DIR",
                      help="directory of Pulumi.yaml (default: searched from the working directory up)")
    plan.add_argument("--workloads", action="append", default=[], metavar="APP_DIR[:STACK]",
                      help="an app project whose workloads to place on this stack's pools; its dev stack unless "
                           ":STACK is given (repeatable)")
    plan.add_argument("--policy-pack", type=Path, default=None, metavar="DIR",
                      help="the CrossGuard pack to run (default: the project's policy/, else nodepools' own)")
    plan.add_argument("--policy-pack-config", type=Path, default=None, metavar="FILE",
                      help="JSON policy config, as for `pulumi preview --policy-pack-config`")
    plan.add_argument("--today", type=_date, default=None, metavar="YYYY-MM-DD",
                      help="the date the pack and the plan judge by: waiver expiry, the clouds' standard support, "
                           "cron schedules (default: today's UTC date); sent to every policy as its `today` config "
                           "unless --policy-pack-config gives the policy its own")
    plan.add_argument("--no-policy", action="store_true", help="skip the policy pack and the placement matrix")
    plan.add_argument("--json", action="store_true", help="print the JSON report instead of text")
    plan.add_argument("--json-file", type=Path, default=None, metavar="FILE",
                      help="also write the JSON report to FILE, whatever the result")
    plan.add_argument("--report", type=Path, default=None, metavar="FILE.md",
                      help="write the placement matrix and a Mermaid diagram of pools and workloads as Markdown")
    plan.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT_SECONDS, metavar="SECONDS",
                      help="stop a program, or the policy pack, that runs longer (each program from the plan's "
                           f"start, the pack from its own; default: {DEFAULT_TIMEOUT_SECONDS:g})")
    plan.add_argument("--no-color", action="store_true",
                      help="no colour (also: NO_COLOR set; never on a pipe, in JSON or in files)")
    return root


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def _date(text: str) -> date:
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD")


def run_date() -> date:
    """The run's UTC date: ``--today``'s default. The CLI's one clock (the date is an input
    everywhere else; tests/architecture/test_no_clock.py holds it here)."""
    return datetime.now(timezone.utc).date()


def _absolute(path: Path | None) -> Path | None:
    """Paths given on the command line are relative to where the command runs (made absolute
    lexically: a symlinked folder keeps the name the user gave)."""
    return None if path is None else Path(os.path.abspath(path))


def _json_file_in(argv: list[str]) -> Path | None:
    """``--json-file`` read without the parser: even bad arguments leave their report."""
    for i, arg in enumerate(argv):
        if arg == "--json-file" and i + 1 < len(argv):
            return _absolute(Path(argv[i + 1]))
        if arg.startswith("--json-file="):
            return _absolute(Path(arg.split("=", 1)[1]))
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser().parse_args(argv)
    except UsageError as err:
        if argv[:1] != ["plan"]:
            print(err, file=sys.stderr)
            return EXIT_ERROR
        return _emit(_empty(None, "?", [error("usage", str(err))]), json_out=False, json_file=_json_file_in(argv),
                     terminal=None)
    if args.command == "pack":
        return _pack_new(args.directory, args.force)
    terminal = Terminal.for_stdout(no_color=args.no_color)
    for name in ("project_dir", "policy_pack", "policy_pack_config", "json_file", "report"):
        setattr(args, name, _absolute(getattr(args, name)))
    args.today = args.today or run_date()
    # From here a signal (Ctrl-C, SIGTERM) stops the plan in order and it still reports; while it
    # reports, a signal is ignored.
    progress: Any = None
    with guard.uninterruptible():
        try:
            with guard.running():
                # Here, not at the top: the stages import the components (pulumi-kubernetes), which a core
                # install (a pack's venv) lacks; `pack new` and `--version` work without them.
                from nodepools.plan import stages
                progress = stages.Progress()
                try:
                    plan = stages.plan(args, progress)
                except ProjectError as err:
                    plan = _empty(_project_or_none(args), args.stack,
                                  [error("project", str(err), err.file, err.line)])
                except Exception as err:  # noqa: BLE001 - every failure is a message and exit 2, never a traceback
                    plan = _empty(_project_or_none(args), args.stack, [error("internal", _internal(err))])
        except guard.Interrupted as stop:
            plan = _interrupted(progress, args, stop)
        return _emit(plan, json_out=args.json, json_file=args.json_file, terminal=terminal)


def _interrupted(progress: Any, args: argparse.Namespace, stop: guard.Interrupted) -> dict[str, Any]:
    """The report of a plan a signal stopped: what it had, and where it stopped."""
    stage = progress.stage if progress is not None else "starting"
    message = f"interrupted by {stop.name} while {stage}: the plan stopped there; nothing after it was judged"
    if progress is not None and progress.plan is not None:
        plan = progress.plan
        plan["errors"] = [error("interrupted", message), *plan["errors"]]
    else:
        plan = _empty(None, args.stack, [error("interrupted", message)])
    plan["error"] = {"kind": "interrupted", "lines": [e["message"] for e in plan["errors"]]}
    plan["signal"] = stop.name
    return plan


def _internal(err: BaseException) -> str:
    from nodepools.plan.locate import internal_error_message
    return internal_error_message(err)


def _project_or_none(args: argparse.Namespace) -> Project | None:
    try:
        return load_project(args.project_dir) if args.project_dir else find_project()
    except Exception:  # noqa: BLE001 - the report of a failed plan names the project when it can
        return None


def _empty(project: Project | None, stack: str, errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of a plan that stopped before the program ran."""
    return empty(project.name if project else None, project.root if project else None, stack, errors)


def report_document(plan: dict[str, Any]) -> dict[str, Any]:
    """The JSON report of ``plan`` (``report.schema.json``): schemaVersion, status and exit code first."""
    from nodepools.plan.report import SCHEMA_VERSION
    status, code = status_of(plan)
    return {"schemaVersion": SCHEMA_VERSION, "status": status, "exit_code": code, "result": RESULTS[status],
            **{k: v for k, v in plan.items() if k not in ("schemaVersion", "status", "exit_code", "result")}}


def _emit(plan: dict[str, Any], *, json_out: bool, json_file: Path | None, terminal: Terminal | None) -> int:
    document = report_document(plan)
    code = document["exit_code"]
    text = json.dumps(document, indent=2, sort_keys=False, default=str)
    if json_file is not None:
        try:
            json_file.parent.mkdir(parents=True, exist_ok=True)
            json_file.write_text(text + "\n")
        except OSError as err:
            print(f"nodepools plan: cannot write --json-file {json_file}: {err.strerror or err}", file=sys.stderr)
            code = EXIT_ERROR
    if json_out:
        print(text)
    elif terminal is not None:
        from nodepools.plan.render import render
        try:
            terminal.print(render(document, width=terminal.width))
        except Exception as err:  # noqa: BLE001 - the report is written; the text view must not end in a traceback
            print(f"nodepools plan: {_internal(err)}", file=sys.stderr)
            return EXIT_ERROR
    else:
        for error in plan.get("errors") or []:
            print(f"{error['message']}" if error["kind"] == "usage" else f"nodepools plan: {error['message']}",
                  file=sys.stderr)
    if terminal is not None and not json_out and plan.get("errors") and plan.get("program") is None:
        for error in plan["errors"]:
            print(f"nodepools plan: {error['message']}", file=sys.stderr)
    return code


def _pack_new(directory: Path, force: bool) -> int:
    from nodepools.plan.install_hint import pack_install_commands
    try:
        written = write_pack(directory, force=force)
    except (PackExistsError, PackLinkError, OSError) as err:
        print(f"nodepools pack new: {err}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as err:  # noqa: BLE001 - every failure is a message and exit 2, never a traceback
        print(f"nodepools pack new: {_internal(err)}", file=sys.stderr)
        return EXIT_ERROR
    commands = pack_install_commands(directory)
    print(f"Wrote the nodepools {nodepools.__version__} policy pack to {directory}: "
          f"{', '.join(p.name for p in written)}.\n"
          f"Create its virtualenv before `pulumi preview --policy-pack {directory}`:\n"
          + "\n".join(f"  {c}" for c in commands))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
