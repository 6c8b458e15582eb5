"""The plan's warm capacity (docs/design.md section 9.4): per gpu-inference pool what keeps it warm,
per autoscaled model server the expected wait for a new replica with and without warm capacity.

The same readings as ``inference-scale-headroom`` (``policies.rules_inference``): warm
sources and reach from ``placement.warm``; the wait is the model load time
(``nodepools.io/model-load-seconds``, else ``defaultModelLoadSeconds``) when a slot is
warm, plus ``gpuNodeStartSeconds`` when the replica must wait for a new GPU node. Both
settings come from the pack config (``--policy-pack-config``, that policy's entry).
"""
from __future__ import annotations

from typing import Any, Mapping

from nodepools.inventory.autoscaling import warm_sources
from nodepools.inventory.values import is_unknown
from nodepools.placement.warm import cold_pools, first_replica_wait, pool_warmth, reach
from nodepools.plan.model import view_of
from nodepools.policies.registry import BY_NAME
from nodepools.policies.rules_inference import autoscaled_inference
from nodepools.policies.rules_workloads import model_load_seconds
from nodepools.policies.settings import Settings, parse_settings
from nodepools.policies.stack_view import StackView
from nodepools.vocabulary import PoolClass

POLICY = "inference-scale-headroom"


def _tri(value: Any) -> Any:
    return "unknown" if is_unknown(value) else value


def _settings(config: Mapping[str, Any] | None) -> Settings:
    own = (config or {}).get(POLICY)
    return parse_settings(POLICY, BY_NAME[POLICY].config, own if isinstance(own, Mapping) else None)


def headroom_report(plan: StackView, config: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """``pools``, ``servers`` and their ``text`` of the plan's stack (the model of the run, read as the
    pack reads it, with the policy's view settings); None when the stack has neither a gpu-inference pool
    nor an autoscaled model server."""
    settings = _settings(config)
    view = view_of(list(plan.resources), plan.today, settings)
    warmth = pool_warmth(view, warm_sources(view.resources))
    pools = [w for w in warmth.values() if w.pool.pool_class is PoolClass.GPU_INFERENCE]
    servers = []
    for res, workload, namespace, _, by in autoscaled_inference(view):
        cold, reached = cold_pools(reach(view, workload), warmth)
        load = model_load_seconds(workload, settings)
        load = settings.default_model_load_seconds if load is None or is_unknown(load) else load
        servers.append({
            "workload": workload.name, "kind": workload.kind, "namespace": _tri(namespace), "autoscaled_by": by,
            "pools": [{"pool": p.name, "warm": _tri(warmth[p.urn].warm)} for p in reached],
            "warm": _tri(cold if is_unknown(cold) else not cold and bool(reached)),
            "model_load_seconds": load, "gpu_node_start_seconds": settings.gpu_node_start_seconds,
            "wait_with_warm_seconds": first_replica_wait(load, settings.gpu_node_start_seconds, warm=True),
            "wait_without_warm_seconds": first_replica_wait(load, settings.gpu_node_start_seconds, warm=False),
        })
    if not pools and not servers:
        return None
    rows = [{"pool": w.pool.name, "warm": _tri(w.warm), "held_by": w.why or None,
             "slots": sum(s.slots for s in w.sources if isinstance(s.slots, float)) or None} for w in pools]
    return {"pools": rows, "servers": servers, "text": _text(rows, servers)}


def _text(rows: list[dict[str, Any]], servers: list[dict[str, Any]]) -> list[str]:
    out = ["Warm capacity (gpu-inference pools):"]
    for row in rows:
        if row["warm"] is True:
            slots = f"{row['slots']:g} warm replica(s): " if row["slots"] else ""
            out.append(f"  {row['pool']}: {slots}{row['held_by']}")
        elif row["warm"] == "unknown":
            out.append(f"  {row['pool']}: cannot tell at preview whether a warm source lands here")
        else:
            out.append(f"  {row['pool']}: none (a new replica waits for a GPU node to start; "
                       "set warm: {replicas: N})")
    if not rows:
        out.append("  (no gpu-inference pool in the stack)")
    out += ["", "Autoscaled model servers (wait for a new replica: with warm capacity / without):"]
    for s in servers:
        pools = ", ".join(f"{p['pool']} ({'warm' if p['warm'] is True else 'cold' if p['warm'] is False else '?'})"
                          for p in s["pools"]) or "no pool it surely lands on"
        now = {True: "warm now", False: "cold now"}.get(s["warm"], "cannot tell at preview")
        out.append(f"  {s['kind']} '{s['workload']}' in namespace '{s['namespace']}', autoscaled by "
                   f"{s['autoscaled_by']}: {s['wait_with_warm_seconds']:g}s with warm capacity, "
                   f"{s['wait_without_warm_seconds']:g}s without ({s['model_load_seconds']:g}s model load + "
                   f"{s['gpu_node_start_seconds']:g}s GPU node start); lands on {pools}: {now}")
    if not servers:
        out.append("  (none: no HorizontalPodAutoscaler, KEDA ScaledObject or KServe InferenceService scales a "
                   "gpu-inference workload here)")
    return out
