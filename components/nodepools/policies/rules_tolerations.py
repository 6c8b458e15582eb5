"""Toleration rules: no blanket tolerations, approved tolerations only, GPU tolerations
only with a GPU request.

Toleration matching is the placement analysis's (``nodepools.placement.taints``);
only the pod's own tolerations count here: the ones the ExtendedResourceToleration
admission adds follow from its GPU request and are never a choice to review.
DaemonSets are node agents (device plugin, exporters) that must reach GPU nodes
without requesting GPUs: the GPU rule leaves them out; the blanket and approval
rules judge them unless their namespace is in nodeAgentNamespaces (docs/design.md section 6).
"""
from __future__ import annotations

from typing import Iterator

from nodepools import vocabulary as v
from nodepools.inventory.autoscaling import is_placeholder
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.podspec import node_selector, required_node_terms, toleration_entries, tolerations
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown
from nodepools.inventory.trainer import read_runtime
from nodepools.inventory.workloads import read_workload
from nodepools.placement.affinity import affinity_matches, selector_matches
from nodepools.placement.nodelabels import node_labels
from nodepools.placement.taints import taint_text, tolerates
from nodepools.inventory.tri import Tri, and3, not3, or3
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.podpaths import NODE_AGENT_KINDS, approved_node_agent, spec_path, subject, templates
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView

GPU_CLASSES = tuple(c for c in v.PoolClass if c.has_gpu)
# Node labels that only GPU nodes carry (docs/design.md section 2, docs/kubernetes-facts.md 1.4 and 2).
GPU_NODE_LABELS = (v.LABEL_GPU_PRESENT, v.LABEL_ACCELERATOR, v.LABEL_AWS_ACCELERATOR, v.LABEL_GKE_ACCELERATOR)


@one_per_resource
def check_no_blanket_tolerations(res: Resource, settings: Settings) -> Iterator[Finding]:
    """No toleration with an empty key and Exists, nor Exists on nodepools.io/pool-class."""
    # A training runtime holds the pod templates of every TrainJob on it: judged where they are written.
    workload = read_workload(res.type, res.props, res.urn, res.name) or read_runtime(res.type, res.props, res.urn,
                                                                                    res.name)
    if workload is None or is_placeholder(workload):  # placeholders: schedulable only (section 9.4)
        return
    agent = approved_node_agent(workload.kind, workload.namespace, settings.node_agent_namespaces)
    if agent is True:
        return
    who = subject_of(res.type, workload.name, workload.namespace)
    for template in workload.templates:
        path = f"{spec_path(workload, template)}.tolerations"
        entries = toleration_entries(template.spec)
        if is_unknown(entries):
            yield unknown(res.urn, who, path, workload.namespace)
            continue
        # Entry by entry: an unknown one cannot hide a blanket toleration beside it.
        for i, tol in entries:
            key, operator = dig(tol, "key"), dig(tol, "operator")
            if is_unknown(tol) or is_unknown(key) or is_unknown(operator):
                yield unknown(res.urn, who, f"{path}[{i}]", workload.namespace)
                continue
            if operator != "Exists" or (key and key != v.TAINT_POOL_CLASS_KEY):
                continue
            if is_unknown(agent):
                yield unknown(res.urn, who, f"{path}[{i}]", workload.namespace, "its namespace is unknown until "
                              "the update runs, and it decides whether this node agent is approved")
            elif not key:
                yield Finding(res.urn, who, f"{path}[{i}]", "an empty key with operator Exists tolerates every "
                              "taint, so the pod can land on any pool, GPU and spot pools included",
                              "list the taints of the pools it must reach, each with key, operator Equal and value"
                              + _agent_fix(workload.kind), workload.namespace)
            else:
                yield Finding(res.urn, who, f"{path}[{i}]", f"Exists on {v.TAINT_POOL_CLASS_KEY} tolerates every "
                              "pool class's taint", "use operator Equal with value: <the workload's class>"
                              + _agent_fix(workload.kind), workload.namespace)


def _agent_also(kind: str) -> str:
    return " (or to nodeAgentNamespaces)" if kind in NODE_AGENT_KINDS else ""


