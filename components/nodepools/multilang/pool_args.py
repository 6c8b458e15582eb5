"""The pool arguments other languages send: ``PoolSpec`` as plain, annotated types.

No ``from __future__ import annotations`` here or in any module of this package:
``pulumi.provider.experimental``'s analyser reads the annotations as objects
(``inspect.get_annotations`` without evaluation) and the field docstrings from
the source, which become the schema's descriptions. Values a ``PoolSpec`` takes
as enums are plain strings, so a bad value fails in ``PoolSpec`` with the Python
API's own message rather than in the SDK's enum check. Field names equal
``PoolSpec``'s, so the arguments convert by name (``nodepools.multilang.convert``).
"""
from typing import TypedDict

from typing_extensions import NotRequired


class Taint(TypedDict):
    """A node taint in Kubernetes spelling."""

    key: str
    """The taint's key, e.g. `example.com/team`."""
    value: NotRequired[str]
    """The taint's value."""
    effect: NotRequired[str]
    """One of NoSchedule, PreferNoSchedule, NoExecute."""


class Gpu(TypedDict):
    """The GPU of every node of a pool; derived from the instance table when omitted."""

    model: str
    """One of nvidia-t4, nvidia-a10g, nvidia-l4, nvidia-l40s, nvidia-a100, nvidia-a100-80gb, nvidia-h100."""
    count_per_node: int
    """GPUs per node."""


class CustomCapacity(TypedDict):
    """Per-node capacity of an instance type that is not in the instance table."""

    vcpu: int
    """vCPUs per node."""
    memory_gib: float
    """Memory per node in GiB."""
    architecture: NotRequired[str]
    """One of x86_64, arm64."""
    gpu_count: NotRequired[int]
    """GPUs per node."""
    gpu_model: NotRequired[str]
    """The GPU model, one of nvidia-t4, nvidia-a10g, nvidia-l4, nvidia-l40s, nvidia-a100, nvidia-a100-80gb,
    nvidia-h100. Default: none."""


class KarpenterOptions(TypedDict):
    """Options of a Karpenter pool (provisioner karpenter)."""

    on_demand_fallback: NotRequired[bool]
    """A spot batch or gpu-training pool may also launch on-demand nodes when spot has no capacity."""
    expire_after_hours: NotRequired[int]
    """Node lifetime (the NodePool's expireAfter), in hours."""


class GpuSharing(TypedDict):
    """How a gpu-inference pool shares its GPUs."""

    mode: NotRequired[str]
    """One of none (one whole GPU per request), time-slicing, mig."""
    replicas: NotRequired[int]
    """Shares per GPU for mode time-slicing. Default: none."""
    profile: NotRequired[str]
    """The MIG profile for mode mig (one per pool, e.g. 1g.10gb; it must exist for the pool's GPU). Default: none."""


class Warm(TypedDict):
    """Spare replica-shaped capacity a gpu-inference pool keeps ready."""

    replicas: int
    """Spare replicas kept ready, at most what the pool holds at maxNodes."""
    gpus_per_replica: NotRequired[int]
    """Units of the pool's GPU resource per replica (exactly 1 on a time-sliced or MIG pool)."""
    cpu_millicores: NotRequired[int]
    """cpu requested per replica, in millicores, at most one node's. Default: none."""
    memory_mib: NotRequired[int]
    """Memory requested per replica, in MiB, at most one node's. Default: none."""


class EksRepairOptions(TypedDict):
    """How an EKS managed node group repairs (of each pair, a count or a percentage)."""

    max_unhealthy_node_threshold_count: NotRequired[int]
    """Repairs stop above this many unhealthy nodes. Default: EKS's."""
    max_unhealthy_node_threshold_percentage: NotRequired[int]
    """Repairs stop above this percentage of unhealthy nodes. Default: EKS's."""
    max_parallel_nodes_repaired_count: NotRequired[int]
    """At most this many nodes repaired at once. Default: EKS's."""
    max_parallel_nodes_repaired_percentage: NotRequired[int]
    """At most this percentage of unhealthy nodes repaired at once. Default: EKS's."""


class Repair(TypedDict):
    """Node auto-repair of a pool."""

    mode: NotRequired[str]
    """One of auto (on for GPU pools, the provider's default elsewhere), on, off."""
    eks: NotRequired[EksRepairOptions]
    """The EKS managed node group's repair settings (EKS only). Default: none."""


class Pool(TypedDict):
    """One node pool. Its capacity, min and max nodes and disk size default from its class's preset
    (each of those properties states its default per class)."""

    name: str
    """The pool's name, unique in the cluster; it is the nodepools.io/pool node label."""
    pool_class: str
    """The workload class, one of resident, batch, gpu-inference, gpu-training."""
    instance_types: list[str]
    """Instance (EKS) or machine (GKE) types of the same shape."""
    capacity: NotRequired[str]
    """One of on-demand, spot."""
    min_nodes: NotRequired[int]
    """Fewest nodes."""
    max_nodes: NotRequired[int]
    """Most nodes."""
    gpu: NotRequired[Gpu]
    """The nodes' GPU. Default: derived from the instance types."""
    disk_size_gib: NotRequired[int]
    """Root disk size in GiB."""
    zones: NotRequired[list[str]]
    """Zones for the nodes. Default: the cluster's."""
    subnet_ids: NotRequired[list[str]]
    """Subnet IDs for the nodes (EKS). Default: the cluster's subnetIds."""
    labels: NotRequired[dict[str, str]]
    """Extra node labels; the contract labels (nodepools.io/*) are always set. Default: none."""
    taints: NotRequired[list[Taint]]
    """Extra node taints, after the class and GPU taints. Default: none."""
    dedicated: NotRequired[bool]
    """Add the class taint to a resident pool (other classes always carry it)."""
    placement: NotRequired[str]
    """One of auto (compact for a gpu-training pool of more than one node whose instance type allows it, set
    when the pool is created; spread otherwise), spread, compact."""
    custom_capacity: NotRequired[dict[str, CustomCapacity]]
    """Capacity of instance types missing from the instance table, by type name. Default: none."""
    provisioner: NotRequired[str]
    """How the nodes are provisioned, one of managed (an EKS managed node group), karpenter (a Karpenter
    NodePool and EC2NodeClass, EKS only)."""
    karpenter: NotRequired[KarpenterOptions]
    """Options of a Karpenter pool. Default: none (Karpenter's defaults as documented on KarpenterOptions)."""
    gpu_sharing: NotRequired[GpuSharing]
    """How a gpu-inference pool shares its GPUs. Default: none (whole GPUs)."""
    network_topology: NotRequired[str]
    """gpu-training pools only: one of auto (the pool's Kueue flavor points at the cloud's Topology where the
    cloud labels every node with its network position), off. Default: auto for gpu-training."""
    warm: NotRequired[Warm]
    """Spare replicas kept ready on a gpu-inference pool (a CapacityBuffer or placeholder pods). Default: none."""
    repair: NotRequired[Repair]
    """Node auto-repair. Default: mode auto (on for GPU pools)."""
