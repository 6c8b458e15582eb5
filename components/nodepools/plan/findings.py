"""Where each policy finding points: the config entry that builds the resource, else
the project line that registered it.

A stack driven by structured config (``nodepools:cluster`` in its file) maps a pool to
its ``nodepools:pools[i]`` entry (by the pool name the resource ends with), guardrail
objects to ``nodepools:guardrails`` and the cluster to ``nodepools:cluster``, at that
node's line in the stack file. Everything else, in any program (and every resource of
a ``--workloads`` app project), points at the first frame inside its project of the
stack trace the SDK sent with the registration (``nodepools.plan.locate``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml

from nodepools import safe_yaml
from nodepools.offline.engine import Registration
from nodepools.plan.locate import config_line, first_in_project
from nodepools.plan.project import Project
from nodepools.vocabulary import POOL_RESOURCE_TYPES

NAMESPACE = "nodepools"


def _stack_keys(stack_file: Path) -> dict[str, Any]:
    try:
        document = safe_yaml.load(stack_file) or {}
    except (OSError, yaml.YAMLError):
        return {}
    config = document.get("config") if isinstance(document, dict) else None
    return config if isinstance(config, dict) else {}


def pool_paths(config: dict[str, Any], namespace: str = NAMESPACE) -> dict[str, str]:
    """pool name -> ``namespace:pools[i]``."""
    pools = config.get(f"{namespace}:pools") or []
    return {p["name"]: f"{namespace}:pools[{i}]" for i, p in enumerate(pools)
            if isinstance(p, dict) and isinstance(p.get("name"), str)}


def config_path_of(resource: str, urn: str, pools: dict[str, str], namespace: str = NAMESPACE) -> str | None:
    """The config entry that builds the resource; None for what the program adds itself."""
    type_, _, name = resource.partition(" ")
    chain = urn.split("::")[2] if urn.count("::") >= 3 else ""
    if type_ in POOL_RESOURCE_TYPES or "nodepools:pools:" in chain:
        matches = [pool for pool in pools if name == pool or name.endswith(f"-{pool}")]
        if matches:
            return pools[max(matches, key=len)]
    if "nodepools:guardrails:" in chain or "nodepools:karpenter:" in chain:
        return f"{namespace}:guardrails"
    if type_.startswith(("aws:eks/cluster", "gcp:container/cluster")):
        return f"{namespace}:cluster"
    if not urn:  # a stack-level finding: about the pools as a set
        return f"{namespace}:pools"
    return None


def locate(rows: Iterable[dict[str, Any]], registrations: dict[str, Registration], platform: Project,
           stack: str, apps: dict[str, Project]) -> None:
    """Add ``config_path``, ``file`` and ``line`` to each finding row (in place)."""
    stack_file = platform.stack_file(stack)
    config = _stack_keys(stack_file)
    structured = f"{NAMESPACE}:cluster" in config
    pools = pool_paths(config)
    for row in rows:
        reg = registrations.get(row["urn"])
        project = apps.get(_project_of(row["urn"]) or "", platform)
        path = config_path_of(row["resource"], row["urn"], pools) if structured and project is platform else None
        if path is not None:
            row.update(config_path=path, file=str(stack_file), line=config_line(stack_file, path))
            continue
        where = first_in_project(reg.stack or ([reg.source] if reg.source else []), [project.root]) if reg else None
        row.update(config_path=None, file=where[0] if where else str(project.program()),
                   line=where[1] if where else None)


def _project_of(urn: str) -> str | None:
    parts = urn.split("::")
    return parts[1] if urn.startswith("urn:pulumi:") and len(parts) > 2 else None
