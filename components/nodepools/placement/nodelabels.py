"""The labels a node of a pool carries, as the scheduler will see them.

``PoolView.labels`` holds what the pool declares plus what the cloud sets from
the pool itself (node group / node pool name, capacity type, instance type).
Every node also carries labels the kubelet and cloud set per node, whose values
differ between nodes of one pool (hostname, zone, region): those are *present*
with an unknown value, so ``Exists`` on them is judged and ``In`` is not.

Keys under a cloud's own prefix that the reader does not model (e.g.
``cloud.google.com/machine-family``) and under the prefixes the pack config's
``nodeLabelSources`` names (agents that label nodes at run time: NFD's
``feature.node.kubernetes.io/``, GPU feature discovery's ``nvidia.com/gpu.``)
are *undecided* rather than absent. Any other key the pool does not declare is
absent: ``In``/``Exists`` on it fail, ``NotIn``/``DoesNotExist`` hold
(docs/design.md section 6). ``why_unknown`` says which value could not be known.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from nodepools import vocabulary as v
from nodepools.clouds.topology import is_topology_label
from nodepools.inventory.pools import PoolView
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.inventory.tri import Tri

LABEL_OS, LABEL_HOSTNAME, LABEL_REGION = v.LABEL_OS, v.LABEL_HOSTNAME, v.LABEL_REGION
# Deprecated aliases the kubelet / cloud node manager still set beside the stable keys.
_BETA_ALIASES = {
    "beta.kubernetes.io/os": LABEL_OS,
    "beta.kubernetes.io/arch": v.LABEL_ARCH,
    "beta.kubernetes.io/instance-type": v.LABEL_INSTANCE_TYPE,
    "failure-domain.beta.kubernetes.io/zone": v.LABEL_ZONE,
    "failure-domain.beta.kubernetes.io/region": LABEL_REGION,
}
# Present on every node, value per node (or per instance type of a mixed pool).
_PER_NODE = (LABEL_HOSTNAME, v.LABEL_ZONE, LABEL_REGION, v.LABEL_INSTANCE_TYPE, v.LABEL_ARCH, LABEL_OS)
# Prefixes under which the cloud adds labels the pool reader does not model.
_OPEN_PREFIXES = {
    v.TYPE_EKS_NODE_GROUP: ("eks.amazonaws.com/", "topology.ebs.csi.aws.com/"),
    v.TYPE_GKE_NODE_POOL: ("cloud.google.com/", "topology.gke.io/"),
    # Karpenter labels every node with its instance's karpenter.k8s.aws/* facts.
    v.TYPE_KARPENTER_NODE_POOL: ("karpenter.k8s.aws/", "karpenter.sh/", "topology.ebs.csi.aws.com/"),
}
# Keys the reader models exactly: their absence is definite.
_MODELLED = frozenset({v.LABEL_EKS_NODEGROUP, v.LABEL_EKS_CAPACITY_TYPE, v.LABEL_GKE_NODEPOOL, v.LABEL_GKE_SPOT,
                       v.LABEL_GKE_ACCELERATOR, v.LABEL_GPU_PRESENT})


@dataclass(frozen=True)
class NodeLabels:
    """Label lookup for one (any) node of a pool."""

    known: Mapping[str, Any]  # key -> value, or UNKNOWN when present with a per-node value
    open_prefixes: tuple[str, ...] = ()
    partial: bool = False  # the pool's own label map is unknown: any key may be present
    sources: tuple[str, ...] = ()  # nodeLabelSources prefixes (part of open_prefixes)

    def lookup(self, key: str) -> tuple[Tri, Any]:
        """(present, value): present is True/False/UNKNOWN; value UNKNOWN unless known."""
        if key in self.known:
            return True, self.known[key]
        if self.partial or (key not in _MODELLED and key.startswith(self.open_prefixes)):
            return UNKNOWN, UNKNOWN
        return False, None

    def why_unknown(self, key: str) -> str:
        """Which value preview cannot know when ``lookup(key)`` is undecided."""
        if key in self.known:
            if key == LABEL_HOSTNAME:
                return f"node label {key} is each node's own identity"
            if key in _PER_NODE or key in _BETA_ALIASES or is_topology_label(key):
                return f"node label {key} is set per node at run time"
            return f"the pool's label {key} is unknown until the update runs"
        source = next((p for p in self.sources if key.startswith(p)), None)
        if source is not None:
            return f"node label {key} is added at run time by an agent (nodeLabelSources '{source}')"
        if self.partial:
            return f"the pool's labels are unknown until the update runs, so {key} may be among them"
        return f"node label {key} is one the cloud sets per node"


def node_labels(pool: PoolView, sources: tuple[str, ...] = ()) -> NodeLabels:
    known: dict[str, Any] = dict(pool.labels)
    if not is_unknown(pool.os):
        known.setdefault(LABEL_OS, pool.os)
    for key in _PER_NODE:
        known.setdefault(key, UNKNOWN)
    for alias, stable in _BETA_ALIASES.items():
        known.setdefault(alias, known[stable])
    prefixes = _OPEN_PREFIXES.get(pool.type, ()) + tuple(sources)
    return NodeLabels(known, prefixes, pool.labels_partial, tuple(sources))
