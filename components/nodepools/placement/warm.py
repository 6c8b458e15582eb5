"""Which pools keep warm capacity, and which pools a workload reaches (docs/design.md section 9.4).

A pool is warm when a warm source (``nodepools.inventory.autoscaling.warm_sources``: a
CapacityBuffer's pod template, a placeholder Deployment) holds at least one slot, requests
a GPU and can land on it, judged exactly as any pod (``nodepools.placement.analysis.judge``),
or when the pool does not autoscale (min equals max: its nodes are always up). Karpenter
pools have no minimum, so they are warm only by a source.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from nodepools.inventory.autoscaling import WarmSource
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.pools import PoolView
from nodepools.inventory.stack_model import StackModel
from nodepools.inventory.tri import Tri, and3, or3
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.inventory.workloads import Workload
from nodepools.placement.analysis import Fit, judge
from nodepools.placement.nodelabels import NodeLabels, node_labels

_FIT = {Fit.FITS: True, Fit.NO: False, Fit.UNKNOWN: UNKNOWN}


@dataclass(frozen=True)
class Warmth:
    pool: PoolView
    warm: Tri
    why: str  # what keeps it warm ("" when nothing does)
    sources: tuple[WarmSource, ...] = ()  # every warm source that surely lands on it


def _fixed(pool: PoolView) -> bool:
    low, high = pool.min_nodes, pool.max_nodes
    return isinstance(low, float) and isinstance(high, float) and low == high and high > 0


def pool_warmth(stack: StackModel, sources: Iterable[WarmSource]) -> dict[str, Warmth]:
    """Pool URN -> whether it keeps warm capacity and what keeps it so."""
    sources = list(sources)
    out = {}
    for pool in stack.pool_views:
        labels = node_labels(pool, stack.label_sources)
        answers, landing = [], []
        for source in sources:
            slots = source.slots if is_unknown(source.slots) else source.slots > 0
            lands = _FIT[judge(source.spec, pool, labels=labels).fit]
            answer = and3((slots, requests_gpu(source.spec, stack.dra), lands,
                           True if stack.membership.one_cluster else UNKNOWN))
            answers.append(answer)
            if answer is True:
                landing.append(source)
        if _fixed(pool):
            out[pool.urn] = Warmth(pool, True, f"not autoscaled (min = max = {pool.max_nodes:g} nodes)", tuple(landing))
        else:
            out[pool.urn] = Warmth(pool, or3(answers), "; ".join(s.what for s in landing), tuple(landing))
    return out


def reach(stack: StackModel, workload: Workload, labels: dict[str, NodeLabels] | None = None
          ) -> list[tuple[PoolView, Tri]]:
    """Every pool of the workload's cluster with whether some pod template of it lands there."""
    out = []
    for pool in stack.pool_views:
        member = stack.member(workload, pool)
        if member is False:
            continue
        pool_labels = (labels or {}).get(pool.urn) or node_labels(pool, stack.label_sources)
        fits = or3(_FIT[judge(t.spec, pool, labels=pool_labels).fit] for t in workload.templates)
        answer = and3((member, fits))
        if answer is not False:
            out.append((pool, answer))
    return out


def cold_pools(reached: list[tuple[PoolView, Tri]], warmth: dict[str, Warmth]) -> tuple[Tri, list[PoolView]]:
    """(True when every pool the workload can land on is cold, False when one it surely lands on is
    warm or it lands nowhere, else UNKNOWN; the pools it surely lands on)."""
    definite = [pool for pool, answer in reached if answer is True]
    if any(warmth[pool.urn].warm is True for pool in definite):
        return False, definite
    # A pool that may be reached, or may be warm, decides nothing only when it is surely cold.
    undecided = any(warmth[pool.urn].warm is not False for pool, answer in reached
                    if is_unknown(answer) or answer is True)
    if undecided or not definite:
        return (UNKNOWN if undecided or reached else False), definite
    return True, definite


def first_replica_wait(load_seconds: Any, node_start_seconds: float, warm: bool) -> Any:
    """Seconds until a new replica serves: the model load, plus a GPU node's start when no slot is warm."""
    if is_unknown(load_seconds) or load_seconds is None:
        return UNKNOWN
    return float(load_seconds) + (0.0 if warm else float(node_start_seconds))


__all__ = ["Warmth", "cold_pools", "first_replica_wait", "pool_warmth", "reach"]
