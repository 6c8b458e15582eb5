"""Where a finding or an error points: a stack file's line for a config path, the
project file and line that registered a resource or raised an error.

The SDK sends every registration's stack trace to the engine
(``RegisterResourceRequest.stackTrace``, innermost frame first; ``sourcePosition`` is
its first frame, pulumi/runtime/resource.py ``_get_stack_trace``); the first frame
inside the project is the line a person edits, also when a library (a nodepools
component) registered the resource on the program's behalf.
"""
from __future__ import annotations

import re
import traceback
from pathlib import Path
from typing import Any, Iterable

import yaml

from nodepools import safe_yaml

_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")
# A config error line starts with its config path: ``nodepools:pools[2].capacity: ...``.
CONFIG_PATH = re.compile(r"^(?P<path>[\w.-]+:[\w.\[\]'-]+): ")
_ENVIRONMENTS = ("site-packages", "dist-packages")


def config_line(stack_file: Path, config_path: str) -> int | None:
    """1-based line of ``namespace:key[i].field`` in the stack file, as deep as it resolves."""
    try:
        root = safe_yaml.compose(stack_file)
    except (OSError, yaml.YAMLError):
        return None
    match = re.match(r"^([^\[.]+)(.*)$", config_path)
    if match is None or root is None:
        return None
    key, rest = match.groups()
    node, line = _child(_child(root, "config")[0], key)
    for name, index in _STEP.findall(rest):
        if node is None:
            break
        node, deeper = _child(node, int(index) if index else name.strip("'"))
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


def in_project(path: str, roots: Iterable[Path]) -> bool:
    """``path`` is a source file of one of ``roots`` (not of a virtualenv inside it)."""
    resolved = Path(path).resolve()
    if any(part in _ENVIRONMENTS for part in resolved.parts):
        return False
    return any(resolved.is_relative_to(root) for root in roots)


def first_in_project(frames: Iterable[tuple[str, int]], roots: Iterable[Path]) -> tuple[str, int] | None:
    """The first (innermost) frame inside the project, else None."""
    roots = [Path(r).resolve() for r in roots]
    return next(((str(Path(f).resolve()), line) for f, line in frames if in_project(f, roots)), None)


def error_position(error: BaseException, roots: Iterable[Path]) -> tuple[str, int] | None:
    """The innermost traceback frame of ``error`` inside the project."""
    frames = [(f.filename, f.lineno or 0) for f in traceback.extract_tb(error.__traceback__)]
    return first_in_project(reversed(frames), roots)


def internal_error_message(error: BaseException) -> str:
    """What a user reads when nodepools itself raised (an input shape it does not handle):
    the exception and the nodepools line it came from, never a traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "/nodepools/" in Path(f.filename).as_posix()]
    where = ""
    if ours:
        path = Path(ours[-1].filename).as_posix()
        where = f" at {path[path.rindex('/nodepools/') + 1:]}:{ours[-1].lineno}"
    text = " ".join(str(error).split()) or "(no message)"
    return (f"nodepools could not read an input (a bug in nodepools: please report it with this line): "
            f"{type(error).__name__}{where}: {text}")
