"""Validation matches whole strings: a pattern ending in ``$`` also matches before a
trailing newline (``re`` docs), so ``batch\\n`` passed as a pool name (issue 26)."""
from __future__ import annotations

import ast
from pathlib import Path

import nodepools

ROOT = Path(nodepools.__file__).parent
# The packages that validate user input; the pack's readers (policies, inventory, pack) are
# judged by their own rules (they read what a stack holds, they do not refuse it).
VALIDATING = ("spec", "config", "clouds", "backends", "guardrails", "components", "placement")


def patterns(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "compile" and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.lineno, node.args[0].value


def test_no_validation_pattern_ends_in_a_dollar():
    loose = [f"{path.relative_to(ROOT)}:{line}: {pattern}" for package in VALIDATING
             for path in sorted((ROOT / package).rglob("*.py")) for line, pattern in patterns(path)
             if pattern.endswith("$")]
    assert loose == []
