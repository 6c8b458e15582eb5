"""The pools of one cluster, validated together.

Rules that need every pool at once live here: unique pool names, one cloud per
cluster, at most one untainted pool (the cluster's default resident pool;
the ``pool-taints`` policy of docs/design.md section 3 allows no more), and a place
for the add-ons: a resident pool, or the attached cluster's own ``system_nodes``
(``nodepools.spec.system_nodes``; docs/design.md section 9).
"""
from __future__ import annotations

from typing import Sequence

from pydantic import Field, model_validator

from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import check_cluster_provisioners, is_karpenter
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec
from nodepools.spec.system_nodes import SystemNodes, missing_resident_message, selected_pools, system_nodes_problems
from nodepools.vocabulary import Cloud, PoolClass


def cluster_problems(cloud: Cloud, pools: Sequence[PoolSpec], problems: Problems,
                     system_nodes: SystemNodes | None = None) -> None:
    """Add every problem of the pool set (names, cloud, untainted pools, a place for the
    add-ons: a resident pool or ``system_nodes``) to ``problems``."""
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
    if system_nodes is not None:
        system_nodes_problems(system_nodes, pools, problems)
    if system_nodes is None and not any(p.pool_class is PoolClass.RESIDENT for p in pools):
        problems.add("pools", missing_resident_message(pools), [p.name for p in pools])
    else:
        check_cluster_provisioners(cloud, pools, system_pool_of(pools, system_nodes), problems)


def system_pool_of(pools: Sequence[PoolSpec], system_nodes: SystemNodes | None = None) -> PoolSpec | None:
    """The pool of this platform that runs cluster add-ons: with ``system_nodes``, the
    resident pool they select (None when they are the cluster's own nodes); else the
    untainted resident pool, else the first resident (managed node groups first:
    Karpenter must not provision the nodes it runs on)."""
    if system_nodes is not None:
        return next(iter(selected_pools(system_nodes, pools)), None)
    residents = [p for p in pools if p.pool_class is PoolClass.RESIDENT]
    residents = [p for p in residents if not is_karpenter(p)] or residents
    return next((p for p in residents if not p.is_tainted), residents[0])


class ClusterPools(StrictModel):
    """Every pool of one cluster. ``cloud`` is checked against the instance types."""

    cloud: Cloud
    pools: list[PoolSpec] = Field(min_length=1, max_length=50)
    # The attached cluster's own nodes for add-ons; None: the add-ons run on the resident pool.
    system_nodes: SystemNodes | None = None

    @model_validator(mode="after")
    def _check(self) -> "ClusterPools":
        problems = Problems()
        cluster_problems(self.cloud, self.pools, problems, self.system_nodes)
        problems.raise_if_any("ClusterPools")
        return self

    def by_class(self, pool_class: PoolClass) -> list[PoolSpec]:
        return [p for p in self.pools if p.pool_class is pool_class]

    @property
    def system_pool(self) -> PoolSpec | None:
        """The pool of this platform that runs cluster add-ons (``system_pool_of``); None
        when they run on the cluster's own ``system_nodes``."""
        return system_pool_of(self.pools, self.system_nodes)
