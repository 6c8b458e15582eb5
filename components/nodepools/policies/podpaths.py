"""Where a workload kind keeps its pod spec, so messages point at the exact field."""
from __future__ import annotations

from typing import Any, Iterator

from nodepools.inventory.values import UNKNOWN, is_unknown

from nodepools.inventory.custom_workloads import TYPE_VOLCANO_JOB
from nodepools.inventory.kserve import serves_model
from nodepools.inventory.workloads import PodTemplate, Workload
from nodepools.policies.base import subject_of
from nodepools.inventory.stack_model import WorkloadRef

_SPEC_PATH = {
    "Pod": "spec",
    "CronJob": "spec.jobTemplate.spec.template.spec",
    "JobSet": "spec.replicatedJobs[{role}].template.spec.template.spec",
    "PyTorchJob": "spec.pytorchReplicaSpecs.{role}.template.spec",
    # docs/design.md section 8: the custom resources' readers name each template by its place
    # under spec (inventory.custom_workloads) where the kind has no fixed one.
    "LeaderWorkerSet": "spec.{role}.spec",
    "RayCluster": "spec.{role}.spec",
    "RayJob": "spec.{role}.spec",
    "RayService": "spec.{role}.spec",
    "MPIJob": "spec.mpiReplicaSpecs.{role}.template.spec",
    # In the runtime the TrainJob references (Workload.template_source names it).
    "TrainJob": "spec.template.spec.replicatedJobs[{role}].template.spec.template.spec",
    "TrainingRuntime": "spec.template.spec.replicatedJobs[{role}].template.spec.template.spec",
    "ClusterTrainingRuntime": "spec.template.spec.replicatedJobs[{role}].template.spec.template.spec",
    "InferenceService": "spec.predictor",
}
# Kinds whose type token decides (Volcano's Job is a "Job" too).
_TYPE_SPEC_PATH = {TYPE_VOLCANO_JOB: "spec.tasks[{role}].template.spec"}
_DEFAULT = "spec.template.spec"
# Where kinds with several pod templates list them (a single-template kind always has one).
TEMPLATE_LISTS = {"JobSet": "spec.replicatedJobs", "PyTorchJob": "spec.pytorchReplicaSpecs",
                  "MPIJob": "spec.mpiReplicaSpecs", "LeaderWorkerSet": "spec.leaderWorkerTemplate",
                  "RayCluster": "spec.headGroupSpec", "RayService": "spec.rayClusterConfig",
                  "RayJob": "spec.rayClusterSpec", "TrainJob": "spec.runtimeRef"}
_TYPE_TEMPLATE_LISTS = {TYPE_VOLCANO_JOB: "spec.tasks"}
# Kinds that run one pod per node: node agents (device plugin, log shippers,
# exporters) that must reach GPU nodes without requesting GPUs themselves. The
# capacity rules leave them out; the toleration rules judge them outside the
# pack config's nodeAgentNamespaces (docs/design.md section 6).
NODE_AGENT_KINDS = ("DaemonSet",)


def approved_node_agent(kind: str, namespace: Any, agent_namespaces: tuple[str, ...]) -> Any:
    """A node agent in a namespace listed in nodeAgentNamespaces (its tolerations approved);
    UNKNOWN when a DaemonSet's namespace is unknown at preview."""
    if kind not in NODE_AGENT_KINDS or not agent_namespaces:
        return False
    return UNKNOWN if is_unknown(namespace) else namespace in agent_namespaces


def spec_path(workload: Workload, template: PodTemplate) -> str:
    """The pod spec's path; a TrainJob's names its runtime, or ``spec.runtimeRef`` when the
    runtime is not in the stack."""
    if workload.kind == "TrainJob" and not workload.template_source:
        return "spec.runtimeRef"
    path = _TYPE_SPEC_PATH.get(workload.type) or _SPEC_PATH.get(workload.kind, _DEFAULT)
    path = path.format(role=template.role)
    return f"{workload.template_source} {path}" if workload.template_source else path


def template_list(workload: Workload) -> str:
    """Where a kind lists its pod templates, for a workload that declares none."""
    return _TYPE_TEMPLATE_LISTS.get(workload.type) or TEMPLATE_LISTS.get(workload.kind, "spec")


def container_path(workload: Workload, path: str, key: str, index: int) -> str:
    """A container's path; an InferenceService's model is written at ``spec.predictor.model``."""
    if workload.kind == "InferenceService" and key == "containers" and index == 0 and serves_model(workload.raw_spec):
        return "spec.predictor.model"
    return f"{path}.{key}[{index}]"


def meta_path(workload: Workload, template: PodTemplate) -> str:
    """Where the pod template's metadata lives (``metadata`` for a bare Pod)."""
    path = spec_path(workload, template)
    if workload.kind == "InferenceService":
        return "spec.predictor"  # its labels and annotations sit beside the pod fields
    return path[: -len("spec")] + "metadata" if path.endswith(".spec") else "metadata"


def subject(ref: WorkloadRef) -> str:
    """Named by its metadata.name: a ConfigFile / ConfigGroup child's resource name is "<namespace>/<name>"."""
    return subject_of(ref.res.type, ref.workload.name, ref.namespace)


def templates(ref: WorkloadRef) -> Iterator[tuple[PodTemplate, str]]:
    """Each pod template with the path of its pod spec."""
    for template in ref.workload.templates:
        yield template, spec_path(ref.workload, template)
