"""The offline plan for people: plain text in a stable order, every line within ``width``.

Tables that fit are tables; one that does not turns into one block per row (the
placement matrix: one block per workload, its pools grouped by verdict). Long
lines (findings, notes, reasons) wrap with a hanging indent. Colour, when wanted,
is applied over these lines by ``nodepools.plan.terminal``.
"""
from __future__ import annotations

import textwrap
from itertools import groupby
from pathlib import Path
from typing import Any

# Text mode folds more than this many leaf siblings of one type into a line (--json lists all).
COLLAPSE_OVER = 3


def wrap(text: str, width: int, indent: str = "", hanging: str | None = None) -> list[str]:
    """``text`` in lines of at most ``width``: the first after ``indent``, the rest after ``hanging``."""
    hanging = indent + "    " if hanging is None else hanging
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=hanging,
                         break_long_words=True, break_on_hyphens=False) or [indent.rstrip()]


def _indented(lines: list[str], width: int) -> list[str]:
    """Preformatted lines wrapped to ``width``, each keeping its own indent."""
    return [ln for line in lines for ln in wrap(line.strip(), width, line[:len(line) - len(line.lstrip())])]


def _table(headers: list[str], rows: list[list[str]], sep: str = "  ") -> list[str]:
    widths = [max(len(str(c)) for c in col) for col in zip(headers, *rows)]
    fmt = sep.join(f"{{:<{w}}}" for w in widths)
    return ["  " + fmt.format(*headers).rstrip()] + ["  " + fmt.format(*map(str, r)).rstrip() for r in rows]


def _fits(lines: list[str], width: int) -> bool:
    return all(len(line) <= width for line in lines)


def _tree(resources: list[dict[str, Any]], width: int) -> list[str]:
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
                lines.extend(wrap(f"{type_}  x{len(group)}: {group[0]['name']} ... {group[-1]['name']}", width,
                                  indent))
                continue
            for row in group:
                lines.extend(wrap(f"{row['type']}  {row['name']}", width, indent))
                walk(row["urn"], depth + 1)

    walk(None, 0)
    return lines


def _gpus(row: dict[str, Any]) -> str:
    return f"{row['gpus_per_node']}x {row['gpu_model']}" if row["gpus_per_node"] else "-"


def _pools(pools: list[dict[str, Any]], width: int) -> list[str]:
    """A table; too wide, it names each pool's first instance type (+N more) and the
    lines under it list them all. Taints follow, one line per pool."""
    headers = ["pool", "class", "provisioner", "capacity", "min/max", "instance types", "GPUs/node"]

    def rows(types: Any) -> list[list[str]]:
        return [[p["name"], p["class"] or "?", p["provisioner"] or "-", p["capacity"] or "?",
                 f"{'-' if p['min_nodes'] is None else p['min_nodes']}/"
                 f"{'?' if p['max_nodes'] is None else p['max_nodes']}", types(p["instance_types"]), _gpus(p)]
                for p in pools]

    table = _table(headers, rows(lambda t: ", ".join(t) or "?"))
    listed = _fits(table, width)
    if not listed:
        table = _table(headers, rows(lambda t: (t[0] + (f" +{len(t) - 1}" if len(t) > 1 else "")) if t else "?"))
    if not _fits(table, width):
        table = [ln for p, row in zip(pools, rows(lambda t: ", ".join(t) or "?"))
                 for ln in wrap(f"{p['name']}: {', '.join(f'{h} {c}' for h, c in zip(headers[1:], row[1:]))}",
                                width, "  ")]
        listed = True
    out = [f"Pools ({len(pools)}):", *table]
    for p in pools:
        types = "" if listed else f"instance types {', '.join(p['instance_types'])}; "
        out += wrap(f"{p['name']}: {types}taints {', '.join(p['taints']) or 'none'}", width, "  ")
    return out


def _where(row: dict[str, Any], root: str | None) -> str | None:
    if not row.get("file"):
        return None
    shown = row["file"]
    if root and Path(shown).is_relative_to(root):
        shown = str(Path(shown).relative_to(root))
    at = f"{shown}:{row['line']}" if row.get("line") else shown
    return f"at {at}" + (f" ({row['config_path']})" if row.get("config_path") else "")


def _errors(plan: dict[str, Any], width: int) -> list[str]:
    what = {"config": "the config is invalid; nothing is planned", "program": "the program failed",
            "policy": "the policy pack could not run", "project": "the project or stack cannot be used",
            "usage": "bad arguments", "internal": "the plan failed"}
    kind = plan["errors"][0]["kind"]
    out = [f"ERROR: {what.get(kind, kind)}:"]
    for error in plan["errors"]:
        out += wrap(error["message"], width, "  ")
        if where := _where(error, plan.get("project_dir")):
            out += wrap(where, width, "    ")
    return out + [""]


