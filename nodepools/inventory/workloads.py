"""Workloads from raw resource properties: every kind's pod template(s) in one shape.

Works on what the engine sends (camelCase inputs of pulumi-kubernetes
resources), so it reads user resources exactly like ours. Custom gang kinds
(JobSet, PyTorchJob) carry several pod templates; each becomes a
``PodTemplate`` with the number of pods it stands for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, plain, str_map
from nodepools.vocabulary import K8S_WORKLOAD_TYPES, LABEL_WORKLOAD_CLASS, PoolClass

TYPE_JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
TYPE_PYTORCHJOB = "kubernetes:kubeflow.org/v1:PyTorchJob"
GANG_CUSTOM_TYPES = {TYPE_JOBSET: "JobSet", TYPE_PYTORCHJOB: "PyTorchJob"}
WORKLOAD_TYPES = {**K8S_WORKLOAD_TYPES, **GANG_CUSTOM_TYPES}


@dataclass(frozen=True)
class PodTemplate:
    role: str  # "" for single-template kinds, else the replica role (Worker, Master, a replicated job)
    labels: dict[str, Any]
    annotations: dict[str, Any]
    spec: dict
    pods: Any  # how many pods this template stands for (float), or UNKNOWN


@dataclass(frozen=True)
class Workload:
    type: str
    kind: str
    urn: str
    name: str
    namespace: Any  # str or UNKNOWN
    labels: dict[str, Any]
    annotations: dict[str, Any]
    templates: list[PodTemplate]
    raw_spec: dict = field(repr=False)

    @property
    def pod_count(self) -> Any:
        """Pods that must run together (replicas / parallelism), or UNKNOWN."""
        counts = [t.pods for t in self.templates]
        if any(is_unknown(c) for c in counts):
            return UNKNOWN
        return sum(counts)

    def label(self, key: str) -> Any:
        """A label from the pod templates, else the workload's own metadata."""
        for template in self.templates:
            if key in template.labels:
                return template.labels[key]
        return self.labels.get(key)

    def annotation(self, key: str) -> Any:
        for template in self.templates:
            if key in template.annotations:
                return template.annotations[key]
        return self.annotations.get(key)


def _count(value: Any, default: float = 1.0) -> Any:
    if is_unknown(value):
        return UNKNOWN
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _template(role: str, template: Any, pods: Any) -> PodTemplate:
    template = as_dict(template)
    meta = as_dict(template.get("metadata"))
    return PodTemplate(role, str_map(meta.get("labels")), str_map(meta.get("annotations")),
                       as_dict(template.get("spec")), pods)


def _templates_standard(kind: str, props: dict) -> list[PodTemplate]:
    spec = as_dict(props.get("spec"))
    if kind == "Pod":
        return [_template("", {"metadata": props.get("metadata"), "spec": spec}, 1.0)]
    if kind == "CronJob":
        job = as_dict(dig(spec, "jobTemplate", "spec", default={}))
        return [_template("", job.get("template"), _count(job.get("parallelism")))]
    if kind == "Job":
        return [_template("", spec.get("template"), _count(spec.get("parallelism")))]
    if kind == "DaemonSet":
        return [_template("", spec.get("template"), 1.0)]
    return [_template("", spec.get("template"), _count(spec.get("replicas")))]


def _templates_jobset(props: dict) -> list[PodTemplate]:
    out = []
    for i, rjob in enumerate(as_list(dig(props, "spec", "replicatedJobs", default=[]))):
        rjob = as_dict(rjob)
        job = as_dict(dig(rjob, "template", "spec", default={}))
        replicas, parallelism = _count(rjob.get("replicas")), _count(job.get("parallelism"))
        pods = UNKNOWN if UNKNOWN in (replicas, parallelism) else replicas * parallelism
        out.append(_template(str(rjob.get("name") or i), job.get("template"), pods))
    return out


def _templates_pytorchjob(props: dict) -> list[PodTemplate]:
    specs = as_dict(dig(props, "spec", "pytorchReplicaSpecs", default={}))
    return [_template(role, as_dict(rs).get("template"), _count(as_dict(rs).get("replicas")))
            for role, rs in sorted(specs.items())]


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
    meta = as_dict(data.get("metadata"))
    namespace = meta.get("namespace")
    return Workload(
        type=resource_type, kind=kind, urn=urn,
        name=meta["name"] if isinstance(meta.get("name"), str) else name,
        namespace=UNKNOWN if is_unknown(namespace) else (namespace or "default"),
        labels=str_map(meta.get("labels")), annotations=str_map(meta.get("annotations")),
        templates=reader(kind, data), raw_spec=as_dict(data.get("spec")),
    )


def resolve_class(workload: Workload, namespace_labels: Mapping[str, Mapping[str, Any]]) -> PoolClass | None:
    """design.md section 2: the pod template's ``nodepools.io/workload-class``
    label, else the workload's own, else its namespace's. None when unresolved
    or not one of the four classes."""
    value = workload.label(LABEL_WORKLOAD_CLASS)
    if value is None and isinstance(workload.namespace, str):
        value = as_dict(namespace_labels.get(workload.namespace)).get(LABEL_WORKLOAD_CLASS)
    try:
        return PoolClass(value)
    except ValueError:
        return None
