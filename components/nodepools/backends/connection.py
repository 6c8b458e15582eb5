"""What a cluster's settings resolve to: ``backends.aws.cluster`` and ``backends.gcp.cluster`` return this."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import pulumi
import pulumi_kubernetes as k8s
from pulumi.output import UNKNOWN

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


class PlannedTarget:
    """The pools' target on a cluster, built before the cluster registers so the stack can
    check every pool against it first, and then used as it is: the ``ValidatedPlatform`` of
    that check is tied to this very target. What only the created cluster knows (its name
    as an output, its OIDC provider, its security group) are deferred outputs (``pulumi.
    deferred_output``), resolved by ``bind`` once the cluster is registered.

    ``build(**values)`` makes the target from ``values`` (each a deferred output, or the
    config's own value in ``known``); ``target`` raises what ``build`` raises (a bad
    config value as a pydantic ValidationError) and registers nothing.
    """

    def __init__(self, build: Callable[..., ClusterTarget], deferred: tuple[str, ...] = (),
                 known: dict[str, Any] | None = None) -> None:
        self._build = build
        self._known = dict(known or {})
        pairs = {key: pulumi.deferred_output() for key in deferred}
        self._deferred = {key: output for key, (output, _) in pairs.items()}
        self._resolvers = {key: resolve for key, (_, resolve) in pairs.items()}

    @cached_property
    def target(self) -> ClusterTarget:
        return self._build(**self._known, **self._deferred)

    def bind(self, **values: Any) -> ClusterTarget:
        """Resolve every deferred value from the registered cluster's ``values``; the target."""
        if set(values) != set(self._resolvers):
            raise TypeError(f"bind needs exactly {sorted(self._resolvers)}, got {sorted(values)}")
        for key, resolve in self._resolvers.items():
            resolve(pulumi.Output.from_input(values[key]))
        self._resolvers = {}
        return self.target

    def connect(self, register: Callable[[], ClusterConnection]) -> ClusterConnection:
        """``register()`` (which creates or attaches the cluster and calls ``bind``); should it
        fail, nothing may wait for a cluster that will not register."""
        try:
            return register()
        except BaseException:
            self.abandon()
            raise

    def abandon(self) -> None:
        """The cluster will not register (its config was refused): resolve every deferred
        value as unknown, so nothing waits for it and the program ends with its error."""
        for resolve in self._resolvers.values():
            resolve(pulumi.Output.from_input(UNKNOWN))
        self._resolvers = {}
