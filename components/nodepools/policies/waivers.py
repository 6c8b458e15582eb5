"""Exemptions and waivers: which findings a policy still reports.

A waiver names a policy, a resource (its URN, or a glob over its Pulumi name),
an owner, a reason and an expiry date. It waives matching findings through the
end of its expiry day (UTC) as of the settings' ``today`` (an input: the pack config's
``today``, else the run's UTC date filled at the edge); after that the finding is reported
again, with a note naming the expired waiver so its owner can renew it or fix the resource.
System namespaces and ``exemptNamespaces`` are out of scope for every policy.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace
from typing import Iterable

from nodepools.inventory.values import is_unknown
from nodepools.policies.base import Finding
from nodepools.policies.settings import Settings, Waiver
from nodepools.vocabulary import SYSTEM_NAMESPACES


def waiver_matches(waiver: Waiver, urn: str) -> bool:
    if waiver.resource.startswith("urn:"):
        return fnmatch.fnmatchcase(urn, waiver.resource)
    name = urn.rsplit("::", 1)[-1]
    return fnmatch.fnmatchcase(name, waiver.resource)


@dataclass(frozen=True)
class Verdict:
    """What a policy reports after exemptions and waivers."""

    violations: list[Finding]
    cannot_judge: list[Finding]
    waived: list[Finding]


def _exempt(finding: Finding, exempt: frozenset[str]) -> bool | None:
    """True/False, or None when the namespace is unknown (exemption undecidable)."""
    if finding.namespace is None:
        return False
    if is_unknown(finding.namespace):
        return None
    return finding.namespace in exempt


def apply(findings: Iterable[Finding], settings: Settings) -> Verdict:
    """What a policy reports of ``findings`` under ``settings`` (``dated``: its ``today`` filled)."""
    today = settings.today
    if today is None:
        raise ValueError("the settings carry no date: fill today at the edge (policies.settings.dated)")
    exempt = frozenset(SYSTEM_NAMESPACES) | frozenset(settings.exempt_namespaces)
    violations, cannot, waived = [], [], []
    for finding in findings:
        exemption = _exempt(finding, exempt)
        if exemption:
            continue
        if finding.cannot_judge:
            cannot.append(finding)
            continue
        if exemption is None:
            cannot.append(replace(finding, cannot_judge=True, field="metadata.namespace",
                                  problem=f"the namespace is unknown, so its exemption cannot be decided "
                                          f"({finding.field}: {finding.problem})"))
            continue
        matching = [w for w in settings.waivers if waiver_matches(w, finding.urn)]
        active = [w for w in matching if w.expires >= today]
        if active:
            waived.append(finding)
            continue
        if matching:
            expired = max(matching, key=lambda w: w.expires)
            finding = replace(finding, fix=f"{finding.fix} (waiver by {expired.owner} expired "
                                           f"{expired.expires.isoformat()}: {expired.reason}; renew it or fix "
                                           "the resource)")
        violations.append(finding)
    return Verdict(violations, cannot, waived)
