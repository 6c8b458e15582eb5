"""The plan's checks over the recorded run: the policy pack's report and the placement matrix.

Both read the resources the real program registered, so they judge exactly what
``pulumi preview`` would send. Each section carries ``text`` (lines for people)
beside its data.
"""
from __future__ import annotations

import tempfile
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, Iterator, Mapping

from nodepools.inventory.values import is_unknown
from nodepools.offline.analyzer import PackError, PolicyPackRunner
from nodepools.pack import write_pack
from nodepools.pack.runtime import pack_python
from nodepools.placement.gpu_fit import gpu_fit_rows, gpu_fit_text
from nodepools.placement.report import markdown, matrix
from nodepools.plan.run import StackRun
from nodepools.policies.stack_view import StackView


def _plain(value: Any) -> Any:
    if is_unknown(value):
        return None
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return getattr(value, "value", value)


def pack_dir_for(stack_run: StackRun, pack_dir: Path | None = None) -> Path | None:
    """The pack to run: ``pack_dir`` (which must hold a pack), else the project's
    ``policy/``; None means the pack shipped in this package."""
    if pack_dir is not None:
        if not (Path(pack_dir) / "PulumiPolicy.yaml").is_file():
            raise PackError(f"--policy-pack {pack_dir}: no PulumiPolicy.yaml there")
        return Path(pack_dir)
    project_pack = stack_run.project.root / "policy"
    return project_pack if (project_pack / "PulumiPolicy.yaml").is_file() else None


@contextmanager
def _pack_folder(found: Path | None) -> Iterator[tuple[Path, str]]:
    """(folder, how it was found); the package's pack is written to a temporary folder
    exactly as ``nodepools pack new`` writes it, and runs with this Python."""
    if found is not None:
        yield found, str(found)
        return
    with tempfile.TemporaryDirectory(prefix="nodepools-pack-") as tmp:
        write_pack(Path(tmp))
        yield Path(tmp), "the pack shipped in the nodepools package; no policy/ in the project"


def _resource(urn: str, by_urn: dict[str, Any]) -> str:
    reg = by_urn.get(urn)
    return f"{reg.type} {reg.name}" if reg else ("(stack)" if not urn else urn.rsplit("::", 1)[-1])


def policy_report(stack_run: StackRun, today: date, pack_dir: Path | None = None,
                  pack_config: Mapping[str, Any] | None = None, *,
                  timeout_seconds: float | None = None) -> dict[str, Any] | None:
    """The real pack's verdicts over the run on ``today``, spoken over the Analyzer gRPC protocol
    as ``pulumi preview --policy-pack`` would; the pack gets ``timeout_seconds`` from its
    start to its last answer (``PackTimeoutError``)."""
    with _pack_folder(pack_dir_for(stack_run, pack_dir)) as (pack, source):
        # As the Pulumi CLI: the pack's own virtualenv when it has one, else this Python.
        with PolicyPackRunner(pack_dir=pack, python=pack_python(pack), project=stack_run.project.name,
                              stack=stack_run.stack, today=today, timeout_seconds=timeout_seconds) as runner:
            info = runner.info()
            diagnostics = runner.check(stack_run.run.resources, pack_config)
    by_urn = stack_run.run.by_urn()
    rows = [{"policy": d.policy, "enforcement": d.level, "severity": d.severity,
             "resource": _resource(d.urn, by_urn), "urn": d.urn, "message": d.message} for d in diagnostics]
    violations = [r for d, r in zip(diagnostics, rows) if not d.cannot_judge]
    undecided = [r for d, r in zip(diagnostics, rows) if d.cannot_judge]
    mandatory = sum(1 for r in violations if r["enforcement"] == "mandatory")
    text = [f"Policy pack {info.name} {info.version} ({len(info.policies)} policies, {source}): "
            f"{mandatory} mandatory and {len(violations) - mandatory} advisory violations"
            + (f", {len(undecided)} not decidable at preview" if undecided else "")]
    for label, group in (("", violations), ("undecided, ", undecided)):
        for r in group:
            # The pack's message is the policy's description, then the finding: show the finding.
            detail = r["message"].splitlines()[1:] or r["message"].splitlines()
            text += [f"  [{label}{r['enforcement']}] {r['policy']} on {r['resource']}:", *(f"      {d}" for d in detail)]
    return {"pack": info.name, "version": info.version, "path": source, "policies": len(info.policies),
            "violations": violations, "undecided": undecided, "mandatory": mandatory, "text": text}


def placement_matrix(view: StackView) -> dict[str, Any]:
    """Where every workload of the run can land: one verdict per pod template x pool, each
    workload's namespace and class as the stack model (the pack's) reads them."""
    report = view.report
    summaries = [{
        "workload": s.workload.name, "kind": s.workload.kind, "namespace": _plain(s.namespace),
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
    gpu_text = gpu_fit_text(report)
    return {"pools": [p.name for p in report.pools], "workloads": summaries, "verdicts": verdicts,
            "flagged": [s["workload"] for s, raw in zip(summaries, report.summaries) if raw.flagged],
            "text": text + ([""] + gpu_text if gpu_text else []), "markdown": markdown(report),
            "gpu_fit": gpu_fit_rows(report), "gpu_text": gpu_text,
            "table": _cells(matrix(report)) if summaries else None}


def _cells(text: str) -> dict[str, Any]:
    """The matrix's header, rows and the lines after it (legend, reasons), cell by cell,
    for a renderer that fits them to a terminal's width."""
    lines = text.rstrip("\n").split("\n")
    end = lines.index("") if "" in lines else len(lines)
    table = [line.split(" | ") for i, line in enumerate(lines[:end]) if i != 1]
    return {"header": [c.strip() for c in table[0]], "rows": [[c.strip() for c in row] for row in table[1:]],
            "after": lines[end:]}


def mandatory_violations(policy: dict[str, Any] | None) -> int:
    if not policy:
        return 0
    return sum(1 for v in policy.get("violations", []) if v.get("enforcement") == "mandatory")
