"""Placement analysis: at preview time, where can every workload of a stack land, and if nowhere, why.

``analyze(model) -> PlacementReport`` is the entry point (see ``nodepools.placement.analysis``):
``model`` is the stack's ``nodepools.inventory.stack_model.StackModel``, which the plan and the
pack build alike. ``report.matrix`` / ``report.mermaid`` render it. Matching follows the
scheduler exactly (docs/kubernetes-facts.md section 5): ``taints``, ``affinity``, ``capacity``.
"""
from nodepools.placement.analysis import Fit, Judgement, PlacementReport, Reason, Summary, Verdict, analyze, judge

__all__ = ["Fit", "Judgement", "PlacementReport", "Reason", "Summary", "Verdict", "analyze", "judge"]
