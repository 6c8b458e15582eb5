"""The typed outputs of the platform components, in the schema's own spelling.

The provider host maps Python names to schema names only for a top-level output
of a named type; values inside maps and lists are sent as they are, so
``pool_outputs`` builds them with the schema's camelCase keys (Kubernetes
spelling, ready to paste into a pod spec).
"""
from typing import Any, NamedTuple, Optional

import pulumi
import pulumi_kubernetes as k8s

from nodepools.backends.base import ClusterTarget
from nodepools.components.platform import Platform, PlatformArgs


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


class PlatformPool:
    """One pool of the platform as workloads see it."""

    pool_class: str
    """The pool's workload class: resident, batch, gpu-inference or gpu-training."""
    labels: dict[str, str]
    """Every label the pool's nodes carry: the contract labels, the cloud's, and the pool's own."""
    taints: list[NodeTaint]
    """Every taint the pool's nodes carry: the class taint, the GPU taint, then the pool's own."""
    contract: PoolContract
    """The workload contract: tolerations, affinity and nodeSelector for pods of this pool."""


def pool_outputs(platform: Platform) -> dict[str, Any]:
    """Pool name -> ``PlatformPool`` as the schema spells it (plain dicts: see the module's docstring)."""
    return {name: {
        "poolClass": pool.spec.pool_class.value,
        "labels": dict(pool.node_labels),
        "taints": [dict(t) for t in pool.node_taints],
        "contract": pool.contract.as_dict(),
    } for name, pool in platform.pools.items()}


class PlatformOutputs(NamedTuple):
    pools: pulumi.Output[dict[str, Any]]
    namespaces: pulumi.Output[dict[str, str]]
    local_queues: pulumi.Output[dict[str, str]]


def build_platform(component: pulumi.ComponentResource, name: str, target: ClusterTarget, spec: PlatformArgs,
                   k8s_provider: k8s.Provider) -> PlatformOutputs:
    """The ``Platform`` as ``component``'s child and the typed outputs both clouds' components
    expose, registered on ``component``."""
    platform = Platform(name, target, spec, k8s_provider, opts=pulumi.ResourceOptions(parent=component))
    outputs = PlatformOutputs(pulumi.Output.from_input(pool_outputs(platform)),
                              pulumi.Output.from_input(platform.guardrails.namespaces),
                              pulumi.Output.from_input(platform.guardrails.local_queues))
    component.register_outputs({"pools": outputs.pools, "namespaces": outputs.namespaces,
                                "localQueues": outputs.local_queues})
    return outputs