def _agent_fix(kind: str) -> str:
    return (" (or, for a node agent, list its namespace in nodeAgentNamespaces in the pack config)"
            if kind in NODE_AGENT_KINDS else "")


def _any_tolerates(tols: list[dict], taint: dict) -> Tri:
    return or3(tolerates(t, taint) for t in tols)


def _candidate_taints(stack: StackView) -> list[dict]:
    """The contract's class and GPU taints plus every hard taint of the stack's pools."""
    taints = [v.class_taint(c) for c in v.PoolClass] + [v.gpu_taint()]
    for ref in stack.pools:
        if not is_unknown(ref.view.taints):
            taints += [t for t in ref.view.taints if t["effect"] in v.HARD_TAINT_EFFECTS]
    return list({taint_text(t): t for t in taints}.values())


def _own_taints(stack: StackView, cls: v.PoolClass) -> set[str]:
    own = [v.class_taint(cls)] + ([v.gpu_taint()] if cls.has_gpu else [])
    for ref in stack.pools:
        if ref.view.pool_class is cls and not is_unknown(ref.view.taints):
            own += ref.view.taints
    return {taint_text(t) for t in own}


def _unclassed_taints(stack: StackView) -> set[str]:
    """Taints of pools whose class is unknown at preview: any class's own, maybe."""
    return {taint_text(t) for ref in stack.pools if is_unknown(ref.view.pool_class) and not is_unknown(ref.view.taints)
            for t in ref.view.taints}


def _approved(stack: StackView, ref: WorkloadRef, taint: dict, settings: Settings) -> Tri:
    approvals = settings.toleration_approvals
    listed = approvals.get(f"{taint['key']}={taint['value']}", approvals.get(taint["key"]))
    if listed is not None:
        return UNKNOWN if is_unknown(ref.namespace) else ref.namespace in listed
    if is_unknown(ref.pool_class):
        return UNKNOWN
    if ref.pool_class is not None and taint_text(taint) in _own_taints(stack, ref.pool_class):
        return True
    return UNKNOWN if ref.pool_class is not None and taint_text(taint) in _unclassed_taints(stack) else False