def _policy(policy: dict[str, Any], width: int, root: str | None) -> list[str]:
    out = wrap(policy["text"][0], width)
    for label, group in (("", policy["violations"]), ("undecided, ", policy["undecided"])):
        for r in group:
            out += wrap(f"[{label}{r['enforcement']}] {r['policy']} on {r['resource']}:", width, "  ")
            # The pack's message is the policy's description, then the finding: show the finding.
            detail = r["message"].splitlines()[1:] or r["message"].splitlines()
            for line in detail:
                out += wrap(line, width, "      ", "        ")
            if where := _where(r, root):
                out += wrap(where, width, "      ")
    return out


def _placement(placement: dict[str, Any], width: int) -> list[str]:
    table = placement.get("table")
    if not table:
        return [ln for line in placement["text"] for ln in wrap(line, width)]
    header, rows = table["header"], table["rows"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  " + " | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    lines.insert(1, "  " + "-+-".join("-" * w for w in widths))
    if not _fits(lines, width):
        lines = []
        for row in rows:
            lines += wrap(f"{row[0]}: {row[-1]}", width, "  ")
            cells = sorted(zip(row[1:-1], header[1:-1]), key=lambda c: (c[0] != "fits", c[0]))
            for verdict, pools in groupby(cells, key=lambda c: c[0]):
                if verdict:
                    lines += wrap(f"{verdict}: {', '.join(p for _, p in pools)}", width, "    ", "      ")
    out = ["Placement (where each workload can land):", *lines]
    for line in table["after"]:
        out += wrap(line, width, "  " if not line.startswith("    ") else "    ", "      ")
    if placement.get("gpu_text"):
        out += [""] + [ln for line in placement["gpu_text"] for ln in wrap(line.strip(), width,
                                                                            "  " if line.startswith(" ") else "")]
    return out


def _addons(addons: list[dict[str, Any]], width: int) -> list[str]:
    out = ["Add-ons (Helm releases the components install, and the nodes they run on):"]
    for a in addons:
        selector = a["node_selector"]
        nodes = "on nodes " + ", ".join(f"{k}={v}" for k, v in selector.items()) \
            if isinstance(selector, dict) and selector else "where the chart's own node selection puts it"
        tolerations = f", {a['tolerations']} toleration{'s' if a['tolerations'] != 1 else ''}" if a["tolerations"] \
            else ""
        out += wrap(f"{a['release']} ({a['chart']} {a['version']}, namespace {a['namespace']}): {nodes}"
                    f"{tolerations}", width, "  ")
    return out


def _headroom(headroom: dict[str, Any], width: int) -> list[str]:
    """Warm capacity (plan/headroom.py): headings as they are, entries wrapped under their indent."""
    return [ln for line in headroom["text"]
            for ln in (wrap(line.strip(), width, "  ", "      ") if line.startswith("  ") else wrap(line, width))]


def render(plan: dict[str, Any], width: int = 100) -> str:
    out = wrap(f"nodepools plan: stack {plan['stack']} of project {plan['project']} "
               f"({plan.get('program') or 'not run'}, {plan['engine']})", width) + [""]
    if plan.get("errors"):
        out += _errors(plan, width)
    resources = plan["resources"]
    if plan.get("program") is not None:
        out.append(f"Resources ({len(resources)}; tree by parent):")
        out += _tree(resources, width) or ["  (none registered)"]
        out += ["", "Counts per type:"]
        out += [ln for t, n in plan["counts"].items() for ln in wrap(f"{n:>4}  {t}", width, "  ")] or ["  (none)"]
    if plan["pools"]:
        out += ["", *_pools(plan["pools"], width)]
    layout = plan.get("layout")
    if isinstance(layout, dict):
        verdict = "agrees" if layout["agrees"] else "CONTRADICTS the rule of thumb"
        out += ["", *wrap(f"Layout: {layout['chosen']} ({verdict}; the rule of thumb says {layout['recommended']})",
                          width)]
        out += [ln for reason in layout["reasons"] for ln in wrap(reason, width, "  ")]
        if layout.get("warning"):
            out += wrap(f"WARNING: {layout['warning']}", width, "  ")
    if isinstance(plan.get("alerts"), str):
        out += ["", *wrap(f"Alerts: {plan['alerts']}", width, "", "  ")]
    if plan.get("addons"):
        out += ["", *_addons(plan["addons"], width)]
    if plan.get("policy"):
        out += ["", *_policy(plan["policy"], width, plan.get("project_dir"))]
    if plan.get("placement"):
        out += ["", *_placement(plan["placement"], width)]
    if plan.get("training") and plan["training"]["text"]:
        out += ["", *_indented(plan["training"]["text"], width)]
    if plan.get("headroom"):
        out += ["", *_headroom(plan["headroom"], width)]
    if plan.get("notes"):
        out += ["", "What a mock run cannot know:"]
        out += [ln for note in plan["notes"] for ln in wrap(f"- {note}", width, "  ")]
    out += ["", f"Result: {plan.get('result', 'ok')}"]
    return "\n".join(out)
