"""What a stack's cluster settings resolve to: the backends' ``cluster.py`` return this."""
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
