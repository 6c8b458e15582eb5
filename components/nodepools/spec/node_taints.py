"""Which taints a pool may give its nodes: none that a controller owns.

Controllers put some taints on nodes and take them off again (the node lifecycle
controller, the kubelet, the cloud controller manager, cluster-autoscaler, Karpenter;
``vocabulary.CONTROLLER_TAINTS``). As a pool taint such a key lies twice: the
controller removes it from a healthy node (``node.kubernetes.io/unschedulable`` goes
when the node is schedulable), so the pool's workload contract names a toleration
for a taint its nodes do not carry; or it keeps it and reads the node as not ready,
cordoned or being deleted, and cluster-autoscaler leaves such taints out of a group's
template node (its ``SanitizeTaints``). A taint of one's own prefix says the same
thing and stays.
"""
from __future__ import annotations

from nodepools import vocabulary as v


def controller_taint_error(key: str) -> str | None:
    """None when a pool may taint its nodes with ``key``, else why not (the key is quoted)."""
    who = v.CONTROLLER_TAINTS.get(key) or next(
        (f"{owner}, whose taints are the {prefix}* keys" for prefix, owner in v.CONTROLLER_TAINT_PREFIXES.items()
         if key.startswith(prefix)), None)
    if who is None:
        return None
    return (f"taint {key!r} is put on nodes and taken off again by {who}: as a pool taint it would be removed "
            "or misread as a node condition; use a key of your own prefix (e.g. example.com/dedicated)")
