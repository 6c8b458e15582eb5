"""Where each cloud puts nodes close together, and which nodes it labels with their network position.

Two cited tables per cloud, pure (no SDK). The labels are the clouds' own: nodepools
never sets them, it declares them (placement, the Kueue ``Topology``) where the cloud
is sure to set them, because Kueue's topology-aware scheduling ignores every node
that lacks one of its Topology's labels (kubernetes-sigs/kueue:
pkg/util/tas/node.go ``NodeMatchesFlavor``@v0.19.2): a flavor pointing at a Topology
its nodes are not labelled for admits nothing.

- **EKS** labels a node ``topology.k8s.aws/network-node-layer-1..3`` (broadest first;
  ``-4`` on four-layer types) when EC2 reports its instance topology
  (docs.aws.amazon.com/eks/latest/userguide/ml-workload-topology.html; the AWS cloud
  controller reads EC2 DescribeInstanceTopology: kubernetes/cloud-provider-aws:
  pkg/providers/v1/instances_v2.go@v1.36.1). The instance types EC2 reports are listed
  in docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-topology-prerequisites.html
  (read 2026-12): three layers for g6e, g7e, hpc6a, hpc6id, hpc7a, hpc7g, hpc8a, p3dn,
  p4d, p4de, p5, p5e, p5en, p6e-gb200, trn1, trn1n, trn2, trn2u; four for p6-b200,
  p6-b300. The labels depend on the instance type alone, not on placement.
- **GKE** labels nodes ``cloud.google.com/gce-topology-block|subblock|host`` from the
  VM's physical host topology (cloud.google.com/ai-hypercomputer/docs/workloads/
  schedule-gke-workloads-tas, whose Topology lists exactly these, then the hostname).
  Compute Engine reports that topology for A4X, A4, A3 Ultra, A3 Mega, A3 High with 8
  GPUs and H4D machines, and for any VM with a compact placement policy
  (cloud.google.com/compute/docs/instances/view-instance-topology, "Limitations").
- **Compact placement.** EKS: a cluster placement group takes every current-generation
  type but burstable (T), Mac and flex types
  (docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-groups-limitations-cluster.html).
  GKE: compact placement policies take the C2, C2D, C3, C3D, C4A, C4D, C4N, H3, H4D, N2,
  N2D and Z4D series and the A100, L4 and H100 machines (A2, G2, A3)
  (cloud.google.com/kubernetes-engine/docs/how-to/compact-placement), and only in a node
  pool being created ("Supported only in new node pools").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from nodepools import vocabulary as v
from nodepools.spec.pool import PoolSpec
from nodepools.spec.presets import NetworkTopology, PlacementStrategy
from nodepools.vocabulary import Cloud, PoolClass, Provisioner


@dataclass(frozen=True)
class TopologyFamily:
    """One set of topology labels, and the Kueue ``Topology`` named after it. A Topology's
    levels are immutable (its CRD: ``self == oldSelf``), so a family's levels never change:
    a different set of levels is a different family with its own name."""

    name: str
    levels: tuple[str, ...]  # node labels, broadest first, kubernetes.io/hostname last

    @property
    def network_levels(self) -> tuple[str, ...]:
        """The levels the cloud sets (every level but the hostname)."""
        return self.levels[:-1]


def _aws_layers(count: int) -> tuple[str, ...]:
    return tuple(f"{v.LABEL_AWS_NETWORK_NODE_LAYER_PREFIX}{i}" for i in range(1, count + 1)) + (v.LABEL_HOSTNAME,)


AWS_THREE_LAYER = TopologyFamily("nodepools-aws-network-3", _aws_layers(3))
AWS_FOUR_LAYER = TopologyFamily("nodepools-aws-network-4", _aws_layers(4))
GKE_HOST = TopologyFamily("nodepools-gke-host", (v.LABEL_GCE_TOPOLOGY_BLOCK, v.LABEL_GCE_TOPOLOGY_SUBBLOCK,
                                                 v.LABEL_GCE_TOPOLOGY_HOST, v.LABEL_HOSTNAME))
FAMILIES = (AWS_THREE_LAYER, AWS_FOUR_LAYER, GKE_HOST)

_AWS_FAMILY_LAYERS: dict[str, TopologyFamily] = {
    **{f: AWS_THREE_LAYER for f in ("g6e", "g7e", "hpc6a", "hpc6id", "hpc7a", "hpc7g", "hpc8a", "p3dn", "p4d", "p4de",
                                    "p5", "p5e", "p5en", "p6e-gb200", "trn1", "trn1n", "trn2", "trn2u")},
    **{f: AWS_FOUR_LAYER for f in ("p6-b200", "p6-b300")},
}
# Machine types whose physical host topology Compute Engine always reports.
_GKE_TOPOLOGY_MACHINES = ("a3-highgpu-8g", "a3-megagpu-", "a3-ultragpu-", "a4-highgpu-", "a4x-", "h4d-")
_GKE_COMPACT_SERIES = frozenset({"a2", "a3", "g2", "c2", "c2d", "c3", "c3d", "c4a", "c4d", "c4n", "h3", "h4d", "n2",
                                 "n2d", "z4d"})
_AWS_NO_CLUSTER_GROUP_PREFIXES = ("t2", "t3", "t4g", "mac")


def aws_family(instance_type: str) -> str:
    """``p4d.24xlarge`` -> ``p4d``; ``p6-b200.48xlarge`` -> ``p6-b200``."""
    return instance_type.partition(".")[0]


def gke_series(machine_type: str) -> str:
    """``a2-highgpu-8g`` -> ``a2``."""
    return machine_type.partition("-")[0]


def compact_supported(cloud: Cloud, instance_type: str) -> bool:
    """The cloud can place nodes of ``instance_type`` compactly (see the module's sources)."""
    if cloud is Cloud.AWS:
        family = aws_family(instance_type)
        return not (family.startswith(_AWS_NO_CLUSTER_GROUP_PREFIXES) or family.endswith("-flex"))
    return gke_series(instance_type) in _GKE_COMPACT_SERIES


def compact_series(cloud: Cloud) -> str:
    """What ``compact_supported`` accepts, in words for error messages."""
    if cloud is Cloud.AWS:
        return "current-generation types except burstable t2/t3/t4g, mac and *-flex types"
    return ", ".join(sorted(_GKE_COMPACT_SERIES)) + " machine series"


def labelled_family(cloud: Cloud, instance_types: Iterable[str], compact: bool) -> TopologyFamily | None:
    """The topology labels every node of these instance types carries, or None when some node
    would lack them. ``compact``: the pool is sure to run under a compact placement policy
    (GKE reports the topology of such VMs whatever their machine type)."""
    types = list(instance_types)
    if not types:
        return None
    if cloud is Cloud.AWS:
        families = {_AWS_FAMILY_LAYERS.get(aws_family(t)) for t in types}
        return families.pop() if len(families) == 1 else None
    if compact or all(t.startswith(_GKE_TOPOLOGY_MACHINES) for t in types):
        return GKE_HOST
    return None


def labelled_machines(cloud: Cloud) -> str:
    """Where the cloud sets its topology labels, in words for plan notes and errors."""
    if cloud is Cloud.AWS:
        return ("the instance types EC2 reports a topology for (g6e, g7e, hpc*, p3dn, p4d, p4de, p5, p5e, p5en, "
                "p6-b200, p6-b300, p6e-gb200, trn1, trn1n, trn2, trn2u)")
    return "A3 8-GPU, A3 Mega, A3 Ultra, A4, A4X and H4D machines, and pools with placement 'compact'"


def is_topology_label(key: str) -> bool:
    """A network-topology node label one of the clouds sets per node."""
    return key.startswith(v.LABEL_AWS_NETWORK_NODE_LAYER_PREFIX) or key in GKE_HOST.network_levels


@dataclass(frozen=True)
class PlacementChoice:
    """How a pool's nodes are placed. ``by_default``: the ``auto`` default chose compact, so
    it is set only when the pool is created (the backends ignore later changes of the
    fields it sets: on GKE compact placement exists only for new pools, on EKS the one
    subnet a placement group needs would replace the node group)."""

    compact: bool
    by_default: bool
    reason: str


def choose_placement(spec: "PoolSpec", cloud: Cloud) -> PlacementChoice:
    """``spec.placement`` resolved for ``cloud`` (the backends narrow an ``auto`` compact
    pool to one zone, and fall back to spread when they know none)."""
    if spec.placement is PlacementStrategy.COMPACT:
        return PlacementChoice(True, False, "compact (placement: compact)")
    if spec.placement is PlacementStrategy.SPREAD:
        return PlacementChoice(False, False, "spread (placement: spread)")
    if spec.pool_class is not PoolClass.GPU_TRAINING:
        return PlacementChoice(False, False, f"spread (the default for {spec.pool_class.value} pools)")
    if spec.provisioner is Provisioner.KARPENTER:
        return PlacementChoice(False, False, "spread (Karpenter launches its nodes without a placement group)")
    if spec.max_nodes <= 1:
        return PlacementChoice(False, False, "spread (a pool of one node)")
    unsupported = [t for t in spec.instance_types if not compact_supported(cloud, t)]
    if unsupported:
        return PlacementChoice(False, False, f"spread ({', '.join(unsupported)} cannot be placed compactly)")
    return PlacementChoice(True, True, "compact (the default for multi-node gpu-training pools, set when the pool "
                                       "is created: a pool that already exists keeps its placement)")


def pool_topology(spec: "PoolSpec", cloud: Cloud) -> TopologyFamily | None:
    """The topology labels every node of a gpu-training pool carries (its flavor's Kueue
    Topology), or None. On GKE a pool whose machine type reports no topology of its own
    counts only with ``placement: compact`` asked for explicitly: the default compact
    placement is not applied to a pool that already exists, whose nodes would then lack
    the labels and be invisible to the Topology."""
    if spec.pool_class is not PoolClass.GPU_TRAINING or spec.network_topology is NetworkTopology.OFF:
        return None
    return labelled_family(cloud, spec.instance_types, spec.placement is PlacementStrategy.COMPACT)
