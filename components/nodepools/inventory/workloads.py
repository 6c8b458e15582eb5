"""Workloads from raw resource properties: every kind's pod template(s) in one shape.

Works on what the engine sends (camelCase inputs of pulumi-kubernetes
resources), so it reads user resources exactly like ours. Custom gang kinds
(JobSet, PyTorchJob) carry several pod templates; each becomes a
``PodTemplate`` with the number of pods it stands for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list, known_str_map, plain
from nodepools.vocabulary import K8S_WORKLOAD_TYPES, LABEL_WORKLOAD_CLASS, PoolClass

TYPE_JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
TYPE_PYTORCHJOB = "kubernetes:kubeflow.org/v1:PyTorchJob"
GANG_CUSTOM_TYPES = {TYPE_JOBSET: "JobSet", TYPE_PYTORCHJOB: "PyTorchJob"}
WORKLOAD_TYPES = {**K8S_WORKLOAD_TYPES, **GANG_CUSTOM_TYPES}


@dataclass(frozen=True)
class PodTemplate:
    """One pod template. Preview may hide any part of it: ``labels``, ``annotations``
    and ``spec`` are then UNKNOWN (never an empty map, which would judge a pod that
    declares nothing)."""

    role: str  # "" for single-template kinds, else the replica role (Worker, Master, a replicated job)
    labels: Any  # dict[str, str | UNKNOWN], or UNKNOWN
    annotations: Any
    spec: Any  # the pod spec (a dict), or UNKNOWN
    pods: Any  # how many pods this template stands for (float), or UNKNOWN


# The role of the one template standing for a template list unknown at preview.
UNKNOWN_ROLE = "*"


@dataclass(frozen=True)
class Workload:
    type: str
    kind: str
    urn: str
    name: str
    namespace: Any  # str or UNKNOWN
    labels: Any  # dict[str, str | UNKNOWN], or UNKNOWN
    annotations: Any
    templates: list[PodTemplate]
    raw_spec: Any = field(repr=False)  # dict, or UNKNOWN

    @property
    def pod_count(self) -> Any:
        """Pods that must run together (replicas / parallelism), or UNKNOWN."""
        counts = [t.pods for t in self.templates]
        if any(is_unknown(c) for c in counts):
            return UNKNOWN
        return sum(counts)

    def label(self, key: str) -> Any:
        """A label from the pod templates, else the workload's own metadata; UNKNOWN
        when a map that would decide it is unknown."""
        return _lookup(key, [t.labels for t in self.templates] + [self.labels])

    def annotation(self, key: str) -> Any:
        return _lookup(key, [t.annotations for t in self.templates] + [self.annotations])


def _lookup(key: str, maps: list[Any]) -> Any:
    for values in maps:
        if is_unknown(values):
            return UNKNOWN
        if key in values:
            return values[key]
    return None


def _count(value: Any, default: float = 1.0) -> Any:
    if is_unknown(value):
        return UNKNOWN
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _template(role: str, template: Any, pods: Any) -> PodTemplate:
    """``dig`` carries an unknown template (or metadata) down to every field read from it."""
    spec = dig(template, "spec", default={})
    return PodTemplate(role, known_str_map(dig(template, "metadata", "labels")),
                       known_str_map(dig(template, "metadata", "annotations")),
                       spec if is_unknown(spec) else as_dict(spec), pods)


def _unknown_templates() -> list[PodTemplate]:
    return [PodTemplate(UNKNOWN_ROLE, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)]


def _templates_standard(kind: str, props: dict) -> list[PodTemplate]:
    spec = props.get("spec")
    if kind == "Pod":
        return [_template("", {"metadata": props.get("metadata"), "spec": spec}, 1.0)]
    if kind == "CronJob":
        job = dig(spec, "jobTemplate", "spec")
        return [_template("", dig(job, "template"), _count(dig(job, "parallelism")))]
    if kind == "Job":
        return [_template("", dig(spec, "template"), _count(dig(spec, "parallelism")))]
    if kind == "DaemonSet":
        return [_template("", dig(spec, "template"), 1.0)]
    return [_template("", dig(spec, "template"), _count(dig(spec, "replicas")))]


def _templates_jobset(props: dict) -> list[PodTemplate]:
    jobs = known_list(dig(props, "spec", "replicatedJobs"))
    if is_unknown(jobs):
        return _unknown_templates()
    out = []
    for i, rjob in enumerate(jobs):
        job = dig(rjob, "template", "spec")
        replicas, parallelism = _count(dig(rjob, "replicas")), _count(dig(job, "parallelism"))
        pods = UNKNOWN if UNKNOWN in (replicas, parallelism) else replicas * parallelism
        name = dig(rjob, "name")
        out.append(_template(name if isinstance(name, str) and name else str(i), dig(job, "template"), pods))
    return out


def _templates_pytorchjob(props: dict) -> list[PodTemplate]:
    specs = dig(props, "spec", "pytorchReplicaSpecs")
    if is_unknown(specs):
        return _unknown_templates()
    return [_template(role, dig(rs, "template"), _count(dig(rs, "replicas")))
            for role, rs in sorted(as_dict(specs).items())]


_READERS: dict[str, Callable[[str, dict], list[PodTemplate]]] = {
    **{t: _templates_standard for t in K8S_WORKLOAD_TYPES},
    TYPE_JOBSET: lambda kind, props: _templates_jobset(props),
    TYPE_PYTORCHJOB: lambda kind, props: _templates_pytorchjob(props),
}


def is_workload_type(resource_type: str) -> bool:
    return resource_type in WORKLOAD_TYPES


def read_workload(resource_type: str, props: Any, urn: str = "", name: str = "") -> Workload | None:
    """The workload in ``props`` (any shape ``values.plain`` takes), or None for other types."""
    reader = _READERS.get(resource_type)
    if reader is None:
        return None
    data = as_dict(plain(props))
    kind = WORKLOAD_TYPES[resource_type]
    meta, spec = data.get("metadata"), data.get("spec")
    namespace, own_name = dig(meta, "namespace"), dig(meta, "name")
    return Workload(
        type=resource_type, kind=kind, urn=urn, name=own_name if isinstance(own_name, str) else name,
        namespace=UNKNOWN if is_unknown(namespace) else (namespace or "default"),
        labels=known_str_map(dig(meta, "labels")), annotations=known_str_map(dig(meta, "annotations")),
        templates=reader(kind, data), raw_spec=spec if is_unknown(spec) else as_dict(spec),
    )


def resolve_class(workload: Workload, namespace_labels: Mapping[str, Any]) -> Any:
    """docs/design.md section 2: the pod template's ``nodepools.io/workload-class``
    label, else the workload's own, else its namespace's. None when unresolved
    or not one of the four classes; UNKNOWN when a label that decides it is unknown."""
    value = workload.label(LABEL_WORKLOAD_CLASS)
    if value is None and isinstance(workload.namespace, str):
        value = dig(namespace_labels.get(workload.namespace), LABEL_WORKLOAD_CLASS)
    if is_unknown(value):
        return UNKNOWN
    try:
        return PoolClass(value)
    except ValueError:
        return None
