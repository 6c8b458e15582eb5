"""Placement rules, judged by the placement analysis (``nodepools.placement``)
(shared-pool-off-peak lives in ``rules_offpeak``).

Only definite answers become violations: a verdict that reads a value unknown
at preview makes the rule report "cannot judge" instead. A workload whose
cluster has no pool in the stack (an app stack) is not judged here at all.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from nodepools import vocabulary as v
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.podspec import container_problem, node_selector
from nodepools.inventory.podspec import required_node_terms, tolerations
from nodepools.inventory.pools import PoolView
from nodepools.inventory.values import UNKNOWN, dig, is_unknown
from nodepools.placement import Fit, Verdict
from nodepools.placement.affinity import affinity_matches, selector_matches
from nodepools.placement.nodelabels import node_labels
from nodepools.placement.taints import effective_tolerations, untolerated
from nodepools.inventory.tri import Tri, and3, or3
from nodepools.policies.base import Finding, one_per_resource, unknown
from nodepools.policies.podpaths import NODE_AGENT_KINDS, spec_path, subject, template_list
from nodepools.policies.settings import Settings, parse_duration_seconds
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView

# A workload declaring spot capacity by node label (docs/design.md section 2 and the clouds' own labels).
_SPOT_SELECTORS = {v.LABEL_CAPACITY: "spot", v.LABEL_EKS_CAPACITY_TYPE: "SPOT", v.LABEL_GKE_SPOT: "true",
                   v.LABEL_GKE_PREEMPTIBLE: "true"}


def verdicts_by_workload(stack: StackView) -> dict[str, list[Verdict]]:
    """Verdicts by workload URN (the analysis reads its own copy of each workload, so
    templates are matched by role, never by identity)."""
    out: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in stack.report.verdicts:
        out[verdict.workload.urn].append(verdict)
    return out


def definite(verdict: Verdict) -> bool:
    """It lands there: admitted (an instance type absent from the table counts as big enough:
    only ``schedulable`` notes its size) in its own cluster."""
    return verdict.admitted and verdict.same_cluster is True


def maybe(verdict: Verdict) -> bool:
    return verdict.fit is not Fit.NO and not definite(verdict)


def undecided_values(verdicts: list[Verdict]) -> str:
    """Which values preview could not know, per pool: the undecided verdicts' details."""
    parts = dict.fromkeys(f"pool '{x.pool.name}': {x.detail}" if x.fit is Fit.UNKNOWN else
                          f"pool '{x.pool.name}': its cluster is unknown until the update runs"
                          for x in verdicts if x.fit is not Fit.NO and not (x.fit is Fit.FITS and x.same_cluster is True))
    return "; ".join(parts) or "no pool's verdict is known"


def pool_names(verdicts: list[Verdict]) -> str:
    return ", ".join(dict.fromkeys(f"'{x.pool.name}'" for x in verdicts))


def _pod_problems(ref: WorkloadRef) -> tuple[list[Finding], bool]:
    """Violations for pod templates the API server would reject (so the workload runs
    nowhere, pools or not), and whether preview cannot tell for some template."""
    workload, undecided = ref.workload, False
    if not workload.templates and workload.kind == "RayJob":
        return [], False  # it runs on an existing RayCluster (spec.clusterSelector)
    if not workload.templates:
        return [Finding(ref.res.urn, subject(ref), template_list(workload),
                        "declares no pod template, so it runs no pod", "declare at least one pod template with "
                        "a container", ref.namespace)], False
    found = []
    for template in workload.templates:
        problem = container_problem(template.spec)
        if is_unknown(problem):
            undecided = True
        elif problem is not None:
            field, what = problem
            found.append(Finding(ref.res.urn, subject(ref), f"{spec_path(workload, template)}.{field}",
                                 f"{what}: the API server rejects such a pod, so it never runs anywhere",
                                 "give the pod at least one container, each an object with a name and an image",
                                 ref.namespace))
    return found, undecided


