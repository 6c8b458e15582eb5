"""Pod templates of the custom resources people serve and train with (docs/design.md section 8):
LeaderWorkerSet, KubeRay's RayCluster / RayJob / RayService, MPIJob and Volcano's Job.

Each reader takes the resource's plain properties and returns its pod templates and what the
workload record needs besides (``Workload`` fields). A template's ``role`` is its place under
``spec`` where the kind's templates have no fixed path (``policies.podpaths`` spells the path).
Any value may have any shape: a non-dict where a dict belongs reads as absent.
"""
from __future__ import annotations

from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.pod_templates import UNKNOWN_ROLE, VOLCANO, GangPolicy, PodTemplate, count, template, \
    times, unknown_templates
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list

TYPE_LEADER_WORKER_SET = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
TYPE_RAY_CLUSTER = "kubernetes:ray.io/v1:RayCluster"
TYPE_RAY_JOB = "kubernetes:ray.io/v1:RayJob"
TYPE_RAY_SERVICE = "kubernetes:ray.io/v1:RayService"
TYPE_MPIJOB = "kubernetes:kubeflow.org/v2beta1:MPIJob"
TYPE_VOLCANO_JOB = "kubernetes:batch.volcano.sh/v1alpha1:Job"
CUSTOM_TYPES = {TYPE_LEADER_WORKER_SET: "LeaderWorkerSet", TYPE_RAY_CLUSTER: "RayCluster", TYPE_RAY_JOB: "RayJob",
                TYPE_RAY_SERVICE: "RayService", TYPE_MPIJOB: "MPIJob", TYPE_VOLCANO_JOB: "Job"}
# Where each Ray kind keeps its RayClusterSpec under ``spec``.
_RAY_CLUSTER_SPEC = {TYPE_RAY_CLUSTER: "", TYPE_RAY_JOB: "rayClusterSpec", TYPE_RAY_SERVICE: "rayClusterConfig"}
# Volcano's admission webhook: schedulerName defaults to volcano, minAvailable to the sum of each
# task's minAvailable (else replicas) (volcano-sh/volcano pkg/webhooks/admission/jobs/mutate/mutate_job.go,
# patchDefaultScheduler / patchDefaultMinAvailable).
VOLCANO_SCHEDULER = v.SCHEDULER_VOLCANO

Read = tuple[list[PodTemplate], dict[str, Any]]


def read_leader_worker_set(spec: Any) -> Read:
    """Groups of ``size`` pods (a leader and size-1 workers), ``replicas`` groups; the leader
    runs the worker template when it has none of its own (leaderworkerset.x-k8s.io/v1)."""
    lwt = dig(spec, "leaderWorkerTemplate")
    if is_unknown(lwt):
        return unknown_templates("leaderWorkerTemplate.workerTemplate"), {"group_pods": UNKNOWN}
    groups, size = count(dig(spec, "replicas")), count(dig(lwt, "size"))
    leader = dig(lwt, "leaderTemplate")
    worker_role, leader_role = "leaderWorkerTemplate.workerTemplate", "leaderWorkerTemplate.leaderTemplate"
    if leader is None:
        templates = [template(worker_role, dig(lwt, "workerTemplate"), times(groups, size))]
    else:
        workers = UNKNOWN if is_unknown(size) else size - 1
        templates = [template(leader_role, leader, groups),
                     template(worker_role, dig(lwt, "workerTemplate"), times(groups, workers))]
    return templates, {"group_pods": size}


def _worker_pods(group: Any) -> Any:
    """A worker group's pods: ``replicas`` up to an explicit ``maxReplicas`` (KubeRay's defaults:
    replicas 0, maxReplicas 2147483647, so an unset maximum is not counted), times ``numOfHosts``."""
    replicas, low, high = (dig(group, key) for key in ("replicas", "minReplicas", "maxReplicas"))
    values = [count(x, 0.0) for x in (replicas, low, high)]
    if any(is_unknown(x) for x in values):
        return UNKNOWN
    return times(max(values), count(dig(group, "numOfHosts")))


