"""Where a workload kind keeps its pod spec, so messages point at the exact field."""
from __future__ import annotations

from typing import Any, Iterator

from nodepools.inventory.values import UNKNOWN, is_unknown

from nodepools.inventory.workloads import PodTemplate, Workload
from nodepools.policies.base import subject_of
from nodepools.policies.stack_view import WorkloadRef

_SPEC_PATH = {
    "Pod": "spec",
    "CronJob": "spec.jobTemplate.spec.template.spec",
    "JobSet": "spec.replicatedJobs[{role}].template.spec.template.spec",
    "PyTorchJob": "spec.pytorchReplicaSpecs.{role}.template.spec",
}
_DEFAULT = "spec.template.spec"
# Where kinds with several pod templates list them (a single-template kind always has one).
TEMPLATE_LISTS = {"JobSet": "spec.replicatedJobs", "PyTorchJob": "spec.pytorchReplicaSpecs"}
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
    return _SPEC_PATH.get(workload.kind, _DEFAULT).format(role=template.role)


def meta_path(workload: Workload, template: PodTemplate) -> str:
    """Where the pod template's metadata lives (``metadata`` for a bare Pod)."""
    path = spec_path(workload, template)
    return path[: -len("spec")] + "metadata" if path != "spec" else "metadata"


def subject(ref: WorkloadRef) -> str:
    return subject_of(ref.res.type, ref.res.name, ref.namespace)


def templates(ref: WorkloadRef) -> Iterator[tuple[PodTemplate, str]]:
    """Each pod template with the path of its pod spec."""
    for template in ref.workload.templates:
        yield template, spec_path(ref.workload, template)
