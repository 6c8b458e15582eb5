"""Where can every workload of a stack land? Verdicts per pod template x pool, and a summary per workload.

Public API (stable; used by the offline plan and the policies ``schedulable``,
``gpu-nodes-gpu-only`` and ``resident-off-spot``):

- ``analyze(model) -> PlacementReport``: every workload of a ``StackModel``
  (``nodepools.inventory.stack_model``: its pools, clusters, namespaces, classes, DRA index and
  ``nodeLabelSources``) against the pools of its cluster. The plan and the pack build the same
  model, so they read every workload's namespace and class alike.
- ``PlacementReport.verdicts``: one ``Verdict`` per pod template x pool of its
  cluster (``fit`` FITS / NO / UNKNOWN, ``reason`` the first failing check in the
  fixed order TAINT, NODE_SELECTOR, AFFINITY, SIZE, ``detail`` for people).
- ``PlacementReport.summaries``: one ``Summary`` per workload: its ``namespace`` and
  ``workload_class`` (the model's), ``unschedulable``
  (True only when some template definitely fits no pool of its cluster),
  ``gpu_pools_without_gpu`` and ``spot_pools_while_resident`` (pool names it
  definitely reaches). Policies should flag only definite answers.
- ``judge(spec, pool, label_sources=()) -> Judgement``: one pod spec against one pool.

A check that reads an input unknown at preview answers UNKNOWN; a definite
failure of any check still decides NO, so an unknown never produces a false
"unschedulable" and never a false "fits".
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable

from nodepools.inventory.dra import DraIndex, GpuClaim, claimed_gpus
from nodepools.inventory.gpu_offer import time_sliced_overrequest
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.podspec import has_unknown_resources, node_selector, pod_requests
from nodepools.inventory.podspec import required_node_terms, tolerations
from nodepools.inventory.pools import PoolView
from nodepools.inventory.stack_model import StackModel, WorkloadRef
from nodepools.inventory.values import UNKNOWN, dig, is_unknown
from nodepools.inventory.workloads import PodTemplate, Workload
from nodepools.placement.affinity import affinity_matches, selector_matches
from nodepools.placement.capacity import NOT_IN_TABLE, fits_pool
from nodepools.placement.claims import fits_claim
from nodepools.placement.nodelabels import NodeLabels, node_labels
from nodepools.placement.taints import effective_tolerations, taint_text, untolerated
from nodepools.inventory.tri import Tri
from nodepools.vocabulary import ALWAYS_ON_CLASSES

# Classes that must never run on interruptible capacity (docs/design.md section 3, resident-off-spot).


class Fit(str, Enum):
    FITS = "fits"
    NO = "no"
    UNKNOWN = "unknown"


class Reason(str, Enum):
    """The checks, in the order they are reported."""

    TAINT = "taint"
    NODE_SELECTOR = "node-selector"
    AFFINITY = "affinity"
    SIZE = "size"


@dataclass(frozen=True)
class Judgement:
    fit: Fit
    reason: Reason | None  # the failing check (NO) or the undecided one (UNKNOWN)
    detail: str


@dataclass(frozen=True)
class Verdict:
    workload: Workload
    template: PodTemplate
    pool: PoolView
    fit: Fit
    reason: Reason | None
    detail: str
    same_cluster: Tri  # True, or UNKNOWN when the workload's cluster cannot be told

    @property
    def admitted(self) -> bool:
        """Taints, selectors and affinity admit it: it fits, or only its size is open because the
        pool's instance type is not in the table (which ``schedulable`` alone notes, section 8)."""
        return self.fit is Fit.FITS or (self.fit is Fit.UNKNOWN and self.reason is Reason.SIZE
                                        and NOT_IN_TABLE in self.detail)


def _taint_check(spec: dict, pool: PoolView) -> tuple[Tri, str]:
    answer, taint = untolerated(effective_tolerations(spec, tolerations(spec)), pool.taints)
    if answer is False:
        return False, f"untolerated taint {taint_text(taint)}"
    if is_unknown(answer):
        what = f"taint {taint_text(taint)}" if taint else "the pool's taints"
        return UNKNOWN, f"cannot judge {what} at preview"
    return True, ""


_NO_CLAIM = GpuClaim()


def _size_check(spec: dict, pool: PoolView, claim: GpuClaim) -> tuple[Tri, str]:
    claimed, why = fits_claim(claim, pool)
    if claimed is False:
        return False, why
    if has_unknown_resources(spec):
        return UNKNOWN, "resource requests unknown at preview"
    if (overrequest := time_sliced_overrequest(spec, pool)) is not None:
        return False, overrequest
    fits = fits_pool(pod_requests(spec), pool)
    return (claimed, why) if fits[0] is True and claimed is not True else fits


def judge(spec: dict, pool: PoolView, label_sources: tuple[str, ...] = (), labels: NodeLabels | None = None,
          claim: GpuClaim = _NO_CLAIM) -> Judgement:
    """One pod spec (plain dict, or UNKNOWN: every check then undecided) against one node of
    ``pool``, whose nodes also carry unknown labels under ``label_sources`` (nodeLabelSources);
    ``claim`` the GPUs its DRA claims take (``inventory.dra.claimed_gpus``)."""
    labels = labels or node_labels(pool, label_sources)
    selector = UNKNOWN if is_unknown(dig(spec, "nodeSelector")) else node_selector(spec)
    checks = (
        (Reason.TAINT, lambda: _taint_check(spec, pool)),
        (Reason.NODE_SELECTOR, lambda: selector_matches(selector, labels)),
        (Reason.AFFINITY, lambda: affinity_matches(required_node_terms(spec), labels)),
        (Reason.SIZE, lambda: _size_check(spec, pool, claim)),
    )
    undecided: Judgement | None = None
    for reason, check in checks:
        answer, detail = check()
        if answer is False:
            return Judgement(Fit.NO, reason, detail)
        if is_unknown(answer) and undecided is None:
            undecided = Judgement(Fit.UNKNOWN, reason, detail)
    return undecided or Judgement(Fit.FITS, None, "")


