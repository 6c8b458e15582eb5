"""Resource identity as the real engine computes it, and the aliases a program declares.

Pulumi's mock monitor builds a child's URN from its parent's type only, while the
engine chains every ancestor's type (``a:b:Platform$a:b:NodePool$aws:...::name``),
so a renamed component type token would not show in a grandchild's mock URN.
``engine_urn`` rebuilds the engine's form from the recorded parent links.
``run_with_aliases`` runs a program and also keeps each registration's alias specs,
which ``nodepools.offline.engine`` does not record (it keeps ``aliasURNs`` only).
"""
from __future__ import annotations

from typing import Any, Callable

from nodepools.offline import engine
from nodepools.offline.engine import Registration, Run

STACK_TYPE = "pulumi:pulumi:Stack"


def _chain(reg: Registration, by_urn: dict[str, Registration]) -> list[str]:
    types = [reg.type]
    parent = by_urn.get(reg.parent)
    while parent is not None:
        types.append(parent.type)
        parent = by_urn.get(parent.parent)
    return list(reversed(types))


def engine_urn(reg: Registration, run: Run, project: str = "nodepools", stack: str = "dev") -> str:
    by_urn = run.by_urn()
    return f"urn:pulumi:{stack}::{project}::{'$'.join(_chain(reg, by_urn))}::{reg.name}"


def engine_urns(run: Run) -> set[str]:
    return {engine_urn(r, run) for r in run.resources}


def run_with_aliases(program: Callable[[], Any], monkeypatch: Any) -> tuple[Run, dict[str, list[Any]]]:
    """``(run, aliases)``: ``aliases`` maps a mock URN to the ``Alias`` messages it was registered with."""
    aliases: dict[str, list[Any]] = {}

    class Recording(engine._RecordingMonitor):  # noqa: SLF001 - test-only wrapper
        def RegisterResource(self, request):  # noqa: N802 - gRPC method name
            response = super().RegisterResource(request)
            aliases[response.urn] = list(request.aliases)
            return response

    monkeypatch.setattr(engine, "_RecordingMonitor", Recording)
    return engine.run_program(program), aliases


def alias_urns(reg: Registration, run: Run, specs: list[Any]) -> set[str]:
    """The engine URNs ``reg``'s aliases keep alive (name/type/parent default to its own)."""
    by_urn = run.by_urn()
    out = set()
    for alias in specs:
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
