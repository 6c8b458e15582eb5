"""``nodepools plan``: the offline plan of a stack, on any machine, without cloud credentials.

Usage::

    nodepools plan [--stack aws-dev] [--json] [--project-dir DIR]
                   [--workloads APP_DIR[:STACK] ...] [--report FILE.md]
                   [--policy-pack DIR] [--policy-pack-config FILE] [--no-policy]

Runs the stack's real program (``Pulumi.yaml`` ``main``) with its
``Pulumi.<stack>.yaml`` config under Pulumi's mock engine and prints the
resource tree with counts per type, the pools table, the layout verdict, the
policy report and the placement matrix (when the pack and the analysis are
installed), and what a mock run cannot know. ``--workloads`` runs app projects
(their ``dev`` stack unless ``:STACK`` is given) beside the platform, so the
pack and the placement matrix judge their workloads on this stack's pools;
``--report`` writes the placement matrix and a Mermaid diagram as Markdown.

The pack is ``--policy-pack DIR``, else the project's ``policy/``, else the
pack shipped in this package; a pack folder with its own virtualenv
(``PulumiPolicy.yaml`` ``runtime.options.virtualenv``) runs with that
virtualenv's Python, as the Pulumi CLI runs it. Only ``--no-policy`` skips it.

Exit status: 0 planned; 1 a mandatory policy is violated; 2 the config is
invalid, the program failed, the pack could not run, or the project/stack
cannot be found.

``nodepools pack new DIR`` writes a ready pack folder (PulumiPolicy.yaml,
__main__.py, requirements.txt pinned to this version) for another repository.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nodepools
from nodepools.pack import PackExistsError, write_pack
from nodepools.plan import verdicts
from nodepools.plan.project import ProjectError, find_project, load_project
from nodepools.plan.render import render
from nodepools.plan.run import StackRun, run_stack, with_workloads
from nodepools.plan.training import training_report

EXIT_OK, EXIT_POLICY, EXIT_ERROR = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="nodepools", description="nodepools: node pools for EKS and GKE")
    root.add_argument("--version", action="version", version=f"nodepools {nodepools.__version__}")
    sub = root.add_subparsers(dest="command", required=True)
    pack = sub.add_parser("pack", help="the CrossGuard policy pack")
    pack_sub = pack.add_subparsers(dest="pack_command", required=True)
    new = pack_sub.add_parser("new", help="write a ready pack folder (PulumiPolicy.yaml, __main__.py, "
                                          "requirements.txt pinned to this version)")
    new.add_argument("directory", type=Path, help="the pack folder to write (created if missing)")
    new.add_argument("--force", action="store_true", help="overwrite the pack files already there")
    plan = sub.add_parser("plan", help="offline plan of a stack (no cloud, no Pulumi CLI)",
                          description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    plan.add_argument("--stack", default="aws-dev", help="stack name: reads Pulumi.<stack>.yaml (default aws-dev)")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON for machines")
    plan.add_argument("--project-dir", type=Path, default=None,
                      help="directory of Pulumi.yaml (default: search from the working directory up)")
    plan.add_argument("--policy-pack", type=Path, default=None,
                      help="the CrossGuard pack to run (default: the project's policy/, else nodepools' own)")
    plan.add_argument("--policy-pack-config", type=Path, default=None,
                      help="JSON policy config, as for `pulumi preview --policy-pack-config`")
    plan.add_argument("--workloads", action="append", default=[], metavar="APP_DIR[:STACK]",
                      help="an app project whose workloads to place on this stack's pools (repeatable)")
    plan.add_argument("--report", type=Path, default=None, metavar="FILE.md",
                      help="write the placement matrix and a Mermaid diagram of pools and workloads as Markdown")
    plan.add_argument("--no-policy", action="store_true", help="skip the policy pack and the placement matrix")
    plan.add_argument("--json-file", type=Path, default=None, metavar="FILE.json",
                      help="also write the plan as JSON to FILE (whatever the result); "
                           "`python -m nodepools.plan.annotations FILE` turns it into GitHub annotations")
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "pack":
        return _pack_new(args.directory, args.force)
    # Here, not at the top: the stack config schema imports the components (pulumi-kubernetes),
    # which a core install (a pack's venv) lacks; `pack new` and `--version` work without them.
    from nodepools.plan.report import build_report
    try:
        project = load_project(args.project_dir) if args.project_dir else find_project()
        stack_run = run_stack(project, args.stack)
        apps = [_run_app(spec) for spec in args.workloads]
    except ProjectError as err:
        print(f"nodepools plan: {err}", file=sys.stderr)
        return EXIT_ERROR
    plan = build_report(stack_run)
    plan["workload_projects"] = [f"{a.project.root}:{a.stack}" for a in apps]
    failed = next((a for a in apps if a.error is not None), None)
    if plan["error"] is None and failed is not None:
        plan["error"] = {"kind": "program", "lines": [f"{failed.project.root} (stack {failed.stack}): {failed.error}"]}
    judged = with_workloads(stack_run, apps)
    if plan["error"] is None:
        plan["training"] = training_report(judged)
    if plan["error"] is None and not args.no_policy:
        try:
            config = json.loads(args.policy_pack_config.read_text()) if args.policy_pack_config else None
            plan["policy"] = verdicts.policy_report(judged, args.policy_pack, config)
        except (OSError, ValueError, verdicts.PackError) as err:
            plan["error"] = {"kind": "policy", "lines": [f"the policy pack could not run: {err}"]}
        plan["placement"] = verdicts.placement_matrix(judged)
        if args.report:
            args.report.parent.mkdir(parents=True, exist_ok=True)
            args.report.write_text(f"# Offline plan of {project.name}/{args.stack}\n\n{plan['placement']['markdown']}")
            plan["notes"].append(f"Placement report (matrix and Mermaid diagram) written to {args.report}.")
    if args.no_policy:
        plan["notes"].append("Policies were not checked and placement was not analysed: --no-policy.")
    code = EXIT_ERROR if plan["error"] else EXIT_POLICY if verdicts.mandatory_violations(plan["policy"]) else EXIT_OK
    plan["result"] = {EXIT_OK: "ok", EXIT_POLICY: "mandatory policy violated", EXIT_ERROR: "error"}[code]
    plan["exit_code"] = code
    plan["project_dir"] = str(project.root)
    if args.json:
        print(json.dumps(plan, indent=2, sort_keys=False, default=str))
    else:
        print(render(plan))
    if args.json_file:
        args.json_file.parent.mkdir(parents=True, exist_ok=True)
        args.json_file.write_text(json.dumps(plan, indent=2, sort_keys=False, default=str))
    return code


def _pack_new(directory: Path, force: bool) -> int:
    try:
        written = write_pack(directory, force=force)
    except (PackExistsError, OSError) as err:
        print(f"nodepools pack new: {err}", file=sys.stderr)
        return EXIT_ERROR
    print(f"Wrote the nodepools {nodepools.__version__} policy pack to {directory}: "
          f"{', '.join(p.name for p in written)}.\n"
          f"Create its virtualenv before `pulumi preview --policy-pack {directory}`:\n"
          f"  python -m venv {directory}/venv && {directory}/venv/bin/pip install -r {directory}/requirements.txt")
    return EXIT_OK


def _run_app(spec: str) -> StackRun:
    directory, _, stack = spec.partition(":")
    return run_stack(load_project(Path(directory)), stack or "dev")


if __name__ == "__main__":
    sys.exit(main())
