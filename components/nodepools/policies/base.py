"""The shapes every rule shares: a finding and a policy spec (a resource is the one record,
``nodepools.inventory.resource.Resource``; the stack is ``policies.stack_view.StackView``).

Rules are plain functions over plain data so other teams can call them, test
them and assemble their own pack (``nodepools.pack.serve.serve``); only
``nodepools.pack`` speaks the engine's Analyzer protocol.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Callable, Iterable, Iterator, Literal

from nodepools.inventory.values import is_unknown


@dataclass(frozen=True)
class Finding:
    """One violation (or, with ``cannot_judge``, one verdict preview cannot reach).

    ``subject`` names the resource, ``field`` the offending property path, ``fix``
    what to change; ``namespace`` (a name, ``UNKNOWN`` or None for cluster-scoped
    things) decides exemptions.
    """

    urn: str
    subject: str
    field: str
    problem: str
    fix: str = ""
    namespace: Any = None
    cannot_judge: bool = False

    @property
    def message(self) -> str:
        if self.cannot_judge:
            return f"{self.subject}: cannot judge {self.field} during preview: {self.problem}"
        return f"{self.subject}: {self.field}: {self.problem}. Fix: {self.fix}"


def merged(findings: list[Finding]) -> Finding:
    """Several violations of one policy on one resource as one finding (docs/design.md
    section 8): every offending element with its path, each distinct fix once."""
    if len(findings) == 1:
        return findings[0]
    first = findings[0]
    fields = list(dict.fromkeys(f.field for f in findings))
    problems = list(dict.fromkeys(f.problem for f in findings))
    fixes = list(dict.fromkeys(f.fix for f in findings if f.fix))
    if len(problems) == 1:
        return replace(first, field=", ".join(fields), fix="; ".join(fixes))
    parts = list(dict.fromkeys(f"{f.field}: {f.problem}" for f in findings))
    return replace(first, field=f"{len(parts)} problems", problem="; ".join(parts), fix="; ".join(fixes))


def one_per_resource(check: Callable[..., Iterable[Finding]]) -> Callable[..., Iterator[Finding]]:
    """A rule reports each resource at most once: its violations on one resource are merged
    (``merged``); verdicts preview cannot reach pass through (the pack lists them together)."""
    @functools.wraps(check)
    def wrapper(*args: Any) -> Iterator[Finding]:
        violations: dict[str, list[Finding]] = {}
        for finding in check(*args):
            if finding.cannot_judge:
                yield finding
            else:
                violations.setdefault(finding.urn, []).append(finding)
        for group in violations.values():
            yield merged(group)
    return wrapper


def unknown(urn: str, subject: str, field_path: str, namespace: Any = None, why: str = "") -> Finding:
    return Finding(urn, subject, field_path, why or "the value is unknown until the update runs",
                   namespace=namespace, cannot_judge=True)


def subject_of(res_type: str, name: Any, namespace: Any = None) -> str:
    """``Deployment 'web' in namespace 'shop'`` / ``aws:eks/nodeGroup:NodeGroup 'gpu'``."""
    kind = res_type.rsplit(":", 1)[-1] if res_type.startswith("kubernetes:") else res_type
    shown = "<unknown>" if is_unknown(name) else name
    where = "" if namespace is None else f" in namespace '{'<unknown>' if is_unknown(namespace) else namespace}'"
    return f"{kind} '{shown}'{where}"


Scope = Literal["resource", "stack"]


class EnforcementLevel(str, Enum):
    """What a violation does (CrossGuard's levels, as the pack config spells them): a
    mandatory one fails the preview, an advisory one warns."""

    ADVISORY = "advisory"
    MANDATORY = "mandatory"
    REMEDIATE = "remediate"
    DISABLED = "disabled"


class Severity(str, Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


@dataclass(frozen=True)
class PolicySpec:
    """A named policy of docs/design.md section 3.

    ``check`` takes ``(Resource, Settings)`` for resource policies and
    ``(StackView, Settings)`` for stack policies and yields findings.
    ``config`` names the policy's own config keys (on top of the shared ones).
    """

    name: str
    description: str
    severity: Severity
    level: EnforcementLevel
    scope: Scope
    check: Callable[..., Iterable[Finding]]
    config: tuple[str, ...] = ()
    topic: str = ""
