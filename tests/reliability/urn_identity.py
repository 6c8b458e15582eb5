"""The identities an alias keeps alive, computed as the engine does.

``nodepools.offline.engine`` records engine-form URNs (a child's type prefixed by
its parent's whole qualified type) and every registration's alias specs, so the
pinned identities and their aliases compare directly with what a real update sees.
"""
from __future__ import annotations

from typing import Any

from nodepools.offline.engine import Registration, Run

STACK_TYPE = "pulumi:pulumi:Stack"


def _chain(reg: Registration, by_urn: dict[str, Registration]) -> list[str]:
    types = [reg.type]
    parent = by_urn.get(reg.parent)
    while parent is not None:
        types.append(parent.type)
        parent = by_urn.get(parent.parent)
    return list(reversed(types))


def alias_urns(reg: Registration, run: Run, specs: list[Any] | None = None) -> set[str]:
    """The engine URNs ``reg``'s aliases keep alive (name/type/parent default to its own)."""
    by_urn = run.by_urn()
    out = set()
    for alias in reg.alias_specs if specs is None else specs:
        if alias.urn:
            out.add(alias.urn)
            continue
        spec = alias.spec
        parent_types = [] if spec.noParent else _chain(by_urn[reg.parent], by_urn) if reg.parent in by_urn else []
        if spec.parentUrn:
            parent_types = [t for t in spec.parentUrn.split("::")[2].split("$") if t != STACK_TYPE]
        chain = [t for t in parent_types if t != STACK_TYPE] + [spec.type or reg.type]
        out.add(f"urn:pulumi:{spec.stack or 'dev'}::{spec.project or 'nodepools'}::{'$'.join(chain)}::"
                f"{spec.name or reg.name}")
    return out
