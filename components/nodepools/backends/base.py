"""The seam between the thin components and the per-cloud backends.

A *cluster target* (``nodepools.backends.aws.EksCluster``,
``nodepools.backends.gcp.GkeCluster``) knows one existing or new cluster and
turns a validated, cloud-neutral ``PoolSpec`` into that cloud's provider
resources. Components call only this protocol, so no ``if cloud ==`` exists
outside the backends.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import pulumi

from nodepools.spec.model import DEFERRED
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud


def at_the_gate(value: Any) -> Any:
    """``value`` as the rules see it: an output of another resource (or any awaitable) is
    ``DEFERRED``, known only once that resource exists; anything else as given."""
    if isinstance(value, pulumi.Output) or inspect.isawaitable(value):
        return DEFERRED
    return value


@dataclass
class RegisteredPool:
    """What a backend registered for one pool."""

    # The provider node pool resource (aws.eks.NodeGroup / gcp.container.NodePool).
    resource: pulumi.CustomResource
    # Every other resource registered for the pool (launch template, ASG tags, IAM, ...).
    extras: list[pulumi.Resource] = field(default_factory=list)
    # Node labels as the cloud will set them (contract labels plus cloud-specific ones).
    node_labels: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class ClusterTarget(Protocol):
    cloud: Cloud

    @property
    def cluster_name(self) -> pulumi.Input[str]: ...

    def check_pool(self, spec: PoolSpec) -> None:
        """Raise a pydantic ValidationError for cloud-specific problems, before anything registers."""

    def register_pool(self, spec: PoolSpec, parent: pulumi.Resource) -> RegisteredPool:
        """Register the pool's provider resources as children of ``parent``. ``spec`` has
        passed ``check_pool`` on this target: the caller checks once, the backend trusts it."""

    def check_cluster_autoscaler_identity(self, namespace: str, service_account: str) -> None:
        """Raise a ValidationError when the autoscaler identity cannot be made, so a
        composing component can refuse before anything registers."""

    def register_cluster_autoscaler_identity(self, namespace: str, service_account: str,
                                             parent: pulumi.Resource) -> pulumi.Output[str] | None:
        """The cloud identity (e.g. an IRSA role ARN) the cluster-autoscaler's service
        account assumes, registered under ``parent``; None where the cloud runs its own
        autoscaler (GKE)."""
