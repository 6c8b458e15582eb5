"""The pools of one cluster, validated together.

Rules that need every pool at once live here: unique pool names, one cloud per
cluster, and at most one untainted pool (the cluster's default resident pool;
the ``pool-taints`` policy of docs/design.md section 3 allows no more).
"""
from __future__ import annotations

from typing import Sequence

from pydantic import Field, model_validator

from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import check_cluster_provisioners, is_karpenter
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud, PoolClass

SUPPORTED_KUBERNETES_VERSIONS = ("1.32", "1.33", "1.34", "1.35", "1.36")


def cluster_problems(cloud: Cloud, pools: Sequence[PoolSpec], problems: Problems) -> None:
    """Add every problem of the pool set (names, cloud, untainted pools, a resident pool) to ``problems``."""
    seen: dict[str, int] = {}
    for i, pool in enumerate(pools):
        if pool.name in seen:
            problems.add(("pools", i, "name"), f"pool name {pool.name!r} is already used by pools[{seen[pool.name]}]; "
                         "pool names must be unique in a cluster (they are the nodepools.io/pool label)", pool.name)
        seen.setdefault(pool.name, i)
        if pool.cloud is not None and pool.cloud is not cloud:
            problems.add(("pools", i, "instance_types"), f"instance types {pool.instance_types} are "
                         f"{pool.cloud.value} types, but this cluster is on {cloud.value}", pool.instance_types)
    untainted = [i for i, p in enumerate(pools) if not p.is_tainted]
    for i in untainted[1:]:
        problems.add(("pools", i, "dedicated"), f"pool {pools[i].name!r} is the second untainted pool "
                     f"(pools[{untainted[0]}] is the first): only one default resident pool may stay "
                     "untainted; set dedicated: true", False)
    if not any(p.pool_class is PoolClass.RESIDENT for p in pools):
        problems.add("pools", "a cluster needs one resident pool: system add-ons (CoreDNS, the autoscaler, "
                     "Kueue) run there", [p.name for p in pools])
    else:
        check_cluster_provisioners(cloud, pools, system_pool_of(pools), problems)


def system_pool_of(pools: Sequence[PoolSpec]) -> PoolSpec:
    """The pool that runs cluster add-ons: the untainted resident pool, else the first resident
    (managed node groups first: Karpenter must not provision the nodes it runs on)."""
    residents = [p for p in pools if p.pool_class is PoolClass.RESIDENT]
    residents = [p for p in residents if not is_karpenter(p)] or residents
    return next((p for p in residents if not p.is_tainted), residents[0])


class ClusterPools(StrictModel):
    """Every pool of one cluster. ``cloud`` is checked against the instance types."""

    cloud: Cloud
    pools: list[PoolSpec] = Field(min_length=1, max_length=50)

    @model_validator(mode="after")
    def _check(self) -> "ClusterPools":
        problems = Problems()
        cluster_problems(self.cloud, self.pools, problems)
        problems.raise_if_any("ClusterPools")
        return self

    def by_class(self, pool_class: PoolClass) -> list[PoolSpec]:
        return [p for p in self.pools if p.pool_class is pool_class]

    @property
    def system_pool(self) -> PoolSpec:
        """The pool that runs cluster add-ons (``system_pool_of``)."""
        return system_pool_of(self.pools)
