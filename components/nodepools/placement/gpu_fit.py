"""GPU memory fit: the pools a GPU workload reaches, with the GPU memory one request
gets there, against the model memory it declares (``nodepools.io/model-memory-gib``).

docs/design.md section 7 (``gpu-memory-fit``): a workload that reaches only pools
whose per-request GPU memory (the MIG slice's on a MIG pool, the whole GPU's
otherwise: time-sliced replicas share one GPU's memory) is below its model runs
out of memory; one that reaches only pools with more than 4x its model's memory
pays for a GPU it cannot use. Memory per model: ``nodepools.spec.gpus``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory import gpu_offer
from nodepools.inventory.autoscaling import is_placeholder
from nodepools.inventory.pools import PoolView
from nodepools.inventory.values import is_unknown
from nodepools.inventory.workloads import PodTemplate, Workload
from nodepools.placement.analysis import Fit, PlacementReport

OVERSIZE_FACTOR = 4
TOO_SMALL = "too-small"
OVERSIZED = "oversized"


@dataclass(frozen=True)
class PoolMemory:
    pool: PoolView
    memory_gib: Any  # per GPU request, or UNKNOWN
    sharing: Any  # "none" | "time-slicing" | "mig" | UNKNOWN

    def describe(self) -> str:
        memory = "unknown memory" if is_unknown(self.memory_gib) else f"{self.memory_gib:g} GiB"
        shared = "" if self.sharing == "none" or is_unknown(self.sharing) else f", {self.sharing}"
        if self.sharing == "mig":
            shared = f", MIG {gpu_offer.mig_profile_name(self.pool)}"
        return f"{self.pool.name} ({self.pool.gpu_model or 'unknown GPU'}, {memory}{shared})"


@dataclass(frozen=True)
class GpuFit:
    workload: Workload
    template: PodTemplate
    declared: Any  # the annotation's raw value (None when absent)
    pools: tuple[PoolMemory, ...]
    namespace: Any = None  # the stack model's namespace of the workload (str, or UNKNOWN)

    @property
    def declared_gib(self) -> float | None:
        """The declared GiB; None when absent, unknown or not a positive number."""
        try:
            value = float(self.declared)
        except (TypeError, ValueError):
            return None
        return value if value > 0 else None

    @property
    def problem(self) -> str | None:
        """``too-small`` / ``oversized`` when every reached pool's memory is known and
        all of them are; None otherwise."""
        declared = self.declared_gib
        memories = [p.memory_gib for p in self.pools]
        if declared is None or not memories or any(is_unknown(m) for m in memories):
            return None
        if all(m < declared for m in memories):
            return TOO_SMALL
        if all(m > OVERSIZE_FACTOR * declared for m in memories):
            return OVERSIZED
        return None


def gpu_fits(report: PlacementReport) -> list[GpuFit]:
    """One entry per GPU-requesting pod template: the GPU pools it definitely reaches."""
    out = []
    # The GPU pools each (workload, template) definitely reaches, in one pass over the verdicts:
    # looking them up per template would cost workloads x verdicts, quadratic in the stack.
    reaching: dict[tuple[str, str], list[PoolView]] = {}
    for x in report.verdicts:
        if x.fit is Fit.FITS and x.same_cluster is True and x.pool.is_gpu is True:
            reaching.setdefault((x.workload.urn, x.template.role), []).append(x.pool)
    for summary in report.summaries:
        workload = summary.workload
        if is_placeholder(workload):
            continue  # it holds a GPU for a model server, it serves no model (section 9.4)
        for template in workload.templates:
            # Whole, shared or MIG GPUs, or a DRA GPU claim; a request unknown at preview is not judged.
            if report.requests_gpu(template) is not True:
                continue
            reached = reaching.get((workload.urn, template.role), [])
            pools = tuple(PoolMemory(p, gpu_offer.memory_per_request_gib(p), gpu_offer.sharing_mode(p))
                          for p in reached)
            out.append(GpuFit(workload, template, workload.annotation(v.ANNOTATION_MODEL_MEMORY_GIB), pools,
                              summary.namespace))
    return out


def gpu_fit_rows(report: PlacementReport) -> list[dict[str, Any]]:
    """The plan's GPU view as data: per GPU workload, the pools it reaches and the verdict."""
    rows = []
    for fit in gpu_fits(report):
        rows.append({
            "workload": fit.workload.name, "template": fit.template.role,
            "namespace": None if is_unknown(fit.namespace) else fit.namespace,
            "model_memory_gib": fit.declared_gib,
            "pools": [{"pool": p.pool.name, "gpu_model": p.pool.gpu_model if isinstance(p.pool.gpu_model, str) else None,
                       "memory_gib": None if is_unknown(p.memory_gib) else p.memory_gib,
                       "sharing": None if is_unknown(p.sharing) else p.sharing} for p in fit.pools],
            "misfit": fit.problem,
        })
    return rows


def gpu_fit_text(report: PlacementReport) -> list[str]:
    """``GPU fit`` lines for the plan: one line per GPU workload, misfits flagged."""
    fits = gpu_fits(report)
    if not fits:
        return []
    lines = [f"GPU fit (per GPU request: memory of the GPU, or of the MIG slice; {v.ANNOTATION_MODEL_MEMORY_GIB}):"]
    for fit in fits:
        role = f" [{fit.template.role}]" if fit.template.role else ""
        declared = "model memory not declared" if fit.declared_gib is None else f"model {fit.declared_gib:g} GiB"
        pools = ", ".join(p.describe() for p in fit.pools) or "no GPU pool reached"
        flag = {TOO_SMALL: "  MISFIT: runs out of GPU memory",
                OVERSIZED: f"  MISFIT: GPU memory > {OVERSIZE_FACTOR}x the model"}.get(fit.problem or "", "")
        lines.append(f"  {fit.workload.kind} {fit.namespace}/{fit.workload.name}{role} ({declared}) -> "
                     f"{pools}{flag}")
    return lines
