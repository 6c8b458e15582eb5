"""The whole stack as stack policies see it: the stack model (``nodepools.inventory.stack_model``:
namespaces, the one class resolver, workloads, pools and clusters, the DRA index, the date) with
the placement analysis over it (``nodepools.placement``) and the pack's wording of what preview
cannot see. The plan builds the same model, so the plan and the pack read a stack alike.
"""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import Iterable

from nodepools.inventory.stack_model import StackModel
from nodepools.placement import PlacementReport, analyze
from nodepools.policies.base import Finding

__all__ = ["StackView"]


class StackView(StackModel):
    """A ``StackModel`` and its placement report, built once per request and view settings."""

    @cached_property
    def report(self) -> PlacementReport:
        return analyze(self)

    def explained(self, findings: Iterable[Finding]) -> list[Finding]:
        """Cannot-judge findings on a workload whose pods are unknown for a reason of its own
        (a TrainJob's runtime outside the stack) say that reason, whichever field the rule read."""
        reasons = {ref.res.urn: ref.workload.why_unknown for ref in self.all_workloads if ref.workload.why_unknown}
        return [replace(f, problem=reasons[f.urn]) if f.cannot_judge and f.urn in reasons else f for f in findings]
