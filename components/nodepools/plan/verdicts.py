"""The plan's checks over the recorded run: the policy pack's report and the placement matrix.

Both read the resources the real program registered, so they judge exactly what
``pulumi preview`` would send. Each section carries ``text`` (lines for people)
beside its data.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from nodepools.inventory.values import is_unknown
from nodepools.offline.analyzer import PackError, PolicyPackRunner
from nodepools.placement import analyze
from nodepools.placement.report import markdown, matrix
from nodepools.plan.run import StackRun


def _plain(value: Any) -> Any:
    if is_unknown(value):
        return None
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return getattr(value, "value", value)


def pack_dir_for(stack_run: StackRun, pack_dir: Path | None = None) -> Path | None:
    """The pack to run: ``pack_dir``, else the project's ``policy/``."""
    for candidate in (pack_dir, stack_run.project.root / "policy"):
        if candidate is not None and (Path(candidate) / "PulumiPolicy.yaml").is_file():
            return Path(candidate)
    return None


def _resource(urn: str, by_urn: dict[str, Any]) -> str:
    reg = by_urn.get(urn)
    return f"{reg.type} {reg.name}" if reg else ("(stack)" if not urn else urn.rsplit("::", 1)[-1])


def policy_report(stack_run: StackRun, pack_dir: Path | None = None,
                  pack_config: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The real pack's verdicts over the run, spoken over the Analyzer gRPC protocol
    as ``pulumi preview --policy-pack`` would; None when no pack is found."""
    pack = pack_dir_for(stack_run, pack_dir)
    if pack is None:
        return None
    with PolicyPackRunner(pack_dir=pack, project=stack_run.project.name, stack=stack_run.stack) as runner:
        info = runner.info()
        diagnostics = runner.check(stack_run.run.resources, pack_config)
    by_urn = stack_run.run.by_urn()
    rows = [{"policy": d.policy, "enforcement": d.level, "severity": d.severity,
             "resource": _resource(d.urn, by_urn), "urn": d.urn, "message": d.message} for d in diagnostics]
    violations = [r for d, r in zip(diagnostics, rows) if not d.cannot_judge]
    undecided = [r for d, r in zip(diagnostics, rows) if d.cannot_judge]
    mandatory = sum(1 for r in violations if r["enforcement"] == "mandatory")
    text = [f"Policy pack {info.name} {info.version} ({len(info.policies)} policies, {pack}): "
            f"{mandatory} mandatory and {len(violations) - mandatory} advisory violations"
            + (f", {len(undecided)} not decidable at preview" if undecided else "")]
    for label, group in (("", violations), ("undecided, ", undecided)):
        for r in group:
            # The pack's message is the policy's description, then the finding: show the finding.
            detail = r["message"].splitlines()[1:] or r["message"].splitlines()
            text += [f"  [{label}{r['enforcement']}] {r['policy']} on {r['resource']}:", *(f"      {d}" for d in detail)]
    return {"pack": info.name, "version": info.version, "path": str(pack), "policies": len(info.policies),
            "violations": violations, "undecided": undecided, "mandatory": mandatory, "text": text}


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
            "flagged": [s["workload"] for s, raw in zip(summaries, report.summaries) if raw.flagged], "text": text,
            "markdown": markdown(report)}


def mandatory_violations(policy: dict[str, Any] | None) -> int:
    if not policy:
        return 0
    return sum(1 for v in policy.get("violations", []) if v.get("enforcement") == "mandatory")
