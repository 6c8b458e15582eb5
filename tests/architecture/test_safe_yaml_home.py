"""One reader for the YAML a user hands nodepools (issue 26): ``nodepools.safe_yaml``, bounded
and strict. PyYAML's own loaders hang on an alias bomb, recurse past the interpreter's limit
and keep the last of two equal keys, so nothing else in the package calls them."""
from __future__ import annotations

import ast
from pathlib import Path

import nodepools

ROOT = Path(nodepools.__file__).parent
LOADERS = {"load", "safe_load", "full_load", "unsafe_load", "load_all", "safe_load_all", "compose", "compose_all",
           "parse", "scan"}


def test_only_safe_yaml_calls_pyyamls_loaders():
    calls = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name == "safe_yaml.py" and path.parent == ROOT:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "yaml" \
                    and func.attr in LOADERS:
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}: yaml.{func.attr}")
    assert calls == []
