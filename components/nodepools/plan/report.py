"""The offline plan as data: resource tree, counts, pools table, layout verdict, honest notes.

Everything comes from the recorded run of the real program: resources from its
registrations, the pools table and the layout verdict from its stack outputs.
Values only a cloud can compute are unknown during a preview; they are shown as
``<unknown>`` and counted in the notes, never invented.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from pulumi.output import Unknown
from pulumi.runtime.rpc import UNKNOWN as WIRE_UNKNOWN

from nodepools.config.stack_config import StackConfigError
from nodepools.plan.run import StackRun
from nodepools.spec.outputs import PoolOutputs
from nodepools.vocabulary import PoolClass

SHOWN_UNKNOWN = "<unknown>"
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


def pools_table(pools: Any) -> list[dict[str, Any]]:
    """One row per exported pool (``PoolOutputs``): class, provisioner, capacity, min/max (no
    minimum for a Karpenter pool), instance types, GPUs, taints."""
    if not isinstance(pools, dict):
        return []
    rows = []
    order = {c.value: i for i, c in enumerate(PoolClass)}
    read = {name: PoolOutputs.from_dict(pool) for name, pool in pools.items() if isinstance(pool, dict)}
    for name, pool in sorted(read.items(), key=lambda item: (order.get(item[1].pool_class, 9), item[0])):
        rows.append({
            "name": name, "class": pool.pool_class, "provisioner": pool.provisioner, "capacity": pool.capacity,
            "min_nodes": pool.min_nodes, "max_nodes": pool.max_nodes, "instance_types": list(pool.instance_types or []),
            "gpus_per_node": pool.gpu.count_per_node if pool.gpu else 0,
            "gpu_model": pool.gpu.model if pool.gpu else None,
            "taints": [f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in pool.node_taints or []],
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


def error_lines(error: BaseException) -> tuple[str, list[str]]:
    if isinstance(error, StackConfigError):
        return "config", list(error.lines)
    return "program", [f"{type(error).__name__}: {line}" if i == 0 else line
                       for i, line in enumerate(str(error).splitlines() or [""])]


def _relative(sr: StackRun) -> str:
    program = sr.program.resolve()
    return str(program.relative_to(sr.project.root)) if program.is_relative_to(sr.project.root) else str(program)


def build_report(sr: StackRun) -> dict[str, Any]:
    rows = resources(sr)
    outputs = clean(sr.run.outputs)
    plan: dict[str, Any] = {
        "project": sr.project.name, "stack": sr.stack,
        "program": _relative(sr),
        "engine": "pulumi mock engine (preview)",
        "error": None,
        "resources": rows,
        "counts": dict(sorted(Counter(r["type"] for r in rows).items())),
        "pools": pools_table(outputs.get("pools")),
        "layout": outputs.get("layout"),
        "cluster": outputs.get("cluster"),
        # Where the throttling alerts are evaluated (the program's ``alerts`` output).
        "alerts": outputs.get("alerts"),
        "notes": notes(sr, rows),
        "policy": None,
        "placement": None,
        "outputs": outputs,
    }
    if sr.error is not None:
        kind, lines = error_lines(sr.error)
        plan["error"] = {"kind": kind, "lines": lines}
    return plan
