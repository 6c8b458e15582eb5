"""The offline plan for humans: plain text, stable order, no colours."""
from __future__ import annotations

from itertools import groupby
from typing import Any

# Text mode folds more than this many leaf siblings of one type into a line (--json lists all).
COLLAPSE_OVER = 3


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return ["  " + fmt.format(*headers).rstrip()] + ["  " + fmt.format(*map(str, r)).rstrip() for r in rows]


def _tree(resources: list[dict[str, Any]]) -> list[str]:
    children: dict[str | None, list[dict[str, Any]]] = {}
    for row in resources:
        children.setdefault(row["parent_urn"], []).append(row)
    lines: list[str] = []

    def walk(parent: str | None, depth: int) -> None:
        rows = sorted(children.get(parent, []), key=lambda r: (r["custom"], r["type"], r["name"]))
        indent = "  " * (depth + 1)
        for type_, group in groupby(rows, key=lambda r: r["type"]):
            group = list(group)
            leaves = all(r["urn"] not in children for r in group)
            if leaves and len(group) > COLLAPSE_OVER:
                # Long runs of leaf siblings (ASG tags, policy attachments) read better as one line.
                lines.append(f"{indent}{type_}  x{len(group)}: {group[0]['name']} ... {group[-1]['name']}")
                continue
            for row in group:
                lines.append(f"{indent}{row['type']}  {row['name']}")
                walk(row["urn"], depth + 1)

    walk(None, 0)
    return lines


def _gpus(row: dict[str, Any]) -> str:
    return f"{row['gpus_per_node']}x {row['gpu_model']}" if row["gpus_per_node"] else "-"


def render(plan: dict[str, Any]) -> str:
    out = [f"nodepools plan: stack {plan['stack']} of project {plan['project']} ({plan['program']}, "
           f"{plan['engine']})", ""]
    if plan["error"]:
        what = {"config": "the config is invalid; nothing is planned", "program": "the program failed",
                "policy": "the policy pack could not run"}[plan["error"]["kind"]]
        out += [f"ERROR: {what}:", *(f"  {line}" for line in plan["error"]["lines"]), ""]
    resources = plan["resources"]
    out.append(f"Resources ({len(resources)}; tree by parent):")
    out += _tree(resources) or ["  (none registered)"]
    out += ["", "Counts per type:"]
    out += [f"  {count:>4}  {type_}" for type_, count in plan["counts"].items()] or ["  (none)"]
    if plan["pools"]:
        out += ["", f"Pools ({len(plan['pools'])}):"]
        out += _table(["pool", "class", "provisioner", "capacity", "min/max", "instance types", "GPUs/node",
                       "taints"], [
            [p["name"], p["class"], p["provisioner"] or "-", p["capacity"],
             f"{'-' if p['min_nodes'] is None else p['min_nodes']}/{p['max_nodes']}", ", ".join(p["instance_types"]),
             _gpus(p), ", ".join(p["taints"]) or "-"] for p in plan["pools"]])
    layout = plan.get("layout")
    if isinstance(layout, dict):
        verdict = "agrees" if layout["agrees"] else "CONTRADICTS the rule of thumb"
        out += ["", f"Layout: {layout['chosen']} ({verdict}; the rule of thumb says {layout['recommended']})"]
        out += [f"  {reason}" for reason in layout["reasons"]]
        if layout.get("warning"):
            out.append(f"  WARNING: {layout['warning']}")
    if isinstance(plan.get("alerts"), str):
        out += ["", f"Alerts: {plan['alerts']}"]
    if plan.get("policy"):
        out += ["", *plan["policy"]["text"]]
    if plan.get("placement"):
        out += ["", *plan["placement"]["text"]]
    if plan.get("training") and plan["training"]["text"]:
        out += ["", *plan["training"]["text"]]
    out += ["", "What a mock run cannot know:"]
    out += [f"  - {note}" for note in plan["notes"]]
    out += ["", f"Result: {plan.get('result', 'ok')}"]
    return "\n".join(out)
