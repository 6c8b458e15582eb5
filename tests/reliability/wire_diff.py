"""Compare two offline runs registration by registration (by URN, never by position)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from nodepools.offline.engine import Run


def paths(a: Any, b: Any, prefix: str = "") -> set[str]:
    """Dotted paths where two wire values differ (lists are compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: set[str] = set()
        for key in sorted(set(a) | set(b)):
            where = f"{prefix}.{key}" if prefix else key
            if key not in a or key not in b:
                out.add(where)
            else:
                out |= paths(a[key], b[key], where)
        return out
    return set() if a == b else {prefix or "(root)"}


# Options that decide how the engine updates a resource (a replacement among them).
OPTIONS = ("ignore_changes", "replace_on_changes", "delete_before_replace", "provider", "protect")


@dataclass
class RunDiff:
    # Resources as (type, name): a component and its node group may share a name.
    added: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    # (type, name) -> the input paths that differ
    changed: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def diff(before: Run, after: Run) -> RunDiff:
    old, new = before.by_urn(), after.by_urn()
    out = RunDiff(added=sorted((new[u].type, new[u].name) for u in set(new) - set(old)),
                  removed=sorted((old[u].type, old[u].name) for u in set(old) - set(new)))
    for urn in sorted(set(old) & set(new)):
        a, b = old[urn], new[urn]
        changed = {f"opts.{o}" for o in OPTIONS if getattr(a, o) != getattr(b, o)}
        if a.wire.SerializeToString(deterministic=True) != b.wire.SerializeToString(deterministic=True):
            changed |= paths(json_format.MessageToDict(a.wire), json_format.MessageToDict(b.wire))
        if changed:
            out.changed[(a.type, a.name)] = changed
    return out
