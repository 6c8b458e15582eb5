"""The Karpenter side of a pool spec: the rules that tie its options (``spec/options.py``) to the pool.

A pool is built by an EKS managed node group (``provisioner: managed``, the
default) or by Karpenter (``provisioner: karpenter``: one ``karpenter.sh/v1``
NodePool and one ``karpenter.k8s.aws/v1`` EC2NodeClass, docs/design.md section 7).
Karpenter has no minimum size: it launches nodes for pending pods, so
``min_nodes`` does not apply to a Karpenter pool (the floor of resident and
gpu-inference pools is kept by their workloads' replicas); ``max_nodes`` caps
the NodePool's ``spec.limits``.
"""
from __future__ import annotations

from typing import Any, Sequence, TypeVar

from nodepools.spec.errors import Problems
from nodepools.spec.options import KarpenterOptions
from nodepools.spec.pool_fields import PoolFields
from nodepools.spec.presets import PlacementStrategy
from nodepools.vocabulary import CapacityType, Cloud, PoolClass, Provisioner

Pool = TypeVar("Pool", bound=PoolFields)


def is_karpenter(pool: PoolFields) -> bool:
    return pool.provisioner is Provisioner.KARPENTER


def options(pool: PoolFields) -> KarpenterOptions:
    """The pool's Karpenter options, defaults when it names none."""
    return pool.karpenter if pool.karpenter is not None else KarpenterOptions()


def check_karpenter_pool(spec: PoolFields, problems: Problems) -> None:
    if not is_karpenter(spec):
        if spec.karpenter is not None:
            problems.add("karpenter", "karpenter options apply only to provisioner 'karpenter' (this pool's "
                         "provisioner is 'managed'; allowed provisioners: "
                         f"{', '.join(p.value for p in Provisioner)})", spec.karpenter.model_dump(mode="json"))
        return
    if options(spec).on_demand_fallback and spec.capacity is not CapacityType.SPOT:
        problems.add(("karpenter", "on_demand_fallback"), "on_demand_fallback needs capacity 'spot' (a fallback "
                     f"from spot to on-demand; this pool's capacity is {spec.capacity.value!r})", True)
    if spec.placement is PlacementStrategy.COMPACT:
        problems.add("placement", "placement 'compact' needs a cluster placement group, which only a managed "
                     "node group gets; use provisioner 'managed' or placement 'spread'", "compact")


def check_given_fields(data: dict[str, Any], spec: PoolFields, problems: Problems) -> None:
    """Fields a Karpenter pool cannot honour, when the input gave them (the class presets
    fill ``min_nodes`` for every pool, so only the raw input tells)."""
    if is_karpenter(spec) and data.get("min_nodes") is not None:
        problems.add("min_nodes", "min_nodes does not apply to provisioner 'karpenter': Karpenter launches nodes "
                     "for pending pods and keeps no minimum (allowed: leave min_nodes out; max_nodes caps the "
                     "NodePool's limits)", data["min_nodes"])


def check_cluster_provisioners(cloud: Cloud, pools: Sequence[PoolFields], system_pool: Any,
                               problems: Problems) -> None:
    """Karpenter runs on EKS only, and never on nodes it provisions itself."""
    karpenter = [i for i, p in enumerate(pools) if is_karpenter(p)]
    if cloud is not Cloud.AWS:
        for i in karpenter:
            problems.add(("pools", i, "provisioner"), f"provisioner 'karpenter' is for EKS clusters only (this "
                         f"cluster is on {cloud.value}; allowed here: managed)", Provisioner.KARPENTER.value)
        return
    if system_pool is not None and is_karpenter(system_pool):
        i = next(i for i, p in enumerate(pools) if p is system_pool)
        problems.add(("pools", i, "provisioner"), f"pool {system_pool.name!r} is the cluster's system pool (its "
                     "resident pool, where the add-ons and the Karpenter controller run) and must be a managed "
                     "node group: Karpenter must not provision the nodes it runs on; set provisioner: managed, "
                     "or add a resident pool with provisioner: managed", Provisioner.KARPENTER.value)


def karpenter_pools(pools: Sequence[Pool]) -> list[Pool]:
    return [p for p in pools if is_karpenter(p)]


__all__ = ["KarpenterOptions", "PoolClass", "check_cluster_provisioners", "check_given_fields", "check_karpenter_pool",
           "is_karpenter", "karpenter_pools", "options"]
