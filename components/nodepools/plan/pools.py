"""What the plan says about a program's nodepools components, exported or not.

Read from the registrations, so any program that builds ``NodePool``/``Platform``
components gets its pools table, layout verdict, alert delivery and add-on
placement, whatever it exports (docs/design.md section 9). ``registered_pools`` is
the one reader of a program's pools.
"""
from __future__ import annotations

from typing import Any

from nodepools import vocabulary as v
from nodepools.config.layout import Layout, rule_of_thumb
from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import is_unknown
from nodepools.offline.engine import Registration, Run

_CLASS_ORDER = {c.value: i for i, c in enumerate(v.PoolClass)}


def _known(value: Any) -> Any:
    return None if is_unknown(value) else value


def _whole(value: Any) -> Any:
    value = _known(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _pool_resource(run: Run, component: Registration) -> Registration | None:
    return next((r for r in run.children_of(component.urn) if read_pool(r.type, {}, r.urn, r.name) is not None), None)


def registered_pools(run: Run) -> list[dict[str, Any]]:
    """One row per registered ``NodePool`` component: class, provisioner, capacity,
    min/max nodes (no minimum for Karpenter), instance types, GPUs per node, taints;
    from the component's outputs and the pool resource it registered."""
    rows = []
    for component in run.of_type(v.COMPONENT_NODE_POOL):
        outputs = run.component_outputs.get(component.urn, {})
        resource = _pool_resource(run, component)
        view = read_pool(resource.type, resource.inputs, resource.urn, resource.name) if resource else None
        karpenter = resource is not None and resource.type not in v.POOL_RESOURCE_TYPES
        gpus = _whole(view.gpu_count) if view is not None else None
        rows.append({
            "name": outputs.get("poolName", component.name), "class": outputs.get("poolClass"),
            "provisioner": "karpenter" if karpenter else "managed", "capacity": outputs.get("capacity"),
            "min_nodes": None if karpenter or view is None else _whole(view.min_nodes),
            "max_nodes": _whole(view.max_nodes) if view is not None else None,
            "instance_types": list(_known(view.instance_types) or []) if view is not None else [],
            "gpus_per_node": gpus or 0, "gpu_model": _known(view.gpu_model) if gpus else None,
            "taints": [f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in outputs.get("nodeTaints") or []],
        })
    return sorted(rows, key=lambda r: (_CLASS_ORDER.get(r["class"], 9), r["name"]))


def system_nodes(run: Run) -> list[dict[str, Any]]:
    """The attached clusters' own system nodes the registered platforms declared."""
    return [out["systemNodes"] for reg in run.of_type(v.COMPONENT_PLATFORM)
            if (out := run.component_outputs.get(reg.urn, {})).get("systemNodes")]


def layout(run: Run, pools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The layout verdict over the registered pools. A program that exports ``layout``
    (the stacks program) chose one; otherwise one pool class is flat, more specialized.
    Without a resident pool, or with declared system nodes, the cluster has nodes the
    program does not own: counted as unknown, never zero."""
    exported = run.outputs.get("layout")
    if isinstance(exported, dict) or not pools:
        return exported if isinstance(exported, dict) else None
    classes = tuple(dict.fromkeys(p["class"] for p in pools if p["class"]))
    gpu = tuple(p["name"] for p in pools if p["gpus_per_node"])
    total = sum(p["max_nodes"] or 0 for p in pools)
    unowned = bool(system_nodes(run)) or v.PoolClass.RESIDENT.value not in classes
    chosen = Layout.FLAT if len(classes) <= 1 else Layout.SPECIALIZED
    return rule_of_thumb(chosen, total, classes, gpu, unowned).as_dict()


def alerts(run: Run) -> str | None:
    """Where the throttling alerts are evaluated: the program's ``alerts`` export, else
    each registered Guardrails component's own ``alerts`` output."""
    exported = run.outputs.get("alerts")
    if isinstance(exported, str):
        return exported
    where = [out["alerts"] for reg in run.of_type(v.COMPONENT_GUARDRAILS)
             if isinstance((out := run.component_outputs.get(reg.urn, {})).get("alerts"), str)]
    return "; ".join(dict.fromkeys(where)) or None


def _find(values: Any, key: str) -> Any:
    """The first ``key`` in a nested Helm values tree (charts nest it: controllerManager.nodeSelector)."""
    if isinstance(values, dict):
        if key in values:
            return values[key]
        for item in values.values():
            found = _find(item, key)
            if found is not None:
                return found
    return None


def addons(run: Run) -> list[dict[str, Any]]:
    """The Helm releases the nodepools components install, with the nodes they run on."""
    ours = {r.urn for r in run.resources if r.type in (v.COMPONENT_GUARDRAILS, v.COMPONENT_KARPENTER)}
    rows = []
    for reg in run.of_type(v.TYPE_HELM_RELEASE):
        if reg.parent not in ours:
            continue
        values = reg.inputs.get("values") or {}
        rows.append({"release": _known(reg.inputs.get("name")), "chart": _known(reg.inputs.get("chart")),
                     "version": _known(reg.inputs.get("version")), "namespace": _known(reg.inputs.get("namespace")),
                     "node_selector": _known(_find(values, "nodeSelector")),
                     "tolerations": len(_known(_find(values, "tolerations")) or [])})
    return sorted(rows, key=lambda r: str(r["release"]))
