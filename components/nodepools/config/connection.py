"""What a stack's cluster settings resolve to: ``config.eks`` and ``config.gke`` return this."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from nodepools.backends.base import ClusterTarget


@dataclass
class ClusterConnection:
    """A cluster the stack created or attached to.

    ``target`` builds node pools on it, ``provider`` (a Kubernetes provider wired
    from the cluster's outputs, or from the deployer's kubeconfig context when
    attached that way) deploys in-cluster objects, ``cluster`` is the created
    cluster resource (None when attached) and ``outputs`` what the stack exports
    about the cluster.
    """

    target: ClusterTarget
    provider: k8s.Provider
    cluster: pulumi.CustomResource | None
    outputs: dict[str, Any] = field(default_factory=dict)


def kubernetes_provider(cluster_name: str, opts: pulumi.ResourceOptions | None, *, kubeconfig: Any = None,
                        context: str | None = None,
                        cluster: pulumi.Resource | None = None) -> k8s.Provider:
    """The stack's Kubernetes provider (``<cluster>-k8s``, server-side apply): the
    deployer's kubeconfig ``context`` when given, else ``kubeconfig``; it waits for
    ``cluster`` when the stack created it."""
    if cluster is not None:
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[cluster]))
    source = {"context": context} if context is not None else {"kubeconfig": kubeconfig}
    return k8s.Provider(f"{cluster_name}-k8s", enable_server_side_apply=True, opts=opts, **source)