def read_ray(resource_type: str, spec: Any) -> Read:
    """The head, every worker group and, for a RayJob, the submitter pod it declares."""
    where = _RAY_CLUSTER_SPEC[resource_type]
    cluster = dig(spec, where) if where else spec
    prefix = f"{where}." if where else ""
    templates: list[PodTemplate] = []
    if cluster is not None:  # a RayJob may run on an existing cluster (clusterSelector) instead
        if is_unknown(cluster):
            return unknown_templates(f"{prefix}{UNKNOWN_ROLE}"), {}
        templates.append(template(f"{prefix}headGroupSpec.template", dig(cluster, "headGroupSpec", "template"), 1.0))
        groups = known_list(dig(cluster, "workerGroupSpecs"))
        if is_unknown(groups):
            templates += unknown_templates(f"{prefix}workerGroupSpecs[{UNKNOWN_ROLE}].template")
        else:
            templates += [template(f"{prefix}workerGroupSpecs[{i}].template", dig(g, "template"), _worker_pods(g))
                          for i, g in enumerate(groups)]
    submitter = dig(spec, "submitterPodTemplate")
    if resource_type == TYPE_RAY_JOB and submitter is not None:
        templates.append(template("submitterPodTemplate", submitter, 1.0))
    return templates, {}


def read_mpijob(spec: Any) -> Read:
    """Launcher and Worker; a Volcano gang when every template names the volcano scheduler
    (mpi-operator then makes a PodGroup of ``runPolicy.schedulingPolicy.minAvailable`` pods,
    all of them when unset)."""
    specs = dig(spec, "mpiReplicaSpecs")
    if is_unknown(specs):
        return unknown_templates(), {}
    templates = [template(role, dig(rs, "template"), count(dig(rs, "replicas")))
                 for role, rs in sorted(as_dict(specs).items())]
    names = [dig(t.spec, "schedulerName") for t in templates]
    if not templates or not all(n == VOLCANO_SCHEDULER or is_unknown(n) for n in names):
        return templates, {}
    policy = dig(spec, "runPolicy", "schedulingPolicy", "minAvailable")
    pods = sum(t.pods for t in templates) if not any(is_unknown(t.pods) for t in templates) else UNKNOWN
    mechanism = UNKNOWN if any(is_unknown(n) for n in names) else VOLCANO
    return templates, {"own_gang": GangPolicy(mechanism, pods if policy is None else count(policy, 0.0),
                                              "spec.runPolicy.schedulingPolicy.minAvailable")}


def read_volcano_job(spec: Any) -> Read:
    """``spec.tasks[]``, pods the sum of their replicas; a gang of ``minAvailable`` pods under
    the volcano scheduler (the webhook's defaults, above)."""
    tasks = known_list(dig(spec, "tasks"))
    if is_unknown(tasks):
        return unknown_templates(), {}
    templates = [template(str(i), dig(task, "template"), count(dig(task, "replicas"))) for i, task in enumerate(tasks)]
    scheduler = dig(spec, "schedulerName", default=VOLCANO_SCHEDULER)
    if isinstance(scheduler, str) and scheduler != VOLCANO_SCHEDULER:
        return templates, {}
    minimum = dig(spec, "minAvailable")
    if minimum is None or minimum == 0:
        parts = [count(dig(task, "minAvailable"), 0.0) if dig(task, "minAvailable") is not None else t.pods
                 for task, t in zip(tasks, templates)]
        minimum = UNKNOWN if any(is_unknown(p) for p in parts) else sum(parts)
    mechanism = UNKNOWN if is_unknown(scheduler) else VOLCANO
    return templates, {"own_gang": GangPolicy(mechanism, count(minimum, 0.0), "spec.minAvailable")}


def read_custom(resource_type: str, spec: Any) -> Read:
    if resource_type == TYPE_LEADER_WORKER_SET:
        return read_leader_worker_set(spec)
    if resource_type in _RAY_CLUSTER_SPEC:
        return read_ray(resource_type, spec)
    if resource_type == TYPE_MPIJOB:
        return read_mpijob(spec)
    return read_volcano_job(spec)
