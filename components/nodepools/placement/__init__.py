"""Placement analysis: at preview time, where can every workload of a stack land, and if nowhere, why.

``analyze(resources, namespace_labels=None) -> PlacementReport`` is the entry
point (see ``nodepools.placement.analysis``); ``report.matrix`` / ``report.mermaid``
render it. Matching follows the scheduler exactly (docs/kubernetes-facts.md section 5):
``taints``, ``affinity``, ``capacity``; ``stack`` reads pools, workloads and clusters.
"""
from nodepools.placement.analysis import (Fit, Judgement, PlacementReport, Reason, Summary, Verdict, analyze,
                                          analyze_stack, judge)

__all__ = ["Fit", "Judgement", "PlacementReport", "Reason", "Summary", "Verdict", "analyze", "analyze_stack", "judge"]