@one_per_resource
def check_toleration_approval(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A workload tolerates only its own class's pool taints, or taints its namespace is approved for.
    One finding per workload lists every unapproved taint, by template (docs/design.md section 8)."""
    candidates = _candidate_taints(stack)
    for ref in stack.workloads:
        agent = approved_node_agent(ref.workload.kind, ref.namespace, settings.node_agent_namespaces)
        if agent is True:
            continue
        unapproved: dict[str, list[tuple[dict, list[str]]]] = {}
        for template, path in templates(ref):
            tols = tolerations(template.spec)
            if is_unknown(tols):
                yield unknown(ref.res.urn, subject(ref), f"{path}.tolerations", ref.namespace)
                continue
            for taint in candidates:
                answer = and3((_any_tolerates(tols, taint), not3(_approved(stack, ref, taint, settings)), not3(agent)))
                if answer is False:
                    continue
                field = f"{path}.tolerations"
                if is_unknown(answer):
                    yield unknown(ref.res.urn, subject(ref), field, ref.namespace,
                                  f"whether tolerating {taint_text(taint)} is approved")
                    continue
                paths = [f"{field}[{i}]" for i, t in toleration_entries(template.spec) if tolerates(t, taint) is True]
                unapproved.setdefault(field, []).append((taint, paths))
        if unapproved:
            yield _approval_finding(ref, unapproved)


def _approval_finding(ref: WorkloadRef, unapproved: dict[str, list[tuple[dict, list[str]]]]) -> Finding:
    """One finding: every unapproved taint, with the paths of the tolerations that tolerate it."""
    own = ref.pool_class.value if ref.pool_class else "unresolved"
    taints = list({taint_text(t): t for ts in unapproved.values() for t, _ in ts}.values())
    fix_tail = _agent_also(ref.workload.kind) + " in the pack config"
    if len(unapproved) == 1 and len(taints) == 1:
        [(field, [(taint, _)])] = unapproved.items()
        return Finding(ref.res.urn, subject(ref), field,
                       f"tolerates {taint_text(taint)}, which is not a taint of its own class ({own}) and namespace "
                       f"'{ref.namespace}' is not approved for it",
                       f"remove that toleration, or add '{ref.namespace}' to tolerationApprovals"
                       f"['{taint['key']}={taint['value']}']" + fix_tail, ref.namespace)
    def by(ts: list[tuple[dict, list[str]]]) -> str:
        return ", ".join(f"{taint_text(t)} at {' and '.join(paths)}" if paths else taint_text(t) for t, paths in ts)
    listed = "; ".join(by(ts) for ts in unapproved.values())
    keys = ", ".join(f"['{t['key']}={t['value']}']" for t in taints)
    return Finding(ref.res.urn, subject(ref), ", ".join(unapproved),
                   f"tolerates {len(taints)} taints that are not of its own class ({own}) and that namespace "
                   f"'{ref.namespace}' is not approved for ({listed})",
                   f"remove those tolerations, or add '{ref.namespace}' to tolerationApprovals{keys}" + fix_tail,
                   ref.namespace)


def _gpu_requirement(requirement: dict) -> bool:
    key, operator = requirement.get("key"), requirement.get("operator")
    if key in GPU_NODE_LABELS:
        return operator in ("In", "Exists", "Gt")
    values = as_list(requirement.get("values"))
    return key == v.LABEL_POOL_CLASS and operator == "In" and bool(values) and \
        all(x in [c.value for c in GPU_CLASSES] for x in values)


def _selects_gpu_labels(spec: dict) -> bool:
    """The pod's nodeSelector or every required node-affinity term asks for a GPU-only label."""
    selector = node_selector(spec)
    gpu_classes = [c.value for c in GPU_CLASSES]
    if any(k in GPU_NODE_LABELS for k in selector) or selector.get(v.LABEL_POOL_CLASS) in gpu_classes:
        return True
    terms = required_node_terms(spec)
    if not isinstance(terms, list) or not terms:
        return False
    return all(any(_gpu_requirement(as_dict(r)) for r in as_list(as_dict(t).get("matchExpressions"))) for t in terms)


def _selects_gpu_pools(stack: StackView, spec: dict) -> bool:
    """The pod selects nodes, and among the stack's pools its selectors definitely
    match some, and only GPU pools."""
    if not node_selector(spec) and required_node_terms(spec) is None:
        return False
    matched = []
    for ref in stack.pools:
        labels = node_labels(ref.view, stack.label_sources)
        answer = and3((selector_matches(node_selector(spec), labels)[0],
                       affinity_matches(required_node_terms(spec), labels)[0]))
        if answer is not False:
            matched.append((answer, ref.view.is_gpu))
    return bool(matched) and all(a is True and gpu is True for a, gpu in matched)


@one_per_resource
def check_gpu_toleration_needs_gpu(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Tolerating nvidia.com/gpu or a GPU class's taint, or selecting GPU nodes, requires a GPU request."""
    gpu_taints = [v.gpu_taint()] + [v.class_taint(c) for c in GPU_CLASSES]
    for ref in stack.workloads:
        if ref.workload.kind in NODE_AGENT_KINDS:
            continue
        for template, path in templates(ref):
            spec = template.spec
            requests: Tri = requests_gpu(spec, stack.dra)
            if requests is True:
                continue
            tols = tolerations(spec)
            why = []
            if not is_unknown(tols):
                for taint in gpu_taints:
                    paths = [f"{path}.tolerations[{i}]" for i, t in toleration_entries(spec) if tolerates(t, taint) is True]
                    why += [f"tolerates {taint_text(taint)} ({' and '.join(paths)})"] if paths else []
            if _selects_gpu_labels(spec) or _selects_gpu_pools(stack, spec):
                why.append("selects GPU nodes")
            if not why:
                continue
            if is_unknown(requests):
                yield unknown(ref.res.urn, subject(ref), f"{path}.containers[].resources", ref.namespace)
                continue
            yield Finding(ref.res.urn, subject(ref), f"{path}.containers[].resources",
                          f"{' and '.join(why)} but requests no {v.GPU_RESOURCE}, so it can take a GPU node "
                          "without using its GPU",
                          f"request {v.GPU_RESOURCE} in a container's resources.limits, or drop the GPU "
                          "tolerations and selectors", ref.namespace)
