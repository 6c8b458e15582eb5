"""Workloads from raw resource properties: every kind's pod template(s) in one shape.

Works on what the engine sends (camelCase inputs of pulumi-kubernetes
resources), so it reads user resources exactly like ours. Custom gang kinds
(JobSet, PyTorchJob and the custom resources of docs/design.md section 8:
``inventory.custom_workloads``, ``inventory.trainer``, ``inventory.kserve``) carry
several pod templates; each becomes a ``PodTemplate`` with the number of pods it
stands for. Type tokens are pulumi-kubernetes' for any object
(``kubernetes:<group>/<version>:<Kind>``), whether a typed resource, a CustomResource or
a child of a ConfigFile / ConfigGroup / Helm chart. A workload's namespace and class in its stack
are the stack model's answers (``inventory.stack_model``), never read here alone.
"""
from __future__ import annotations

from typing import Any, Callable

from nodepools.inventory.custom_workloads import CUSTOM_TYPES, read_custom
from nodepools.inventory.kserve import read_inference_service
from nodepools.inventory.pod_templates import UNKNOWN_ROLE, GangPolicy, PodTemplate, Workload, count, template
from nodepools.inventory.pod_templates import unknown_templates
from nodepools.inventory.trainer import TYPE_TRAINJOB, Runtimes, read_trainjob
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_list, known_str_map, plain
from nodepools.vocabulary import K8S_WORKLOAD_TYPES, TYPE_KSERVE_INFERENCE_SERVICE

__all__ = ["GangPolicy", "PodTemplate", "UNKNOWN_ROLE", "Workload", "is_workload_type", "read_workload"]

TYPE_JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
TYPE_PYTORCHJOB = "kubernetes:kubeflow.org/v1:PyTorchJob"
GANG_CUSTOM_TYPES = {TYPE_JOBSET: "JobSet", TYPE_PYTORCHJOB: "PyTorchJob", **CUSTOM_TYPES,
                     TYPE_TRAINJOB: "TrainJob"}
WORKLOAD_TYPES = {**K8S_WORKLOAD_TYPES, **GANG_CUSTOM_TYPES, TYPE_KSERVE_INFERENCE_SERVICE: "InferenceService"}

def _templates_standard(kind: str, props: dict) -> list[PodTemplate]:
    spec = props.get("spec")
    if kind == "Pod":
        return [template("", {"metadata": props.get("metadata"), "spec": spec}, 1.0)]
    if kind == "CronJob":
        job = dig(spec, "jobTemplate", "spec")
        return [template("", dig(job, "template"), count(dig(job, "parallelism")))]
    if kind == "Job":
        return [template("", dig(spec, "template"), count(dig(spec, "parallelism")))]
    if kind == "DaemonSet":
        return [template("", dig(spec, "template"), 1.0)]
    return [template("", dig(spec, "template"), count(dig(spec, "replicas")))]


def _templates_jobset(props: dict) -> list[PodTemplate]:
    jobs = known_list(dig(props, "spec", "replicatedJobs"))
    if is_unknown(jobs):
        return unknown_templates()
    out = []
    for i, rjob in enumerate(jobs):
        job = dig(rjob, "template", "spec")
        replicas, parallelism = count(dig(rjob, "replicas")), count(dig(job, "parallelism"))
        pods = UNKNOWN if UNKNOWN in (replicas, parallelism) else replicas * parallelism
        name = dig(rjob, "name")
        out.append(template(name if isinstance(name, str) and name else str(i), dig(job, "template"), pods))
    return out


def _templates_pytorchjob(props: dict) -> list[PodTemplate]:
    specs = dig(props, "spec", "pytorchReplicaSpecs")
    if is_unknown(specs):
        return unknown_templates()
    return [template(role, dig(rs, "template"), count(dig(rs, "replicas")))
            for role, rs in sorted(as_dict(specs).items())]


Reader = Callable[[str, str, dict, Any], tuple[list[PodTemplate], dict[str, Any]]]
_READERS: dict[str, Reader] = {
    **{t: lambda rt, kind, props, rts: (_templates_standard(kind, props), {}) for t in K8S_WORKLOAD_TYPES},
    TYPE_JOBSET: lambda rt, kind, props, rts: (_templates_jobset(props), {}),
    TYPE_PYTORCHJOB: lambda rt, kind, props, rts: (_templates_pytorchjob(props), {}),
    **{t: lambda rt, kind, props, rts: read_custom(rt, props.get("spec")) for t in CUSTOM_TYPES},
    TYPE_TRAINJOB: lambda rt, kind, props, rts: read_trainjob(props.get("spec"), _namespace(props), rts),
    TYPE_KSERVE_INFERENCE_SERVICE: lambda rt, kind, props, rts: read_inference_service(props.get("spec")),
}


def _namespace(props: dict) -> Any:
    namespace = dig(props, "metadata", "namespace")
    return UNKNOWN if is_unknown(namespace) else (namespace if isinstance(namespace, str) and namespace else "default")


def is_workload_type(resource_type: str) -> bool:
    return resource_type in WORKLOAD_TYPES


def read_workload(resource_type: str, props: Any, urn: str = "", name: str = "",
                  runtimes: Runtimes | None = None) -> Workload | None:
    """The workload in ``props`` (any shape ``values.plain`` takes), or None for other types.
    ``runtimes`` are the stack's training runtimes (``inventory.trainer.training_runtimes``):
    without them a TrainJob, read alone, has no pod template."""
    reader = _READERS.get(resource_type)
    if reader is None:
        return None
    data = as_dict(plain(props))
    kind = WORKLOAD_TYPES[resource_type]
    meta, spec = data.get("metadata"), data.get("spec")
    own_name = dig(meta, "name")
    templates, extras = reader(resource_type, kind, data, runtimes)
    return Workload(
        type=resource_type, kind=kind, urn=urn, name=own_name if isinstance(own_name, str) else name,
        namespace=_namespace(data),
        labels=known_str_map(dig(meta, "labels")), annotations=known_str_map(dig(meta, "annotations")),
        templates=templates, raw_spec=spec if is_unknown(spec) else as_dict(spec), **extras,
    )
