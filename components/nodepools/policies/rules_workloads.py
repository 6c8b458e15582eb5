"""Per-workload rules: class declared, Guaranteed QoS, gang scheduling, probe budgets, spreading.

Every rule here judges a workload on its own (plus its namespace's class label),
so app stacks without pools get them all. A workload whose class preview cannot
resolve is reported as "cannot judge" only where its class would decide a violation.
"""
from __future__ import annotations

import math
from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.dra import DraIndex
from nodepools.inventory.gangs import gang_of, pod_group_policies, volcano_groups
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.podspec import CONTAINER_LISTS, container_list
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown
from nodepools.inventory.tri import Tri, and3, or3
from nodepools.inventory.workloads import Workload
from nodepools.policies.base import Finding, one_per_resource, unknown
from nodepools.policies.podpaths import NODE_AGENT_KINDS, container_path, meta_path, subject, templates
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView

_CLASSES = ", ".join(c.value for c in v.PoolClass)
# Kinds whose pods are one job's gang whatever their class (parallelism, replicated jobs, roles,
# a LeaderWorkerSet's group, a Ray cluster's head and workers; Volcano's Job is a "Job" too);
# any other kind but a DaemonSet is a gang when its class is gpu-training (docs/design.md
# sections 6 and 8).
GANG_KINDS = ("Job", "CronJob", "JobSet", "PyTorchJob", "LeaderWorkerSet", "RayCluster", "RayJob", "MPIJob",
              "TrainJob")
REPLICATED_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")
# Kubernetes probe defaults (initialDelaySeconds, periodSeconds, failureThreshold).
PROBE_DEFAULTS = (0.0, 10.0, 3.0)


def _in(ref: WorkloadRef, classes: tuple[v.PoolClass, ...]) -> Tri:
    return ref.pool_class if is_unknown(ref.pool_class) else ref.pool_class in classes


def _report(ref: WorkloadRef, member: Tri, field: str, problem: str, fix: str) -> Finding:
    """A violation when the workload is definitely of the rule's class, else cannot-judge."""
    if member is True:
        return Finding(ref.res.urn, subject(ref), field, problem, fix, ref.namespace)
    return unknown(ref.res.urn, subject(ref), field, ref.namespace, "the workload's class is unknown")