@one_per_resource
def check_schedulable(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Every workload is a valid pod (template) that fits some pool of its cluster
    (taints, selectors, affinity, size)."""
    summaries = {s.workload.urn: s for s in stack.report.summaries}
    for ref in stack.all_workloads:  # warm-capacity placeholders too: they must land (section 9.4)
        invalid, undecided = _pod_problems(ref)
        if invalid or not ref.workload.templates:
            yield from invalid
            continue
        summary = summaries[ref.workload.urn]
        if undecided and summary.unschedulable is not True:
            yield unknown(ref.res.urn, subject(ref), spec_path(ref.workload, ref.workload.templates[0]),
                          ref.namespace, "its pod spec or containers are unknown")
            continue
        if summary.unschedulable is True:
            verdicts = [x for x in stack.report.verdicts if x.workload.urn == ref.workload.urn]
            # Every template that fits nowhere, in one finding (docs/design.md section 8).
            for stuck in [t for t in ref.workload.templates
                          if all(x.fit is Fit.NO for x in verdicts if x.template.role == t.role)]:
                why = [f"{x.pool.name}{'/' + stuck.role if stuck.role else ''}: {x.detail}"
                       for x in verdicts if x.template.role == stuck.role]
                yield Finding(ref.res.urn, subject(ref), spec_path(ref.workload, stuck),
                              "fits no pool of its cluster (" + "; ".join(why) + ")",
                              "tolerate the target pool's taints, select labels its nodes carry, and request at "
                              "most one node's allocatable", ref.namespace)
        elif is_unknown(summary.unschedulable) and any(x.workload.urn == ref.workload.urn
                                                      for x in stack.report.verdicts):
            mine = [x for x in stack.report.verdicts if x.workload.urn == ref.workload.urn]
            yield unknown(ref.res.urn, subject(ref), spec_path(ref.workload, ref.workload.templates[0]),
                          ref.namespace, "whether some pool fits it: " + undecided_values(mine))


@one_per_resource
def check_gpu_nodes_gpu_only(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A workload requesting no GPU cannot land on a GPU pool (node agents excepted)."""
    verdicts = verdicts_by_workload(stack)
    for ref in stack.workloads:
        if ref.workload.kind in NODE_AGENT_KINDS:
            continue
        for template in ref.workload.templates:
            gpu = [x for x in verdicts[ref.workload.urn] if x.template.role == template.role and x.pool.is_gpu is True]
            wants = requests_gpu(template.spec, stack.dra)
            path = spec_path(ref.workload, template)
            reached = [x for x in gpu if definite(x)]
            if wants is False and reached:
                yield Finding(ref.res.urn, subject(ref), path,
                              f"requests no {v.GPU_RESOURCE} yet can land on GPU pool(s) {pool_names(reached)}",
                              f"keep the GPU pools' {v.TAINT_GPU_KEY} taint untolerated and do not select GPU "
                              "node labels (or request a GPU if it needs one)", ref.namespace)
            elif wants is not True and (reached or any(maybe(x) for x in gpu)):
                why = ("whether it requests a GPU: its containers' resources are unknown until the update runs"
                       if is_unknown(wants) else "whether it reaches a GPU pool: " + undecided_values(gpu))
                yield unknown(ref.res.urn, subject(ref), path, ref.namespace, why)


@one_per_resource
def check_resident_off_spot(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A resident or gpu-inference workload cannot land on a spot pool."""
    verdicts = verdicts_by_workload(stack)
    for ref in stack.workloads:
        if ref.workload.kind in NODE_AGENT_KINDS or ref.pool_class not in (*v.ALWAYS_ON_CLASSES, UNKNOWN):
            continue
        mine = verdicts[ref.workload.urn]
        spot = [x for x in mine if x.pool.spot is True and definite(x)]
        possible = [x for x in mine if x.pool.spot is not False and x.fit is not Fit.NO]
        field = spec_path(ref.workload, mine[0].template) if mine else "spec"
        if spot and not is_unknown(ref.pool_class):
            yield Finding(ref.res.urn, subject(ref), field,
                          f"a {ref.pool_class.value} workload can land on spot pool(s) {pool_names(spot)}, which the "
                          "cloud reclaims at short notice", "select on-demand capacity (nodepools.io/capacity: "
                          "on-demand) or a pool of its own class", ref.namespace)
        elif possible:
            capacity = [f"pool '{x.pool.name}': its capacity type is unknown until the update runs"
                        for x in possible if is_unknown(x.pool.spot) and not maybe(x)]
            reach = [undecided_values(possible)] if any(maybe(x) for x in possible) else []
            why = ("its class: the workload-class label is unknown until the update runs" if is_unknown(ref.pool_class)
                   else "whether it lands on a spot pool: " + "; ".join(capacity + reach))
            yield unknown(ref.res.urn, subject(ref), field, ref.namespace, why)


def _declares_spot(ref: WorkloadRef) -> Tri:
    """Without pools in the stack: the class runs on spot by default, or it selects spot nodes."""
    if ref.pool_class is v.PoolClass.GPU_TRAINING:
        return True
    selectors = [dig(t.spec, "nodeSelector") for t in ref.workload.templates]
    return or3(UNKNOWN if is_unknown(s) else node_selector({"nodeSelector": s}).get(k) == want
               for s in selectors for k, want in _SPOT_SELECTORS.items())


def _spot_reach(ref: WorkloadRef, verdicts: list[Verdict]) -> Tri:
    if not verdicts:
        return UNKNOWN if is_unknown(ref.pool_class) else _declares_spot(ref)
    if any(definite(x) and x.pool.spot is True for x in verdicts):
        return True
    return UNKNOWN if any(x.pool.spot is not False and x.fit is not Fit.NO for x in verdicts) else False


@one_per_resource
def check_spot_checkpointing(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A workload that can run on spot declares nodepools.io/checkpoint-interval <= spotCheckpointMax."""
    verdicts = verdicts_by_workload(stack)
    limit = settings.spot_checkpoint_max_seconds
    for ref in stack.workloads:
        if ref.workload.kind in NODE_AGENT_KINDS or not ref.workload.templates:
            continue  # a workload with no pod template has no pod to lose on spot
        interval = ref.workload.annotation(v.ANNOTATION_CHECKPOINT_INTERVAL)
        seconds = None if is_unknown(interval) else parse_duration_seconds(interval)
        if seconds is not None and seconds <= limit:
            continue
        reach = _spot_reach(ref, verdicts[ref.workload.urn])
        if reach is False:
            continue
        field = f"annotations['{v.ANNOTATION_CHECKPOINT_INTERVAL}']"
        if is_unknown(reach) or is_unknown(interval):
            yield unknown(ref.res.urn, subject(ref), field, ref.namespace)
            continue
        problem = ("no checkpoint interval declared" if interval is None else
                   f"'{interval}' is not a duration" if seconds is None else
                   f"checkpoints every {interval}, longer than the maximum {settings.spot_checkpoint_max}")
        yield Finding(ref.res.urn, subject(ref), field, f"{problem}, yet it can run on spot capacity and lose "
                      "that much work at each interruption", f"checkpoint at most every {settings.spot_checkpoint_max}"
                      f" and annotate the pod template {v.ANNOTATION_CHECKPOINT_INTERVAL}: "
                      f"{settings.spot_checkpoint_max}", ref.namespace)


def admits(spec: dict, pool: PoolView, label_sources: tuple[str, ...] = ()) -> Tri:
    """The pool's taints, the pod's nodeSelector and required node affinity (size aside)."""
    taints_ok, _ = untolerated(effective_tolerations(spec, tolerations(spec)), pool.taints)
    labels = node_labels(pool, label_sources)
    selector = UNKNOWN if is_unknown(dig(spec, "nodeSelector")) else node_selector(spec)
    return and3((taints_ok, selector_matches(selector, labels)[0],
                 affinity_matches(required_node_terms(spec), labels)[0]))


@one_per_resource
def check_gpu_model_selected(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A GPU workload's tolerations and selectors admit GPU pools of one accelerator model only."""
    verdicts = verdicts_by_workload(stack)
    for ref in stack.workloads:
        for template in ref.workload.templates:
            if requests_gpu(template.spec, stack.dra) is not True:
                continue
            sure, possible, unsure = set(), set(), 0
            for verdict in verdicts[ref.workload.urn]:
                if verdict.template.role != template.role or verdict.pool.is_gpu is False:
                    continue
                admitted = and3((admits(template.spec, verdict.pool, stack.label_sources), verdict.same_cluster,
                                 verdict.pool.is_gpu))
                model = verdict.pool.gpu_model
                if admitted is False:
                    continue
                if admitted is True and isinstance(model, str):
                    sure.add(model)
                elif isinstance(model, str):
                    possible.add(model)
                else:
                    unsure += 1
            path = f"{spec_path(ref.workload, template)}.nodeSelector"
            if len(sure) > 1:
                yield Finding(ref.res.urn, subject(ref), path, f"admits GPU pools of {len(sure)} accelerator "
                              f"models ({', '.join(sorted(sure))}), so its speed and memory depend on where it lands",
                              f"pin one model: nodeSelector {v.LABEL_ACCELERATOR}: <model>, or one pool",
                              ref.namespace)
            elif len(sure | possible) + unsure > 1:
                yield unknown(ref.res.urn, subject(ref), path, ref.namespace,
                              "which GPU pools (or models) it admits: the accelerator model of "
                              f"{unsure} pool(s) or whether it reaches {len(possible)} pool(s) is unknown "
                              "until the update runs")
