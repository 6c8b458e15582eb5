"""``PoolOutputs``: what a pool tells the workloads that use it, in one spelling everywhere.

The ``NodePool`` component's registered outputs, the stack program's ``pools[<name>]``
export (read by app stacks through a StackReference), the multi-language components'
``pools`` output (this class is the schema's type: its field names, camelCased, are the
keys) and the plan's pools table are all this one shape, built by ``pool_outputs`` and
written by ``as_dict`` with camelCase keys (Kubernetes spelling, ready to paste into a
pod spec). Read back with ``PoolOutputs.from_dict``.

The annotations describe the wire shape, which is what the multi-language schema is built
from (no ``from __future__ import annotations`` here: the component provider reads them as
types); ``node_taints`` and ``contract`` hold that shape as plain dicts.
"""
import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from nodepools.spec.contract import WorkloadContract
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import memory_per_slot_gib


def camel(name: str) -> str:
    """``node_labels`` -> ``nodeLabels`` (the component provider's own rule for schema names)."""
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


class Toleration:
    """A toleration of exactly one of the pool's hard taints."""

    key: str
    """The taint's key."""
    operator: str
    """Equal (the taint has a value) or Exists (it has none)."""
    value: Optional[str]
    """The taint's value; absent with operator Exists."""
    effect: str
    """The taint's effect: NoSchedule or NoExecute."""


class NodeTaint:
    """A taint the pool's nodes carry."""

    key: str
    """The taint's key."""
    value: Optional[str]
    """The taint's value; absent when empty."""
    effect: str
    """NoSchedule, PreferNoSchedule or NoExecute."""


class PoolContract:
    """What a pod needs to land on the pool, in Kubernetes spelling."""

    tolerations: list[Toleration]
    """Tolerations for exactly the pool's hard taints (never a blanket toleration)."""
    affinity: Any
    """A Kubernetes Affinity whose nodeAffinity requires the pool's nodepools.io/pool label."""
    node_selector: dict[str, str]
    """A nodeSelector pinning the pod to the pool."""


@dataclass(frozen=True)
class PoolGpu:
    """The GPUs of one node of a GPU pool and how a pod asks for them."""

    model: str
    """The GPU model, e.g. nvidia-l4 (the nodepools.io/accelerator label)."""
    count_per_node: int
    """Physical GPUs per node."""
    resource: str
    """The extended resource a pod requests for one GPU or one share of one: nvidia.com/gpu, or
    nvidia.com/mig-<profile> on a MIG pool (EKS)."""
    sharing: str
    """How the GPUs are shared: none, time-slicing or mig."""
    memory_gib_per_request: Optional[int]
    """GPU memory one request gets, in GiB: the MIG slice's, else the whole GPU's."""


@dataclass(frozen=True)
class PoolOutputs:
    """One pool as workloads see it."""

    pool_name: str
    """The pool's name (its nodes' nodepools.io/pool label)."""
    pool_class: str
    """The pool's workload class: resident, batch, gpu-inference or gpu-training."""
    provisioner: str
    """What builds its nodes: managed (an EKS node group or GKE node pool) or karpenter."""
    capacity: str
    """on-demand or spot."""
    min_nodes: Optional[int]
    """The fewest nodes it keeps; absent for a Karpenter pool (Karpenter keeps no minimum)."""
    max_nodes: int
    """The most nodes it grows to."""
    instance_types: list[str]
    """The instance (machine) types its nodes may have."""
    gpu: Optional[PoolGpu]
    """Its GPUs; absent for a CPU pool."""
    node_labels: dict[str, str]
    """Every label the pool's nodes carry: the contract labels, the cloud's, and the pool's own."""
    node_taints: list[NodeTaint]
    """Every taint the pool's nodes carry: the class taint, the GPU taint, then the pool's own (Kubernetes shape)."""
    contract: PoolContract
    """The workload contract: tolerations, affinity and nodeSelector for pods of this pool."""

    def as_dict(self) -> dict[str, Any]:
        """camelCase keys, plain values (what the engine stores and a StackReference returns)."""
        out = {camel(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.gpu is not None:
            out["gpu"] = {camel(f.name): getattr(self.gpu, f.name) for f in dataclasses.fields(self.gpu)}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PoolOutputs":
        """Read ``as_dict``'s shape back (a stack's outputs; absent keys read as None). Numbers
        arrive from the engine as floats (protobuf Struct): whole ones are ints again."""
        gpu = data.get("gpu")
        values = {f.name: _whole(data.get(camel(f.name))) for f in dataclasses.fields(cls)}
        if isinstance(gpu, Mapping):
            values["gpu"] = PoolGpu(**{f.name: _whole(gpu.get(camel(f.name))) for f in dataclasses.fields(PoolGpu)})
        return cls(**values)


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def pool_outputs(spec: PoolSpec, contract: WorkloadContract, node_labels: Mapping[str, str]) -> PoolOutputs:
    """The outputs of the pool ``spec``, whose nodes carry ``node_labels`` (the backend's,
    cloud labels included) and whose pods follow ``contract``."""
    gpu = None
    if spec.has_gpu and spec.gpu_model is not None and contract.gpu_resource is not None:
        gpu = PoolGpu(spec.gpu_model.value, spec.gpus_per_node, contract.gpu_resource, spec.gpu_sharing.mode.value,
                      memory_per_slot_gib(spec))
    return PoolOutputs(
        pool_name=spec.name, pool_class=spec.pool_class.value, provisioner=spec.provisioner.value,
        capacity=spec.capacity.value, min_nodes=None if is_karpenter(spec) else spec.min_nodes,
        max_nodes=spec.max_nodes, instance_types=list(spec.instance_types), gpu=gpu, node_labels=dict(node_labels),
        node_taints=[t.as_k8s() for t in spec.node_taints], contract=contract.as_dict())