@one_per_resource
def check_workload_class_declared(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Every workload's class resolves from its pod template, its own labels or its namespace."""
    for ref in stack.workloads:
        if ref.pool_class is not None:
            if is_unknown(ref.pool_class):
                yield unknown(ref.res.urn, subject(ref), f"labels['{v.LABEL_WORKLOAD_CLASS}']", ref.namespace)
            continue
        template = ref.workload.templates[0] if ref.workload.templates else None
        field = (f"{meta_path(ref.workload, template)}.labels" if template else "metadata.labels")
        value = ref.workload.label(v.LABEL_WORKLOAD_CLASS)
        problem = (f"{v.LABEL_WORKLOAD_CLASS} is '{value}', not one of {_CLASSES}" if value is not None else
                   f"no {v.LABEL_WORKLOAD_CLASS} label on the pod template, the workload or its namespace")
        yield Finding(ref.res.urn, subject(ref), field, problem,
                      f"label the pod template {v.LABEL_WORKLOAD_CLASS}: <{' | '.join(c.value for c in v.PoolClass)}>",
                      ref.namespace)


def _qos_gap(resources: Any) -> Any:
    """Why a resources block is not Guaranteed (cpu and memory limits set, requests equal), or ''."""
    if is_unknown(resources) or any(is_unknown(x) for x in as_dict(resources).values()):
        return resources if is_unknown(resources) else next(x for x in as_dict(resources).values() if is_unknown(x))
    limits, requests = as_dict(as_dict(resources).get("limits")), as_dict(as_dict(resources).get("requests"))
    gaps = []
    for name in ("cpu", "memory"):
        limit, request = limits.get(name), requests.get(name, limits.get(name))
        if is_unknown(limit) or is_unknown(request):
            return limit if is_unknown(limit) else request
        if limit is None:
            gaps.append(f"no limits.{name}")
        elif try_quantity(limit) != try_quantity(request):
            gaps.append(f"requests.{name} {request} != limits.{name} {limit}")
    return "; ".join(gaps)


def _qos_blocks(workload: Workload, spec: Any, path: str) -> Any:
    """(field, resources) of every block QoS reads, or UNKNOWN when the pod spec or its containers are."""
    if is_unknown(spec):
        return UNKNOWN
    pod_level = dig(spec, "resources")
    if pod_level or is_unknown(pod_level):  # PodLevelResources: only the pod's own block counts
        return [(f"{path}.resources", pod_level)]
    lists = {key: container_list(spec, key) for key in CONTAINER_LISTS}
    if any(is_unknown(entries) for entries in lists.values()):
        return UNKNOWN
    return [(f"{container_path(workload, path, key, i)}.resources", c.get("resources"))
            for key, entries in lists.items() for i, c in entries]


@one_per_resource
def check_resident_guaranteed_qos(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """resident and gpu-inference pods are Guaranteed: every container sets cpu and memory limits equal to requests."""
    for ref in stack.workloads:
        member = _in(ref, v.ALWAYS_ON_CLASSES)
        if member is False:
            continue
        for template, path in templates(ref):
            blocks = _qos_blocks(ref.workload, template.spec, path)
            if is_unknown(blocks):
                yield unknown(ref.res.urn, subject(ref), path, ref.namespace, "its pod spec or containers are unknown")
                continue
            for field, resources in blocks:
                gap = _qos_gap(resources)
                if is_unknown(gap):
                    yield unknown(ref.res.urn, subject(ref), field, ref.namespace)
                elif gap:
                    yield _report(ref, member, field, f"not Guaranteed QoS ({gap}), so the pod is evicted and "
                                  "throttled before lower classes", "set cpu and memory limits equal to requests")


def gang_member(ref: WorkloadRef, dra: DraIndex) -> Tri:
    """A workload ``gang-scheduling`` judges by kind and GPU (docs/design.md section 6): a gang
    kind, or any kind but a node agent of class gpu-training, that requests a GPU. Whether it
    has more than one pod is the caller's to ask (``pod_count``)."""
    workload = ref.workload
    if workload.kind in NODE_AGENT_KINDS:
        return False
    member = True if workload.kind in GANG_KINDS else _in(ref, (v.PoolClass.GPU_TRAINING,))
    return and3((member, or3(requests_gpu(t.spec, dra) for t in workload.templates)))


@one_per_resource
def check_gang_scheduling(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A multi-pod workload that requests a GPU uses Kueue, coscheduling or the native scheduling
    group (docs/design.md section 6: multi-pod = parallelism, replicated jobs / roles, or a
    gpu-training workload of several pods; DaemonSets are node agents, never a gang)."""
    pod_groups, volcano = pod_group_policies(stack.resources), volcano_groups(stack.resources)
    for ref in stack.workloads:
        workload = ref.workload
        if workload.kind in NODE_AGENT_KINDS:
            continue
        found = gang_of(workload, pod_groups, volcano)
        if found.mechanism is not None and not is_unknown(found.mechanism):
            continue
        gang: Tri = UNKNOWN if is_unknown(found.mechanism) else False
        member = gang_member(ref, stack.dra)
        if member is False:
            continue
        pods = workload.gang_pods
        field = "metadata.labels"
        if is_unknown(pods):
            yield unknown(ref.res.urn, subject(ref), "pod count (replicas/parallelism)", ref.namespace)
        elif pods > 1 and is_unknown(gang):
            yield unknown(ref.res.urn, subject(ref), field, ref.namespace,
                          f"its gang ({found.detail}) is unknown" if found.detail else "its gang labels are unknown")
        elif pods > 1 and member is not True:
            yield unknown(ref.res.urn, subject(ref), field, ref.namespace,
                          "whether it requests a GPU (or its class) is unknown")
        elif pods > 1:
            what = found.why or "no gang label or scheduling group"
            volcano_fix = f", or {found.fix}" if found.fix else ""
            yield _report(ref, member, field, f"{pods:g} pods requesting GPUs and {what}, so they start one by one: "
                          "a partial gang holds GPUs while it waits for the rest",
                          f"add label {v.LABEL_KUEUE_QUEUE}: <LocalQueue> (Kueue) or "
                          f"{v.LABEL_COSCHEDULING_POD_GROUP}: <PodGroup> (coscheduling){volcano_fix}")


def model_load_seconds(workload: Workload, settings: Settings) -> Any:
    """``nodepools.io/model-load-seconds`` (pod template, else the workload), else
    ``defaultModelLoadSeconds``; None when it is not a number, UNKNOWN at preview."""
    raw = workload.annotation(v.ANNOTATION_MODEL_LOAD_SECONDS)
    if raw is None:
        return settings.default_model_load_seconds
    return raw if is_unknown(raw) else try_quantity(raw)


def _load_seconds(ref: WorkloadRef, settings: Settings) -> Any:
    return model_load_seconds(ref.workload, settings)


def _probe_numbers(probe: dict) -> Any:
    """(initialDelaySeconds, periodSeconds, failureThreshold) with Kubernetes defaults, or UNKNOWN."""
    values = [probe.get(k) for k in ("initialDelaySeconds", "periodSeconds", "failureThreshold")]
    if any(is_unknown(x) for x in values):
        return UNKNOWN
    return tuple(float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else d
                 for x, d in zip(values, PROBE_DEFAULTS))


@one_per_resource
def check_model_load_probes(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """gpu-inference containers have a readinessProbe and a start-up budget no shorter than the model load time."""
    for ref in stack.workloads:
        member = _in(ref, (v.PoolClass.GPU_INFERENCE,))
        if member is False:
            continue
        load = _load_seconds(ref, settings)
        for template, path in templates(ref):
            entries = container_list(template.spec)
            if is_unknown(entries):
                yield unknown(ref.res.urn, subject(ref), f"{path}.containers", ref.namespace)
                continue
            for i, container in entries:
                base = container_path(ref.workload, path, "containers", i)
                if is_unknown(container.get("readinessProbe")):
                    yield unknown(ref.res.urn, subject(ref), f"{base}.readinessProbe", ref.namespace)
                elif not container.get("readinessProbe"):
                    yield _report(ref, member, f"{base}.readinessProbe", "no readinessProbe, so traffic reaches "
                                  "the server before its model is loaded", "add a readinessProbe on the model "
                                  "server's health endpoint")
                which = "startupProbe" if container.get("startupProbe") is not None else "livenessProbe"
                probe = container.get(which)
                if probe is None:
                    continue  # nothing restarts a loading container
                numbers = probe if is_unknown(probe) else _probe_numbers(as_dict(probe))
                if is_unknown(numbers) or is_unknown(load):
                    yield unknown(ref.res.urn, subject(ref), f"{base}.{which}", ref.namespace)
                elif load is None:
                    yield _report(ref, member, f"{meta_path(ref.workload, template)}.annotations",
                                  f"{v.ANNOTATION_MODEL_LOAD_SECONDS} is not a number of seconds",
                                  f"set {v.ANNOTATION_MODEL_LOAD_SECONDS} to the load time in seconds, e.g. '600'")
                elif (budget := numbers[0] + numbers[1] * numbers[2]) < load:
                    period = numbers[1] or PROBE_DEFAULTS[1]
                    need = math.ceil(load / period)
                    yield _report(ref, member, f"{base}.{which}", f"allows {budget:g}s before the kubelet restarts "
                                  f"the container, shorter than the model load time {load:g}s",
                                  f"add a startupProbe with failureThreshold >= {need} at periodSeconds {period:g}")


@one_per_resource
def check_topology_spread(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A resident workload with more than one replica spreads them
    (topologySpreadConstraints or a required pod anti-affinity)."""
    for ref in stack.workloads:
        member = _in(ref, (v.PoolClass.RESIDENT,))
        if member is False or ref.workload.kind not in REPLICATED_KINDS:
            continue
        pods = ref.workload.pod_count
        if not is_unknown(pods) and pods <= 1:
            continue
        for template, path in templates(ref):
            spread = dig(template.spec, "topologySpreadConstraints")
            anti = dig(template.spec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
            if as_list(spread) or as_list(anti):
                continue
            if is_unknown(spread) or is_unknown(anti) or is_unknown(pods):
                yield unknown(ref.res.urn, subject(ref), f"{path}.topologySpreadConstraints", ref.namespace)
            else:
                yield _report(ref, member, f"{path}.topologySpreadConstraints",
                              f"{pods:g} replicas with no spread can all land on one node or zone",
                              "add topologySpreadConstraints with maxSkew 1 over topology.kubernetes.io/zone "
                              "and kubernetes.io/hostname (or a required podAntiAffinity)")
