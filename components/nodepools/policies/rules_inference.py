"""Inference that keeps up with load, and GPU nodes that repair themselves (docs/design.md sections 9.4, 9.5).

- ``inference-scale-headroom``: an autoscaled gpu-inference workload whose every pool is
  cold waits, for the first replicas of a spike, for a GPU node to start and the model to
  load. Autoscaling, warm sources and reach are read by ``inventory.autoscaling`` and
  ``placement.warm``; the wait is the model load time (``model-load-probes``' reading)
  plus ``gpuNodeStartSeconds``.
- ``gpu-node-repair``: a GPU pool with auto-repair off (EKS ``nodeRepairConfig`` absent or
  not enabled; GKE ``management.autoRepair`` false, on when unset; a Karpenter NodePool by
  the Karpenter release of the stack, and not judged without one).
"""
from __future__ import annotations

from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.autoscaling import autoscaled_by, read_scaler, warm_sources
from nodepools.inventory.kserve import predictor_scaling
from nodepools.inventory.tri import Tri, and3, not3, or3
from nodepools.inventory.values import UNKNOWN, dig, is_unknown
from nodepools.inventory.workloads import Workload
from nodepools.placement.warm import cold_pools, first_replica_wait, pool_warmth, reach
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.device_plugins import HELM_TYPES, chart_name
from nodepools.policies.podpaths import spec_path
from nodepools.policies.rules_workloads import model_load_seconds
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import PoolRef
from nodepools.policies.stack_view import StackView

KARPENTER_CHART = "karpenter"
KARPENTER_GATE_PATH = "values.settings.featureGates.nodeRepair"


def _class_is_inference(value: Any) -> Tri:
    return value if is_unknown(value) else value is v.PoolClass.GPU_INFERENCE


def autoscaled_inference(stack: StackView) -> list[tuple[Resource, Workload, Any, Tri, str]]:
    """(resource, workload, namespace, autoscaled and gpu-inference, what scales it) of every workload
    that may be an autoscaled gpu-inference workload, InferenceServices included."""
    scalers = [s for s in (read_scaler(r) for r in stack.resources) if s is not None]
    out = []
    for ref in stack.workloads:
        scaled, by = autoscaled_by(ref.workload, scalers)
        if ref.workload.type == v.TYPE_KSERVE_INFERENCE_SERVICE and scaled is not True:
            own, why = predictor_scaling(ref.workload.raw_spec)
            scaled, by = or3((scaled, own)), (f"its predictor ({why})" if not by else f"{by} or its predictor ({why})")
        member = and3((_class_is_inference(ref.pool_class), scaled))
        if member is not False:
            out.append((ref.res, ref.workload, ref.namespace, member, by))
    return out


@one_per_resource
def check_inference_scale_headroom(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """An autoscaled gpu-inference workload reaches a pool that keeps warm capacity."""
    candidates = autoscaled_inference(stack)
    if not candidates:
        return
    warmth = pool_warmth(stack, warm_sources(stack.resources))
    for res, workload, namespace, member, by in candidates:
        cold, pools = cold_pools(reach(stack, workload), warmth)
        verdict = and3((member, cold))
        if verdict is False:
            continue
        subject, field = subject_of(res.type, workload.name, namespace), _field(workload)
        if is_unknown(verdict):
            what = f"whether {by} scales it" if is_unknown(member) else \
                "whether the pools it can land on keep warm capacity, or which pools it lands on"
            yield unknown(res.urn, subject, field, namespace, what)
            continue
        load = model_load_seconds(workload, settings)
        load = settings.default_model_load_seconds if load is None or is_unknown(load) else load
        wait = first_replica_wait(load, settings.gpu_node_start_seconds, warm=False)
        names = ", ".join(f"'{p.name}'" for p in pools)
        yield Finding(res.urn, subject, field,
                      f"autoscaled by {by}, but no pool it can land on keeps warm capacity ({names}): the first "
                      f"replicas of a spike wait {wait:g}s ({load:g}s model load + "
                      f"{settings.gpu_node_start_seconds:g}s GPU node start)",
                      f"set warm: {{replicas: N}} on pool '{pools[0].name}' (nodepools renders a CapacityBuffer, or "
                      "placeholder pods where the autoscaler has none), or add a CapacityBuffer whose PodTemplate "
                      "lands on it", namespace)


def _field(workload: Workload) -> str:
    return spec_path(workload, workload.templates[0]) if workload.templates else "spec"


# --- gpu-node-repair ---------------------------------------------------------------------

def karpenter_repair_gates(stack: StackView) -> list[tuple[Resource, Tri]]:
    """Each Karpenter Helm release of the stack and whether its NodeRepair gate is on (chart default off)."""
    out = []
    for res in stack.of_type(*HELM_TYPES):
        if chart_name(res) != KARPENTER_CHART:
            continue
        gate = dig(res.props, "values", "settings", "featureGates", "nodeRepair")
        out.append((res, gate if is_unknown(gate) else gate is True))
    return out


def _repair_state(ref: PoolRef, gates: list[tuple[Resource, Tri]]) -> tuple[Tri, str, str] | None:
    """(auto-repair on, the field that says so, what to set), or None when the pool is not judged."""
    props = ref.res.props
    if ref.res.type == v.TYPE_EKS_NODE_GROUP:
        enabled = dig(props, "nodeRepairConfig", "enabled")
        return (enabled if is_unknown(enabled) else enabled is True, "nodeRepairConfig.enabled",
                "set nodeRepairConfig.enabled: true (EKS repairs only when it is true)")
    if ref.res.type == v.TYPE_GKE_NODE_POOL:
        auto = dig(props, "management", "autoRepair", default=True)
        return (auto if is_unknown(auto) else auto is not False, "management.autoRepair",
                "set management.autoRepair: true, or leave it unset (GKE repairs by default)")
    if ref.res.type == v.TYPE_KARPENTER_NODE_POOL and gates:
        states = [gate for _, gate in gates]
        on: Tri = True if True in states else (UNKNOWN if any(map(is_unknown, states)) else False)
        names = ", ".join(f"'{res.name}'" for res, _ in gates)
        return (on, f"{KARPENTER_GATE_PATH} of the Karpenter release {names}",
                "set settings.featureGates.nodeRepair: true in the Karpenter release's values (Karpenter then "
                "repairs every NodePool)")
    return None


@one_per_resource
def check_gpu_node_repair(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A GPU pool with auto-repair off."""
    gates = karpenter_repair_gates(stack)
    for ref in stack.pools:
        gpu = ref.view.is_gpu
        state = None if gpu is False else _repair_state(ref, gates)
        if state is None:
            continue
        on, field, fix = state
        verdict = and3((gpu, not3(on)))
        subject = subject_of(ref.res.type, ref.view.name)
        if verdict is True:
            yield Finding(ref.res.urn, subject, field, "a GPU pool with auto-repair off: a node whose GPU fails (an "
                          "Xid error, a GPU fallen off the bus, a driver that never loads) stays in the pool with its "
                          "GPUs out of service until someone replaces it", fix)
        elif is_unknown(verdict):
            yield unknown(ref.res.urn, subject, field)
