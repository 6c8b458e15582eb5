"""The offline plan as data: resource tree, counts, pools table, layout verdict, honest notes.

Everything comes from the recorded run of the real program: resources from its
registrations, the pools table, layout verdict, alert delivery and add-ons from the
nodepools components it registered (``nodepools.plan.pools``), exported or not.
Values only a cloud can compute are unknown during a preview; they are shown as
``<unknown>`` and counted in the notes, never invented. The document's shape is
``nodepools/plan/report.schema.json`` (``SCHEMA_VERSION``).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from pulumi.output import Unknown
from pulumi.runtime.rpc import UNKNOWN as WIRE_UNKNOWN

from nodepools.plan import pools as registered
from nodepools.plan.run import StackRun

SHOWN_UNKNOWN = "<unknown>"
SCHEMA_VERSION = 1
PROVIDER_PREFIX = "pulumi:providers:"


def clean(value: Any) -> Any:
    """Stack outputs for display: the unknown sentinel becomes ``<unknown>``, whole floats ints."""
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if value == WIRE_UNKNOWN or isinstance(value, Unknown):
        return SHOWN_UNKNOWN
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def unknown_paths(value: Any, path: str = "") -> list[str]:
    """Input paths (``vpcConfig.subnetIds[0]``) whose value the engine does not know yet."""
    if isinstance(value, Unknown) or value == WIRE_UNKNOWN:
        return [path or "(whole)"]
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out += unknown_paths(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += unknown_paths(item, f"{path}[{i}]")
    return out


def resources(sr: StackRun) -> list[dict[str, Any]]:
    by_urn = sr.run.by_urn()
    rows = []
    for reg in sorted(sr.run.resources, key=lambda r: r.urn):
        parent = by_urn.get(reg.parent)
        rows.append({
            "type": reg.type, "name": reg.name, "urn": reg.urn, "custom": reg.custom,
            "parent": {"type": parent.type, "name": parent.name} if parent else None,
            "parent_urn": parent.urn if parent else None,
            "unknown_inputs": unknown_paths(reg.inputs),
        })
    return rows


def notes(sr: StackRun, rows: list[dict[str, Any]]) -> list[str]:
    """What this mock run cannot know, stated plainly."""
    out = [
        f"Ran the real program ({_relative(sr)}) with stack {sr.stack}'s config under "
        "Pulumi's mock engine as a preview: no cloud was contacted and no state was read, so this is what a "
        "first `pulumi up` would create, not a diff against what already exists.",
        "Providers did not run: no provider defaults or auto-names, and nothing a cloud checks at create time "
        "(quotas, instance availability per zone, AMI and GKE versions, IAM permissions, CIDR overlaps).",
    ]
    computed = [r for r in rows if r["unknown_inputs"]]
    if computed:
        examples = "; ".join(f"{r['type']} {r['name']}: {', '.join(r['unknown_inputs'][:3])}" for r in computed[:3])
        out.append(f"{sum(len(r['unknown_inputs']) for r in computed)} inputs of {len(computed)} resources depend "
                   f"on outputs only the cloud computes (cluster names, ARNs, endpoints) and are shown as "
                   f"{SHOWN_UNKNOWN}, as in a real preview (e.g. {examples}).")
    if sr.secret_keys:
        out.append(f"Secret config values were not decrypted ({', '.join(sr.secret_keys)}); the program saw a "
                   "placeholder.")
    return out


def _relative(sr: StackRun) -> str:
    program = sr.program.resolve()
    return str(program.relative_to(sr.project.root)) if program.is_relative_to(sr.project.root) else str(program)


def build_report(sr: StackRun) -> dict[str, Any]:
    rows = resources(sr)
    outputs = clean(sr.run.outputs)
    pools = registered.registered_pools(sr.run)
    plan: dict[str, Any] = {
        "project": sr.project.name, "stack": sr.stack,
        "program": _relative(sr),
        "engine": "pulumi mock engine (preview)",
        "python": sr.python,
        "error": None,
        "errors": [],
        "resources": rows,
        "counts": dict(sorted(Counter(r["type"] for r in rows).items())),
        "pools": pools,
        "layout": registered.layout(sr.run, pools),
        "cluster": outputs.get("cluster"),
        # Where the throttling alerts are evaluated.
        "alerts": registered.alerts(sr.run),
        "addons": clean(registered.addons(sr.run)),
        "notes": notes(sr, rows),
        "policy": None,
        "placement": None,
        "outputs": outputs,
    }
    if sr.error is not None:
        plan["error"] = {"kind": sr.error.kind, "lines": list(sr.error.lines)}
        plan["errors"] = [{"kind": sr.error.kind, "message": line, **where}
                          for line, where in zip(sr.error.lines, sr.error.locations)]
    return plan
