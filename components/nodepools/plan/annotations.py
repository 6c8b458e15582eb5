"""The plan's findings as GitHub Actions annotations: one ``::error`` per mandatory
violation or config error, ``::warning`` per advisory violation, each pointing at
the file and config path a reviewer must change.

A config error names its own path (``nodepools:pools[2].capacity``). A violation
names a resource: a pool of the stack maps to its ``nodepools:pools[i]`` entry (by
the pool name the resource ends with), guardrail objects to ``nodepools:guardrails``,
the cluster to ``nodepools:cluster``; what a program registers itself (and every
resource of a ``--workloads`` app project) points at that program. The line is the config node's line in the stack file.
Format: docs.github.com "Workflow commands for GitHub Actions" (``::error file=,line=,title=::``).

Usage, in a workflow step after ``nodepools plan --json-file plan.json``::

    python -m nodepools.plan.annotations plan.json
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterator

import yaml

from nodepools.plan.project import Project, ProjectError, load_project

_POOL_TYPES = ("aws:eks/nodeGroup:NodeGroup", "gcp:container/nodePool:NodePool")
_CONFIG_PATH = re.compile(r"^(?P<path>[\w.-]+:[\w.\[\]-]+): ")
_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, file: Path, line: int | None, title: str, message: str) -> str:
    where = f"file={_escape_property(_shown(file))}" + (f",line={line}" if line else "")
    return f"::{level} {where},title={_escape_property(title)}::{_escape_data(message)}"


def _shown(path: Path) -> str:
    """Relative to the working directory (the repository root in a workflow) when inside it."""
    try:
        return os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:
        return str(path)


def config_line(stack_file: Path, config_path: str) -> int | None:
    """1-based line of ``namespace:key[i].field`` in the stack file, as deep as it resolves."""
    try:
        root = yaml.compose(stack_file.read_text())
    except (OSError, yaml.YAMLError):
        return None
    key, rest = re.match(r"^([^\[.]+)(.*)$", config_path).groups()  # type: ignore[union-attr]
    node, line = _child(_child(root, "config")[0], key)
    for name, index in _STEP.findall(rest):
        if node is None:
            break
        node, deeper = _child(node, int(index) if index else name)
        line = deeper or line
    return line


def _child(node: Any, step: str | int) -> tuple[Any, int | None]:
    """The child node and its line (a mapping entry's key line, a list item's own)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == step:
                return value, key.start_mark.line + 1
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
        return node.value[step], node.value[step].start_mark.line + 1
    return None, None


def _pool_paths(stack_file: Path, namespace: str) -> dict[str, str]:
    """pool name -> ``namespace:pools[i]``."""
    try:
        config = (yaml.safe_load(stack_file.read_text()) or {}).get("config") or {}
    except (OSError, yaml.YAMLError, AttributeError):
        return {}
    pools = config.get(f"{namespace}:pools") or []
    return {p["name"]: f"{namespace}:pools[{i}]" for i, p in enumerate(pools)
            if isinstance(p, dict) and isinstance(p.get("name"), str)}


def _config_path_of(resource: str, urn: str, pools: dict[str, str], namespace: str) -> str | None:
    """The config entry that builds the resource; None for what the program adds itself."""
    type_, _, name = resource.partition(" ")
    chain = urn.split("::")[2] if urn.count("::") >= 3 else ""
    if type_ in _POOL_TYPES or "nodepools:pools:" in chain:
        matches = [pool for pool in pools if name == pool or name.endswith(f"-{pool}")]
        if matches:
            return pools[max(matches, key=len)]
    if "nodepools:guardrails:" in chain:
        return f"{namespace}:guardrails"
    if type_.startswith(("aws:eks/cluster", "gcp:container/cluster")):
        return f"{namespace}:cluster"
    if not urn:  # a stack-level finding: about the pools as a set
        return f"{namespace}:pools"
    return None


def _project_of(urn: str) -> str | None:
    parts = urn.split("::")
    return parts[1] if urn.startswith("urn:pulumi:") and len(parts) > 2 else None


def github_annotations(plan: dict[str, Any], project: Project, stack: str,
                       namespace: str = "nodepools") -> Iterator[str]:
    stack_file = project.stack_file(stack)
    error = plan.get("error")
    if error:
        for line in error["lines"]:
            match = _CONFIG_PATH.match(line) if error["kind"] == "config" else None
            if match:
                path = match["path"]
                yield annotation("error", stack_file, config_line(stack_file, path), "nodepools config", line)
            else:
                file = stack_file if error["kind"] == "config" else project.program()
                yield annotation("error", file, None, f"nodepools {error['kind']}", line)
    policy = plan.get("policy") or {}
    apps = {}
    for spec in plan.get("workload_projects", []):
        root, _, _ = spec.rpartition(":")
        app = load_project(Path(root))
        apps[app.name] = app
    pools = _pool_paths(stack_file, namespace)
    for row in policy.get("violations", []):
        level = "error" if row["enforcement"] == "mandatory" else "warning"
        finding = " ".join(row["message"].splitlines()[1:]) or row["message"]
        app = apps.get(_project_of(row["urn"]) or "")
        if app is not None and app.name != project.name:
            yield annotation(level, app.program(), None, f"nodepools policy {row['policy']}",
                             f"{row['resource']}: {finding}")
            continue
        path = _config_path_of(row["resource"], row["urn"], pools, namespace)
        if path is None:
            yield annotation(level, project.program(), None, f"nodepools policy {row['policy']}",
                             f"{row['resource']}: {finding}")
            continue
        yield annotation(level, stack_file, config_line(stack_file, path), f"nodepools policy {row['policy']}",
                         f"{path}: {row['resource']}: {finding}")

def main(argv: list[str] | None = None) -> int:
    """Print the annotations of each plan JSON file given; 0 unless a file cannot be read."""
    status = 0
    for name in (sys.argv[1:] if argv is None else argv):
        try:
            plan = json.loads(Path(name).read_text())
            project = load_project(Path(plan["project_dir"]))
        except (OSError, ValueError, KeyError, ProjectError) as err:
            print(f"::error title=nodepools plan::cannot read the plan {name}: {_escape_data(str(err))}")
            status = 2
            continue
        for line in github_annotations(plan, project, plan["stack"]):
            print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
