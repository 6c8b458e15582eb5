"""The nodes an attached cluster already runs its add-ons on (docs/design.md section 9).

A brownfield cluster has system nodes nodepools does not own (an EKS managed node
group, GKE's default pool, a platform team's own pool). Naming them with a
``node_selector`` (and the ``tolerations`` their taints need) lets a platform
declare no resident pool: the add-ons nodepools installs (cluster-autoscaler,
Kueue, Karpenter) are scheduled there, and GPU-only, batch-only or training-only
platforms become valid.

A selector that matches the labels of one of the platform's own pools selects
that pool: it must then be a resident pool (add-ons never run on batch or GPU
nodes), and its taints are tolerated automatically. A selector on a
``nodepools.io/`` label that no pool carries selects nothing this platform
builds, so it is refused rather than leaving the add-ons Pending.
"""
from __future__ import annotations

from typing import Any, Literal, Sequence

from pydantic import Field, model_validator

from nodepools import vocabulary as v
from nodepools.spec.errors import Problems
from nodepools.spec.model import StrictModel, WholeNumber
from nodepools.spec.syntax import label_key_error, label_value_error
from nodepools.vocabulary import PoolClass, TaintEffect

NODEPOOLS_LABEL_PREFIX = "nodepools.io/"
# Where a user sets it: the stack config key and the Python argument.
WHERE = "nodepools:cluster.system_nodes in a stack's config, PlatformArgs.system_nodes in Python"


class Toleration(StrictModel):
    """A toleration in Kubernetes spelling (snake_case fields). ``operator`` defaults to
    ``Equal``; ``effect`` unset tolerates every effect of the key."""

    key: str
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str = ""
    effect: TaintEffect | None = None
    toleration_seconds: WholeNumber | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _check(self) -> "Toleration":
        problems = Problems()
        if why := label_key_error(self.key):
            # An empty key with Exists tolerates every taint, GPU and spot pools included.
            problems.add("key", f"{why}; a toleration must name the taint's key (never a blanket toleration)",
                         self.key)
        if self.operator == "Exists" and self.value:
            problems.add("value", "operator 'Exists' takes no value (allowed operators: Equal, Exists)", self.value)
        elif why := label_value_error(self.value):
            problems.add("value", why, self.value)
        if self.toleration_seconds is not None and self.effect is not TaintEffect.NO_EXECUTE:
            problems.add("toleration_seconds", "toleration_seconds applies only to effect NoExecute",
                         self.toleration_seconds)
        problems.raise_if_any("Toleration")
        return self

    def as_k8s(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.operator == "Equal":
            out["value"] = self.value
        if self.effect is not None:
            out["effect"] = self.effect.value
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


class SystemNodes(StrictModel):
    """The nodes that already run the cluster's add-ons: ``node_selector`` (labels every
    such node carries; required, at least one) and ``tolerations`` (for their taints;
    default none)."""

    node_selector: dict[str, str]
    tolerations: list[Toleration] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> "SystemNodes":
        problems = Problems()
        if not self.node_selector:
            problems.add("node_selector", "node_selector must name at least one label of the system nodes (e.g. "
                         "eks.amazonaws.com/nodegroup: system, cloud.google.com/gke-nodepool: default-pool): an "
                         "empty selector matches every node, GPU and spot nodes included", {})
        for key, value in self.node_selector.items():
            if why := label_key_error(key):
                problems.add(("node_selector", key), why, key)
            if why := label_value_error(value):
                problems.add(("node_selector", key), why, value)
        problems.raise_if_any("SystemNodes")
        return self

    def selects(self, labels: dict[str, str]) -> bool:
        """The selector matches a node carrying ``labels`` (every entry equal)."""
        return all(labels.get(key) == value for key, value in self.node_selector.items())

    def as_k8s(self) -> dict[str, Any]:
        return {"nodeSelector": dict(self.node_selector), "tolerations": [t.as_k8s() for t in self.tolerations]}


def selector_text(selector: dict[str, str]) -> str:
    return ", ".join(f"{k}={val}" for k, val in selector.items())


def selected_pools(system_nodes: SystemNodes, pools: Sequence[Any]) -> list[Any]:
    """The platform's own pools (``PoolSpec``) whose node labels the selector matches."""
    return [p for p in pools if system_nodes.selects(p.node_labels)]


def system_nodes_problems(system_nodes: SystemNodes, pools: Sequence[Any], problems: Problems,
                          root: tuple[str | int, ...] = ("system_nodes",)) -> None:
    """A selector that picks a pool which must not run add-ons, or that names nodepools'
    own labels while matching none of the pools."""
    selected = selected_pools(system_nodes, pools)
    for pool in selected:
        if pool.pool_class is not PoolClass.RESIDENT:
            problems.add(root + ("node_selector",), f"node_selector {selector_text(system_nodes.node_selector)} selects pool "
                         f"{pool.name!r} (class {pool.pool_class.value}): add-ons run on the cluster's own system "
                         "nodes or on a resident pool, never on batch or GPU nodes", system_nodes.node_selector)
    ours = {k: val for k, val in system_nodes.node_selector.items() if k.startswith(NODEPOOLS_LABEL_PREFIX)}
    if ours and not selected:
        names = ", ".join(f"{p.name} ({p.pool_class.value})" for p in pools)
        problems.add(root + ("node_selector",), f"node_selector names nodepools labels ({selector_text(ours)}), but no pool of this "
                     f"platform carries them (pools: {names}): select the system nodes by their own labels, "
                     f"or a resident pool by {v.LABEL_POOL}: <name>", system_nodes.node_selector)


def missing_resident_message(pools: Sequence[Any]) -> str:
    """The error for a platform with no resident pool and no system nodes: both ways out."""
    names = ", ".join(f"{p.name} ({p.pool_class.value})" for p in pools)
    return ("a cluster needs somewhere to run its add-ons (CoreDNS, cluster-autoscaler, Kueue, Karpenter): add a "
            "pool with pool_class: resident, or, on a cluster that already has system nodes, name them in "
            f"system_nodes ({WHERE}) with node_selector and, for their taints, tolerations (pools: {names})")
