"""Kubeflow Trainer v2: a TrainJob's pods come from the runtime it references (docs/design.md section 8).

A TrainJob (``trainer.kubeflow.org/v1alpha1``) names a TrainingRuntime (its namespace) or a
ClusterTrainingRuntime (``spec.runtimeRef``, kind defaulting to ClusterTrainingRuntime); the
runtime's ``spec.template`` is a JobSet template. The trainer step is the replicated job whose
template carries ``trainer.kubeflow.org/trainjob-ancestor-step: trainer`` (else the one named
``node``); the TrainJob sets its pods (``spec.trainer.numNodes``, else the runtime's
``mlPolicy.numNodes``) and the resources of its ``node`` container (``resourcesPerNode``), and
``spec.podTemplateOverrides`` extend the pod specs of the jobs they target (tolerations,
node selectors, volumes, containers by name). Source: kubeflow/trainer
pkg/apis/trainer/v1alpha1/trainjob_types.go and pkg/constants.

A runtime's ``podGroupPolicy`` (coscheduling or Volcano) makes every TrainJob on it a gang
(section 9, "Gangs"). A runtime outside the stack leaves the pods unknown, and the reason names it.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from nodepools import vocabulary as v
from nodepools.inventory.pod_templates import COSCHEDULING, VOLCANO, GangPolicy, PodTemplate, Workload, count, \
    template, times, unknown_templates
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, known_list, known_str_map, plain

TRAINER_PREFIX = "kubernetes:trainer.kubeflow.org/v1alpha1:"
TYPE_TRAINJOB = TRAINER_PREFIX + "TrainJob"
CLUSTER_RUNTIME, RUNTIME = "ClusterTrainingRuntime", "TrainingRuntime"
TRAINER_JOB, TRAINER_CONTAINER = "node", "node"
# (kind, namespace ("" for a ClusterTrainingRuntime), name) -> the runtime's properties.
Runtimes = Mapping[tuple[str, str, str], Any]


def training_runtimes(resources: Iterable[Any]) -> dict[tuple[str, str, str], Any]:
    """Every (Cluster)TrainingRuntime of ``resources`` (anything with ``type`` and ``props``)."""
    out: dict[tuple[str, str, str], Any] = {}
    for res in resources:
        kind = res.type[len(TRAINER_PREFIX):] if res.type.startswith(TRAINER_PREFIX) else ""
        if kind not in (CLUSTER_RUNTIME, RUNTIME):
            continue
        props = plain(res.props)
        name, namespace = dig(props, "metadata", "name"), dig(props, "metadata", "namespace", default="default")
        if isinstance(name, str):
            out[(kind, namespace if kind == RUNTIME and isinstance(namespace, str) else "", name)] = props
    return out


def _is_trainer(job: Any, jobs: list[Any]) -> bool:
    marked = [j for j in jobs if dig(j, "template", "metadata", "labels", v.LABEL_TRAINER_STEP) ==
              v.TRAINER_STEP_TRAINER]
    return job in marked if marked else dig(job, "name") == TRAINER_JOB


def _with_resources(spec: Any, resources: Any) -> Any:
    """The pod spec with ``resourcesPerNode`` on its trainer container (``node``, else the first)."""
    containers = dig(spec, "containers")
    if resources is None or is_unknown(spec) or is_unknown(containers):
        return spec
    entries = [c for c in as_list(containers)]
    named = [i for i, c in enumerate(entries) if dig(c, "name") == TRAINER_CONTAINER]
    at = named[0] if named else 0
    if at < len(entries):
        entries[at] = {**as_dict(entries[at]), "resources": resources}
    return {**spec, "containers": entries}


def _merged_list(base: Any, more: Any) -> Any:
    """Entries with a name update the base entry of that name (containers, volumes); others are added."""
    if is_unknown(base) or is_unknown(more):
        return UNKNOWN
    out = list(as_list(base))
    for entry in as_list(more):
        name = dig(entry, "name")
        at = next((i for i, e in enumerate(out) if name is not None and dig(e, "name") == name), None)
        if at is None:
            out.append(entry)
        else:
            out[at] = {**as_dict(out[at]), **as_dict(entry)}
    return out


def _overridden(spec: Any, labels: Any, job: str, overrides: Any) -> tuple[Any, Any]:
    """``podTemplateOverrides`` targeting ``job`` on its pod spec: lists extended (a named entry
    updates the entry of that name), maps merged, other fields replaced; labels merged."""
    for override in as_list(overrides):
        targets = [dig(t, "name") for t in as_list(dig(override, "targetJobs"))]
        if job not in targets or is_unknown(spec):
            continue
        extra = dig(override, "spec")
        if is_unknown(extra):
            return UNKNOWN, labels
        spec = dict(spec)
        for key, value in as_dict(extra).items():
            if isinstance(value, list) or is_unknown(value) and isinstance(spec.get(key), list):
                spec[key] = _merged_list(spec.get(key), value)
            elif isinstance(value, dict) and isinstance(spec.get(key), dict) and key != "affinity":
                spec[key] = {**spec[key], **value}
            elif value is not None:
                spec[key] = value
        more_labels = dig(override, "metadata", "labels")
        if isinstance(more_labels, dict) and isinstance(labels, dict):
            labels = {**labels, **{k: x for k, x in more_labels.items() if isinstance(x, str) or is_unknown(x)}}
    return spec, labels


def read_trainjob(spec: Any, namespace: Any, runtimes: Runtimes | None) -> tuple[list[PodTemplate], dict[str, Any]]:
    """The TrainJob's pod templates from its runtime. Read alone (``runtimes`` None, as a
    resource policy reads it) a TrainJob holds no pod template of its own."""
    if runtimes is None:
        return [], {}
    ref = dig(spec, "runtimeRef")
    name, kind = dig(ref, "name"), dig(ref, "kind", default=CLUSTER_RUNTIME)
    if is_unknown(name) or is_unknown(kind) or (kind == RUNTIME and is_unknown(namespace)):
        return unknown_templates(), {}
    if not isinstance(name, str) or not isinstance(kind, str):
        return [], {}  # names no runtime: the API server refuses it, and it runs no pod
    where = "" if kind != RUNTIME else f" in namespace '{namespace}'"
    source = f"{kind} '{name}'"
    runtime = runtimes.get((kind, namespace if kind == RUNTIME else "", name))
    if runtime is None:
        return unknown_templates(), {"why_unknown": f"its runtime {source}{where} is not in the stack, so its "
                                                    "pods are unknown"}
    rspec = dig(runtime, "spec")
    jobs = known_list(dig(rspec, "template", "spec", "replicatedJobs"))
    if is_unknown(jobs):
        return unknown_templates(), {"template_source": source}
    nodes = dig(spec, "trainer", "numNodes", default=dig(rspec, "mlPolicy", "numNodes"))
    resources = dig(spec, "trainer", "resourcesPerNode")
    overrides = dig(spec, "podTemplateOverrides")
    templates = []
    for i, rjob in enumerate(jobs):
        job_name = dig(rjob, "name")
        role = job_name if isinstance(job_name, str) and job_name else str(i)
        job = dig(rjob, "template", "spec")
        read = template(role, dig(job, "template"), times(count(dig(rjob, "replicas")), count(dig(job, "parallelism"))))
        pod_spec, labels = read.spec, read.labels
        pods = read.pods
        if _is_trainer(rjob, jobs):
            pod_spec = _with_resources(pod_spec, resources)
            if nodes is not None:
                pods = times(count(dig(rjob, "replicas")), count(nodes))
        pod_spec, labels = _overridden(pod_spec, labels, role, overrides)
        templates.append(PodTemplate(role, labels, read.annotations, pod_spec, pods))
    extras: dict[str, Any] = {"template_source": source}
    policy = dig(rspec, "podGroupPolicy")
    if is_unknown(policy):
        extras["own_gang"] = GangPolicy(UNKNOWN, UNKNOWN, f"podGroupPolicy of {source}")
    else:
        for key, mechanism in (("coscheduling", COSCHEDULING), ("volcano", VOLCANO)):
            if key in as_dict(policy):
                # The runtime's PodGroup holds every pod of the TrainJob.
                extras["own_gang"] = GangPolicy(mechanism, sum_pods(templates), f"podGroupPolicy of {source}")
    return templates, extras


def sum_pods(templates: list[PodTemplate]) -> Any:
    return UNKNOWN if any(is_unknown(t.pods) for t in templates) else sum(t.pods for t in templates)


def read_runtime(resource_type: str, props: Any, urn: str = "", name: str = "") -> Workload | None:
    """A (Cluster)TrainingRuntime's own pod templates, as the resource policies judge the
    resource that holds them (a runtime runs no pod itself: it is no workload of the stack)."""
    kind = resource_type[len(TRAINER_PREFIX):] if resource_type.startswith(TRAINER_PREFIX) else ""
    if kind not in (CLUSTER_RUNTIME, RUNTIME):
        return None
    data = as_dict(plain(props))
    meta, spec = data.get("metadata"), data.get("spec")
    jobs = known_list(dig(spec, "template", "spec", "replicatedJobs"))
    if is_unknown(jobs):
        templates = unknown_templates()
    else:
        templates = []
        for i, rjob in enumerate(jobs):
            job_name, job = dig(rjob, "name"), dig(rjob, "template", "spec")
            templates.append(template(job_name if isinstance(job_name, str) and job_name else str(i),
                                      dig(job, "template"), count(dig(rjob, "replicas"))))
    own_name, namespace = dig(meta, "name"), dig(meta, "namespace", default="default")
    return Workload(resource_type, kind, urn, own_name if isinstance(own_name, str) else name,
                    None if kind == CLUSTER_RUNTIME else namespace, known_str_map(dig(meta, "labels")),
                    known_str_map(dig(meta, "annotations")), templates, spec if is_unknown(spec) else as_dict(spec))
