"""Placement for people: a workload x pool matrix in plain text and a Mermaid diagram.

The matrix has one row per pod template and one column per pool: ``fits``, the
first reason it cannot land (``taint``, ``selector``, ``affinity``, ``size``),
``?<reason>`` when preview cannot judge it, blank for another cluster's pool.
The last column sums the workload up; the lines under the table say why.
The diagram (``graph LR``) draws each pool and an arrow from each workload to
every pool it can reach (dashed when undecided); unschedulable workloads stand
alone, in red.
"""
from __future__ import annotations

from nodepools.inventory.pools import PoolView
from nodepools.inventory.values import is_unknown
from nodepools.inventory.workloads import PodTemplate
from nodepools.placement.analysis import Fit, PlacementReport, Reason, Summary, Verdict

_CELL = {Reason.TAINT: "taint", Reason.NODE_SELECTOR: "selector", Reason.AFFINITY: "affinity", Reason.SIZE: "size"}
LEGEND = ("fits = can land; taint/selector/affinity/size = first reason it cannot; "
          "?x = cannot judge x at preview; blank = another cluster")


def pool_heading(pool: PoolView) -> str:
    cls = pool.pool_class
    tags = [cls.value if cls else ("class unknown" if is_unknown(cls) else "unclassed")]
    if pool.spot is True:
        tags.append("spot")
    if pool.is_gpu is True:
        tags.append("GPU")
    return f"{pool.name} ({', '.join(tags)})"


def workload_heading(summary: Summary, template: PodTemplate | None = None) -> str:
    """``<kind> <namespace>/<name> [<role>]``, the namespace as the stack model reads it."""
    namespace = "?" if is_unknown(summary.namespace) else summary.namespace
    role = f" [{template.role}]" if template is not None and template.role else ""
    return f"{summary.workload.kind} {namespace}/{summary.workload.name}{role}"


def _cell(verdict: Verdict | None) -> str:
    if verdict is None:
        return ""
    if verdict.fit is Fit.FITS:
        return "fits"
    return ("?" if verdict.fit is Fit.UNKNOWN else "") + _CELL[verdict.reason]


def summary_text(summary: Summary) -> str:
    flags = []
    if summary.unschedulable is True:
        flags.append("UNSCHEDULABLE")
    if summary.gpu_pools_without_gpu:
        flags.append("GPU pool without GPU request")
    if summary.spot_pools_while_resident:
        flags.append(f"spot while {summary.workload_class.value}")
    if flags:
        return "; ".join(flags)
    return "ok" if summary.unschedulable is False else "undecided"


def matrix(report: PlacementReport) -> str:
    """The plain-text workload x pool table, with the reasons for flagged workloads below it."""
    header = ["workload", *(pool_heading(p) for p in report.pools), "summary"]
    rows = []
    for summary in report.summaries:
        for template in summary.workload.templates:
            cells = {v.pool.urn: v for v in report.verdicts
                     if v.workload is summary.workload and v.template is template}
            rows.append([workload_heading(summary, template),
                         *(_cell(cells.get(p.urn)) for p in report.pools), summary_text(summary)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join([*lines, "", LEGEND, *_reasons(report)]) + "\n"


def _reasons(report: PlacementReport) -> list[str]:
    out = []
    for s in report.summaries:
        name = workload_heading(s)
        if s.unschedulable is True:
            out.append(f"- {name} fits no pool of its cluster:")
            out.extend(f"    {why}" for why in s.why_not)
        if s.gpu_pools_without_gpu:
            out.append(f"- {name} requests no nvidia.com/gpu yet can land on GPU pool(s) "
                       f"{', '.join(s.gpu_pools_without_gpu)}")
        if s.spot_pools_while_resident:
            out.append(f"- {name} is {s.workload_class.value} yet can land on spot pool(s) "
                       f"{', '.join(s.spot_pools_while_resident)}")
    return ["", "Why:", *out] if out else []


def _label(text: str) -> str:
    return '"' + text.replace('"', "#quot;") + '"'


def mermaid(report: PlacementReport) -> str:
    """A Mermaid ``graph LR`` of pools and the workloads that can reach each."""
    lines = ["graph LR"]
    pool_ids = {p.urn: f"p{i}" for i, p in enumerate(report.pools)}
    for pool in report.pools:
        lines.append(f"  {pool_ids[pool.urn]}[[{_label(pool_heading(pool))}]]")
    for i, s in enumerate(report.summaries):
        node = f"w{i}"
        style = ":::unschedulable" if s.unschedulable is True else (":::flagged" if s.flagged else "")
        lines.append(f"  {node}({_label(workload_heading(s))}){style}")
        edges: dict[str, Fit] = {}
        for v in report.verdicts:
            if v.workload is s.workload and v.fit is not Fit.NO:
                known = v.fit is Fit.FITS and v.same_cluster is True
                if edges.get(v.pool.urn) is not Fit.FITS:
                    edges[v.pool.urn] = Fit.FITS if known else Fit.UNKNOWN
        for urn, fit in edges.items():
            arrow = "-->" if fit is Fit.FITS else "-.->|?|"
            lines.append(f"  {node} {arrow} {pool_ids[urn]}")
    lines += ["  classDef unschedulable fill:#fdd,stroke:#c00,color:#600",
              "  classDef flagged fill:#ffd,stroke:#c90"]
    return "\n".join(lines) + "\n"


def markdown(report: PlacementReport) -> str:
    """Both views as a Markdown section."""
    return ("## Placement\n\n```text\n" + matrix(report) + "```\n\n```mermaid\n" + mermaid(report) + "```\n")