@dataclass(frozen=True)
class Summary:
    workload: Workload
    namespace: Any  # the model's namespace key (``StackModel.namespace_of``) or UNKNOWN
    workload_class: Any  # the model's class (``StackModel.class_of``): PoolClass, None (unresolved) or UNKNOWN
    requests_gpu: Tri  # some template requests nvidia.com/gpu
    reachable: tuple[str, ...]  # pools of its cluster some template definitely fits
    unschedulable: Tri
    gpu_pools_without_gpu: tuple[str, ...]  # GPU pools reached by a template requesting no GPU
    spot_pools_while_resident: tuple[str, ...]  # spot pools reached while resident / gpu-inference
    why_not: tuple[str, ...]  # "<pool>: <detail>" per pool, for an unschedulable workload

    @property
    def flagged(self) -> bool:
        return self.unschedulable is True or bool(self.gpu_pools_without_gpu or self.spot_pools_while_resident)


@dataclass(frozen=True)
class PlacementReport:
    pools: tuple[PoolView, ...]
    verdicts: tuple[Verdict, ...]
    summaries: tuple[Summary, ...]
    dra: DraIndex  # the stack's DRA index: whose claims request a GPU

    def requests_gpu(self, template: PodTemplate) -> Tri:
        """Whether ``template`` requests a GPU in any form (docs/design.md section 6)."""
        return requests_gpu(template.spec, self.dra)

    def summary(self, workload_name: str) -> Summary:
        """The summary of the workload named ``workload_name`` (its metadata.name or resource name)."""
        matches = [s for s in self.summaries if s.workload.name == workload_name]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} workloads named {workload_name!r}")
        return matches[0]

    def verdict(self, workload_name: str, pool_name: str, role: str = "") -> Verdict:
        matches = [x for x in self.verdicts if x.workload.name == workload_name and x.pool.name == pool_name
                   and x.template.role == role]
        if len(matches) != 1:
            raise KeyError(f"{len(matches)} verdicts for {workload_name!r} on {pool_name!r}")
        return matches[0]


def _summarize(model: StackModel, ref: WorkloadRef, verdicts: list[Verdict]) -> Summary:
    workload, workload_class = ref.workload, ref.pool_class
    definite = [x for x in verdicts if x.fit is Fit.FITS and x.same_cluster is True]
    none_fit = [t for t in workload.templates
                if verdicts and all(x.fit is Fit.NO for x in verdicts if x.template is t)]
    all_fit = all(any(x.template is t for x in definite) for t in workload.templates)
    unschedulable: Tri = True if none_fit else (False if all_fit and verdicts else UNKNOWN)
    gpu = {id(t): requests_gpu(t.spec, model.dra) for t in workload.templates}
    answers = list(gpu.values())
    wants_gpu = True if True in answers else (UNKNOWN if any(map(is_unknown, answers)) else False)
    gpu_misuse = [x.pool.name for x in definite if x.pool.is_gpu is True and gpu[id(x.template)] is False]
    spot = [x.pool.name for x in definite if workload_class in ALWAYS_ON_CLASSES and x.pool.spot is True]
    why = [f"{x.pool.name}{'/' + x.template.role if x.template.role else ''}: {x.detail}"
           for x in verdicts if none_fit and x.template is none_fit[0]]
    return Summary(workload, ref.namespace, workload_class, wants_gpu, _unique(x.pool.name for x in definite),
                   unschedulable, _unique(gpu_misuse), _unique(spot), tuple(why))


def _unique(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def analyze(model: StackModel) -> PlacementReport:
    """Judge every workload of ``model`` against the pools of its cluster, its nodes also carrying
    the labels of the model's ``label_sources`` (nodeLabelSources: added by agents at run time,
    unknown at preview). Workloads by namespace then name, pools by class then name."""
    pools = model.pool_views
    labels = {pool.urn: node_labels(pool, model.label_sources) for pool in pools}
    verdicts: list[Verdict] = []
    summaries: list[Summary] = []
    for ref in sorted(model.all_workloads, key=lambda r: (str(r.namespace), r.workload.name, r.workload.urn)):
        workload, namespace = ref.workload, model.namespace_name(ref.namespace)
        claims = {id(t): claimed_gpus(t.spec, model.dra, namespace) for t in workload.templates}
        mine = []
        for pool in pools:
            member = model.member(workload, pool)
            if member is False:
                continue
            for template in workload.templates:
                j = judge(template.spec, pool, labels=labels[pool.urn], claim=claims[id(template)])
                mine.append(Verdict(workload, template, pool, j.fit, j.reason, j.detail, member))
        verdicts.extend(mine)
        summaries.append(_summarize(model, ref, mine))
    return PlacementReport(pools, tuple(verdicts), tuple(summaries), model.dra)
