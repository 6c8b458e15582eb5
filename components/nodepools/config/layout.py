"""The platform layout and the seed's rule of thumb, applied to a stack's pools.

``flat``: one pool class for all work (the cluster's resident pool). ``specialized``:
a pool per consumption pattern (resident, batch, GPU inference, GPU training).

Rule of thumb (seed): flat suits about 10 nodes of uniform work; GPUs, or about
20+ nodes of mixed work, call for specialized pools. Between the two the rule
leaves the choice open. The verdict reads only what config states: the pool
classes (mixed work = more than one class), GPUs, and the sum of max nodes. On an
attached cluster whose add-ons run on its own system nodes (``system_nodes``), the
cluster has nodes the platform does not own: their number is unknown, never zero,
so the total is "at least" the pools' and a verdict that needs an upper bound
(flat) stays open.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence

from nodepools.spec.pool import PoolSpec

FLAT_MAX_NODES = 10
SPECIALIZED_MIN_NODES = 20


class Layout(str, Enum):
    FLAT = "flat"
    SPECIALIZED = "specialized"


@dataclass(frozen=True)
class LayoutVerdict:
    chosen: Layout
    # "flat", "specialized", or "either" when the rule of thumb leaves it open.
    recommended: str
    max_nodes_total: int
    classes: tuple[str, ...]
    gpu_pools: tuple[str, ...]
    reasons: tuple[str, ...] = field(default_factory=tuple)
    # The cluster also has nodes the platform does not own (system nodes): how many is unknown.
    unowned_nodes: bool = False

    @property
    def agrees(self) -> bool:
        return self.recommended in ("either", self.chosen.value)

    @property
    def warning(self) -> str | None:
        if self.agrees:
            return None
        return (f"layout {self.chosen.value!r} contradicts the rule of thumb, which calls for "
                f"{self.recommended!r} here: {' '.join(self.reasons)}")

    def as_dict(self) -> dict:
        return {"chosen": self.chosen.value, "recommended": self.recommended, "agrees": self.agrees,
                "max_nodes_total": self.max_nodes_total,
                "unowned_nodes": "unknown" if self.unowned_nodes else 0, "classes": list(self.classes),
                "gpu_pools": list(self.gpu_pools), "reasons": list(self.reasons), "warning": self.warning}


def layout_verdict(chosen: Layout, pools: Sequence[PoolSpec], unowned_nodes: bool = False) -> LayoutVerdict:
    """Apply the rule of thumb to ``pools`` (their classes, GPUs and max sizes);
    ``unowned_nodes``: the cluster has nodes besides these, how many is unknown."""
    total = sum(p.max_nodes for p in pools)
    classes = tuple(dict.fromkeys(p.pool_class.value for p in pools))
    gpu = tuple(p.name for p in pools if p.has_gpu)
    return rule_of_thumb(chosen, total, classes, gpu, unowned_nodes)


def rule_of_thumb(chosen: Layout, total: int, classes: tuple[str, ...], gpu: tuple[str, ...],
                  unowned_nodes: bool = False) -> LayoutVerdict:
    """The verdict from the pools' total max nodes, classes and GPU pools (also read
    back from a program's registered pools by the plan)."""
    mixed = len(classes) > 1
    nodes = f"at least {total} nodes (plus the cluster's own system nodes, number unknown)" if unowned_nodes \
        else f"{total} nodes at most"
    if gpu:
        recommended = "specialized"
        reasons = (f"GPU pools ({', '.join(gpu)}) need their own tainted pools so that only GPU work lands "
                   "on GPU nodes.",)
    elif mixed and total >= SPECIALIZED_MIN_NODES:
        recommended = "specialized"
        reasons = (f"{nodes} of mixed work ({', '.join(classes)}): at ~{SPECIALIZED_MIN_NODES}+ "
                   "nodes of mixed work, pools per consumption pattern keep bursts off resident services.",)
    elif not mixed and total <= FLAT_MAX_NODES and not unowned_nodes:
        recommended = "flat"
        reasons = (f"{total} nodes at most of uniform work ({classes[0]} only): flat suits "
                   f"~{FLAT_MAX_NODES} nodes of uniform work; more pools only add idle capacity.",)
    else:
        recommended = "either"
        what = "mixed work" if mixed else "uniform work"
        reasons = (f"{nodes} of {what} ({', '.join(classes)}) and no GPU: the rule of thumb "
                   f"leaves the choice open between ~{FLAT_MAX_NODES} nodes of uniform work (flat) and "
                   f"~{SPECIALIZED_MIN_NODES}+ nodes of mixed work (specialized).",)
    return LayoutVerdict(chosen, recommended, total, classes, gpu, reasons, unowned_nodes)


def flat_layout_problem(pools: Sequence[PoolSpec]) -> str | None:
    """A flat layout has one pool class for all work; None when ``pools`` honour that."""
    classes = list(dict.fromkeys(p.pool_class.value for p in pools))
    if len(classes) <= 1:
        return None
    return (f"layout 'flat' means one pool class for all work, but the pools have classes "
            f"{', '.join(classes)}; use layout 'specialized' (allowed: flat, specialized)")
