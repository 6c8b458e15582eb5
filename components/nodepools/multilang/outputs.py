"""The typed outputs of the platform components, in the schema's own spelling.

The provider host maps Python names to schema names only for a top-level output
of a named type; values inside maps and lists are sent as they are, so
``pool_outputs`` builds them with the schema's camelCase keys (Kubernetes
spelling, ready to paste into a pod spec).
"""
from typing import Any, Optional

from nodepools.components.platform import Platform


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
