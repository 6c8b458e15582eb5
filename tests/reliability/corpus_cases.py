"""Load and run the bad-input corpus (``tests/reliability/corpus/*.yaml``).

Two kinds of case, both pure data:

- a **stack** case starts from a stack's ``Pulumi.<stack>.yaml``, applies ``set``
  (config path -> value, in the notation errors use: ``nodepools:pools[1].max_nodes``)
  and ``unset`` (paths to delete), and runs the real program ``stacks/__main__.py``;
- a **component** case runs the public API on its own: a pool (``NodePool``) on
  the reference EKS/GKE target, a ``Platform``,
  or a bare ``EksCluster``/``GkeCluster`` (``target`` overrides the reference
  target's arguments).

Each case lists the exact error lines (``errors``); the run must register nothing.
"""
from __future__ import annotations

import copy
import re
import runpy
from pathlib import Path
from typing import Any, Callable

import yaml

from nodepools.components import pools as pool_components
from nodepools.offline.engine import Run, run_program_capture

from reliability_programs import eks_target, gke_target, platform_program

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
CORPUS = HERE / "corpus"
PROGRAM = ROOT / "stacks" / "__main__.py"
_STEP = re.compile(r"\[(\d+)\]|\.([A-Za-z_][A-Za-z0-9_\-]*)|\['([^']+)'\]")


def load() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()):
            cases.append({**case, "file": path.name})
    return cases


def split(path: str) -> list[str | int]:
    """``nodepools:pools[1].labels['a/b']`` -> ``['nodepools:pools', 1, 'labels', 'a/b']``."""
    head = re.match(r"[^.\[]+", path)
    if head is None:
        raise ValueError(f"bad path {path!r}")
    steps: list[str | int] = [head.group(0)]
    pos = head.end()
    while pos < len(path):
        match = _STEP.match(path, pos)
        if match is None or match.end() == pos:
            raise ValueError(f"bad path {path!r} at {path[pos:]!r}")
        index, name, quoted = match.groups()
        steps.append(int(index) if index is not None else (name or quoted))
        pos = match.end()
    return steps


def _apply(config: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    config = copy.deepcopy(config)
    for path, value in (case.get("set") or {}).items():
        *parents, last = split(path)
        node: Any = config
        for step in parents:
            node = node[step]
        node[last] = value
    for path in case.get("unset") or []:
        *parents, last = split(path)
        node = config
        for step in parents:
            node = node[step]
        del node[last]
    return config


def stack_config(stack: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]


def _component_program(case: dict[str, Any]) -> Callable[[], None]:
    kind = case["component"]
    overrides = case.get("target") or {}
    make = (lambda: eks_target(**overrides)) if case.get("cloud", "aws") == "aws" else (lambda: gke_target(**overrides))
    if kind == "pool":
        spec = dict(case["spec"])
        return lambda: pool_components.NodePool(spec.get("name", "pool"), spec, make())
    if kind == "platform":
        spec = case["spec"]
        return platform_program(make, spec.get("pools", []), spec.get("guardrails"), spec.get("region"))
    if kind == "target":
        return lambda: make()
    raise ValueError(f"unknown component kind {kind!r}")


def run(case: dict[str, Any]) -> tuple[Run, BaseException | None]:
    if "stack" in case:
        config = _apply(stack_config(case["stack"]), case)
        return run_program_capture(lambda: runpy.run_path(str(PROGRAM), run_name="__main__"),
                                   stack=case["stack"], config=config)
    return run_program_capture(_component_program(case))
