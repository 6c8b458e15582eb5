"""Which node labels a pool may give its nodes: the kubelet's rules.

A node labels itself (EKS and GKE pass a pool's labels to the kubelet's
``--node-labels``). In the ``kubernetes.io`` and ``k8s.io`` namespaces (and their
subdomains: ``node-role.kubernetes.io``, ``app.kubernetes.io``) the kubelet refuses
every key except the ``kubelet.kubernetes.io`` and ``node.kubernetes.io`` namespaces and
its own well-known labels, and the NodeRestriction admission refuses the same keys on
a node's own Node object (kubernetes/kubernetes:
staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go ``IsKubeletLabel`` and
cmd/kubelet/app/options/options.go ``ValidateKubeletFlags``,
@e319c541f144e9bee6160f1dd8671638a9029f4c; plugin/pkg/admission/noderestriction).
The well-known labels the kubelet may set (hostname, zone, region, instance type, os,
arch) it sets from the node itself: one value for a whole pool would be false on
all but one node, or on all of them.
"""
from __future__ import annotations

from nodepools import vocabulary as v

_KUBERNETES_DOMAINS = ("kubernetes.io", "k8s.io")
_NODE_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
# kubeletLabels of well_known_labels.go: set by the kubelet (or the cloud) per node.
PER_NODE_LABELS = frozenset({
    v.LABEL_HOSTNAME, v.LABEL_ZONE, v.LABEL_REGION, v.LABEL_INSTANCE_TYPE, v.LABEL_OS, v.LABEL_ARCH,
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type", "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
})


def _in(domain: str, namespaces: tuple[str, ...]) -> bool:
    return any(domain == n or domain.endswith(f".{n}") for n in namespaces)


def node_label_error(key: str) -> str | None:
    """None when a pool may set ``key`` on its nodes, else why not (the key is quoted)."""
    if key in PER_NODE_LABELS:
        return f"label {key!r} is set by the kubelet from each node itself; as a pool label every node would " \
               "carry one value: remove it"
    domain = key.rpartition("/")[0]
    if _in(domain, _KUBERNETES_DOMAINS) and not _in(domain, _NODE_NAMESPACES):
        return (f"label {key!r} is in the kubernetes.io and k8s.io namespaces, where a node may set only "
                "kubelet.kubernetes.io/*, node.kubernetes.io/* and the kubelet's own labels (the kubelet refuses "
                "it in --node-labels, the NodeRestriction admission on its Node): use a prefix of your own "
                "(e.g. example.com/role)")
    return None
