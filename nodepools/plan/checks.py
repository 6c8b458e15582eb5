"""The plan's checks over the recorded run: the policy pack's report and the placement matrix.

Both read the resources the real program registered, so they judge exactly what
``pulumi preview`` would send. Each section carries ``text`` (lines for people)
beside its data.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory.values import is_unknown
from nodepools.placement import analyze
from nodepools.placement.report import matrix
from nodepools.plan.run import StackRun


def _plain(value: Any) -> Any:
    if is_unknown(value):
        return None
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return getattr(value, "value", value)


def policy_report(stack_run: StackRun) -> dict[str, Any] | None:
    """The real pack's verdicts over the run (Analyzer gRPC), or None without a pack."""
    return None


def placement_matrix(stack_run: StackRun) -> dict[str, Any]:
    """Where every workload of the run can land: one verdict per pod template x pool."""
    report = analyze(stack_run.run.resources)
    summaries = [{
        "workload": s.workload.name, "kind": s.workload.kind, "namespace": _plain(s.workload.namespace),
        "class": _plain(s.workload_class), "reachable": list(s.reachable), "unschedulable": _plain(s.unschedulable),
        "gpu_pools_without_gpu": list(s.gpu_pools_without_gpu),
        "spot_pools_while_resident": list(s.spot_pools_while_resident), "why_not": list(s.why_not),
    } for s in report.summaries]
    verdicts = [{"workload": x.workload.name, "template": x.template.role, "pool": x.pool.name, "fit": x.fit.value,
                 "reason": _plain(x.reason), "detail": x.detail} for x in report.verdicts]
    if summaries:
        text = ["Placement (where each workload can land):", *("  " + line for line in matrix(report).splitlines())]
    else:
        text = [f"Placement: the stack defines no workloads to place on its {len(report.pools)} pools (app stacks "
                "place theirs with the exported contracts; see examples/)."]
    return {"pools": [p.name for p in report.pools], "workloads": summaries, "verdicts": verdicts,
            "flagged": [s["workload"] for s, raw in zip(summaries, report.summaries) if raw.flagged], "text": text}


def mandatory_violations(policy: dict[str, Any] | None) -> int:
    if not policy:
        return 0
    return sum(1 for v in policy.get("violations", []) if v.get("enforcement") == "mandatory")
