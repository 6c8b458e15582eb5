"""``training-topology``: a multi-pod GPU training workload that Kueue admits through a flavor
with a Topology asks for proximity, at a level that Topology has (docs/design.md section 9.3).

The flavors are those of the ClusterQueue that serves the workload's LocalQueue
(``kueue.x-k8s.io/queue-name``); a workload without a queue is ``gang-scheduling``'s
concern. Kueue reads the requests from each pod template's annotations
(``kueue.x-k8s.io/podset-required-topology`` / ``podset-preferred-topology``); a template
without one may spread its ranks across the network, and one naming a level no Topology of
those flavors has, or any level where no flavor has a Topology, is never admitted
(kubernetes-sigs/kueue: pkg/scheduler/flavorassigner/tas_flavorassigner.go@v0.19.2:
"does not contain the requested level", "does not support TopologyAwareScheduling").
Templates that request no GPU (a launcher) are not ranks and need no request.
"""
from __future__ import annotations

from typing import Any, Iterator

from nodepools import vocabulary as v
from nodepools.inventory.dra import DraIndex
from nodepools.inventory.gpu_requests import requests_gpu
from nodepools.inventory.kueue import KueueView, read_kueue
from nodepools.inventory.values import is_unknown
from nodepools.policies.base import Finding, one_per_resource, unknown
from nodepools.policies.podpaths import meta_path, subject
from nodepools.policies.rules_workloads import gang_member
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView

REQUESTS = (v.ANNOTATION_KUEUE_REQUIRED_TOPOLOGY, v.ANNOTATION_KUEUE_PREFERRED_TOPOLOGY)


def _topologies(kueue: KueueView, ref: WorkloadRef, queue: str) -> Any:
    """{Topology name: levels or None (not in the stack)} of the flavors the queue admits through,
    or a string saying which object preview (or the stack) does not show."""
    cluster_queue = kueue.local_queues.get((ref.namespace, queue))
    if cluster_queue is None:
        return f"LocalQueue '{ref.namespace}/{queue}' is not in the stack, so the flavors it admits through are unknown"
    if is_unknown(cluster_queue):
        return f"the ClusterQueue of LocalQueue '{ref.namespace}/{queue}' is unknown until the update runs"
    flavors = kueue.flavors_of(cluster_queue)
    if flavors is None:
        return f"ClusterQueue '{cluster_queue}' is not in the stack, so its flavors are unknown"
    if is_unknown(flavors):
        return f"the flavors of ClusterQueue '{cluster_queue}' are unknown until the update runs"
    out: dict[str, Any] = {}
    for flavor in flavors:
        if flavor not in kueue.flavors:
            return f"ResourceFlavor '{flavor}' (of ClusterQueue '{cluster_queue}') is not in the stack"
        name = kueue.flavors[flavor].topology
        if is_unknown(name):
            return f"the topologyName of ResourceFlavor '{flavor}' is unknown until the update runs"
        if isinstance(name, str):
            levels = kueue.topologies.get(name)
            out[name] = None if levels is None or is_unknown(levels) else levels
    return out


@one_per_resource
def check_training_topology(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Ranks of a topology-scheduled training gang ask for a topology level their Topology has."""
    kueue = read_kueue(stack.resources)
    for ref in stack.workloads:
        pods = ref.workload.pod_count
        if gang_member(ref, stack.dra) is False or is_unknown(pods) or pods <= 1:
            continue
        if isinstance(ref.pool_class, v.PoolClass) and ref.pool_class.always_on:
            continue  # multi-node model serving is a gang too, but not training (section 9.3)
        queue = ref.workload.label(v.LABEL_KUEUE_QUEUE)
        if queue is None:
            continue
        if is_unknown(queue) or is_unknown(ref.namespace):
            yield unknown(ref.res.urn, subject(ref), f"labels['{v.LABEL_KUEUE_QUEUE}']", ref.namespace,
                          "its queue (or namespace) is unknown until the update runs")
            continue
        topologies = _topologies(kueue, ref, queue)
        if isinstance(topologies, str):
            yield unknown(ref.res.urn, subject(ref), f"labels['{v.LABEL_KUEUE_QUEUE}']", ref.namespace, topologies)
            continue
        yield from _judge(ref, topologies, stack.dra)


def _judge(ref: WorkloadRef, topologies: dict[str, Any], dra: DraIndex) -> Iterator[Finding]:
    """One finding for the workload: requests at levels no Topology has (or with no Topology at
    all), and the GPU templates that request none while a Topology is there."""
    known_levels = None if any(levels is None for levels in topologies.values()) else {
        level for levels in topologies.values() for level in levels}
    missing, wrong, undecided = [], [], []
    for template in ref.workload.templates:
        if requests_gpu(template.spec, dra) is False:
            continue
        meta = meta_path(ref.workload, template)
        if is_unknown(template.annotations):
            undecided.append(f"{meta}.annotations")
            continue
        asked = {key: template.annotations.get(key) for key in REQUESTS if template.annotations.get(key) is not None}
        if not asked:
            missing.append(meta)
        for key, level in asked.items():
            path = f"{meta}.annotations['{key}']"
            if is_unknown(level):
                undecided.append(path)
            elif known_levels is not None and level not in known_levels:
                wrong.append((path, level))
    names = ", ".join(f"'{name}'" for name in sorted(topologies))
    if topologies:
        problems = [f"{path} asks for level '{level}', which Topology {names} does not have (levels: "
                    f"{', '.join(sorted(known_levels or ()))}), so Kueue never admits it" for path, level in wrong]
    else:
        missing = []  # no flavor schedules by topology: nothing to ask for
        problems = [f"{path} asks for level '{level}', but no flavor its queue admits through has a Topology, "
                    "so Kueue never admits it" for path, level in wrong]
    if missing:
        problems.append(f"{', '.join(missing)} request{'s' if len(missing) == 1 else ''} no topology "
                        f"({' or '.join(REQUESTS)}), so the ranks may spread across the network of Topology {names}")
    if problems:
        field = wrong[0][0] if wrong else f"{missing[0]}.annotations"
        lowest = _lowest_network_level(topologies)
        fix = (f"annotate each GPU pod template {v.ANNOTATION_KUEUE_PREFERRED_TOPOLOGY}: <level>, a level of the "
               f"Topology{f' (e.g. {lowest})' if lowest else ''}" if topologies else
               "drop the topology annotations, or queue the workload where a flavor has a Topology")
        yield Finding(ref.res.urn, subject(ref), field, "; ".join(problems), fix, ref.namespace)
    elif undecided:
        yield unknown(ref.res.urn, subject(ref), undecided[0], ref.namespace,
                      "its pod template annotations are unknown until the update runs")


def _lowest_network_level(topologies: dict[str, Any]) -> str | None:
    """The narrowest level above the hostname of a known Topology: a good preferred level."""
    for levels in topologies.values():
        if levels and len(levels) > 1:
            return levels[-2] if levels[-1] == v.LABEL_HOSTNAME else levels[-1]
    return None
