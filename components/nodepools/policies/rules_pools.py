"""Pool rules: taints, capacity type, scaling bounds (the cluster version: ``rules_versions``).

Pools are raw provider resources (EKS managed node groups, GKE node pools), read
through ``nodepools.inventory.pools``; field paths in messages are the provider's
input names, per type, from one table.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from nodepools import vocabulary as v
from nodepools.inventory.pools import PoolView, read_pool
from nodepools.inventory.tri import Tri
from nodepools.inventory.values import UNKNOWN, as_dict, is_unknown
from nodepools.policies.base import Finding, one_per_resource, subject_of, unknown
from nodepools.inventory.resource import Resource
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import PoolRef
from nodepools.policies.stack_view import StackView

_TAINTS_FIELD = {v.TYPE_EKS_NODE_GROUP: "taints", v.TYPE_GKE_NODE_POOL: "nodeConfig.taints",
                 v.TYPE_KARPENTER_NODE_POOL: "spec.template.spec.taints"}
_SPOT_FIELD = {v.TYPE_EKS_NODE_GROUP: ("capacityType", "set capacityType to ON_DEMAND"),
               v.TYPE_GKE_NODE_POOL: ("nodeConfig.spot", "set nodeConfig.spot and nodeConfig.preemptible to false"),
               v.TYPE_KARPENTER_NODE_POOL: ("spec.template.spec.requirements", "require karpenter.sh/capacity-type "
                                            "In [on-demand]")}


def _hard(taints: list[dict]) -> list[dict]:
    return [t for t in taints if t["effect"] in v.HARD_TAINT_EFFECTS]


def _subject(pool: PoolView) -> str:
    return subject_of(pool.type, pool.name)


def _taint_fix(pool: PoolView, key: str, value: str) -> str:
    return f"add {{key: {key}, value: {value}, effect: NO_SCHEDULE}} to {_TAINTS_FIELD[pool.type]}"


def _min_field(res: Resource) -> str:
    if res.type == v.TYPE_EKS_NODE_GROUP:
        return "scalingConfig.minSize"
    autoscaling = as_dict(res.props.get("autoscaling"))
    if "minNodeCount" in autoscaling:
        return "autoscaling.minNodeCount"
    return "autoscaling.totalMinNodeCount" if autoscaling else "nodeCount"


@one_per_resource
def check_pool_taints(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """Every pool carries a hard taint, except at most one untainted resident/default pool per cluster:
    the one labelled resident when there is one, never a GPU pool (docs/design.md section 6)."""
    by_cluster: dict[str, list[PoolRef]] = defaultdict(list)
    for ref in stack.pools:
        by_cluster[ref.cluster].append(ref)
    for refs in by_cluster.values():
        refs = sorted(refs, key=lambda r: (r.view.name, r.res.urn))
        unknown_refs = [r for r in refs if is_unknown(r.view.taints)]
        untainted = [r for r in refs if not is_unknown(r.view.taints) and not _hard(r.view.taints)]
        defaults = sorted((r for r in untainted if r.view.pool_class in (None, v.PoolClass.RESIDENT)
                           and r.view.is_gpu is not True), key=lambda r: r.view.pool_class is not v.PoolClass.RESIDENT)
        for ref in untainted:
            pool, cls = ref.view, ref.view.pool_class
            if cls in (None, v.PoolClass.RESIDENT) and pool.is_gpu is True:
                yield Finding(ref.res.urn, _subject(pool), _TAINTS_FIELD[pool.type],
                              "an untainted GPU pool, which is never the cluster's default pool: any pod can "
                              "land on its GPU nodes", _taint_fix(pool, v.TAINT_GPU_KEY, v.TAINT_GPU_VALUE))
            elif is_unknown(cls):
                # Untainted is wrong for every class once another pool is the default.
                if defaults:
                    yield Finding(ref.res.urn, _subject(pool), _TAINTS_FIELD[pool.type],
                                  f"untainted, but pool '{defaults[0].view.name}' is already this cluster's one "
                                  "untainted resident/default pool",
                                  _taint_fix(pool, v.TAINT_POOL_CLASS_KEY, "<its class>"))
                else:
                    yield unknown(ref.res.urn, _subject(pool), "labels", why="an untainted pool's class is unknown")
            elif cls not in (None, v.PoolClass.RESIDENT):
                yield Finding(ref.res.urn, _subject(pool), _TAINTS_FIELD[pool.type],
                              f"a {cls.value} pool has no NoSchedule/NoExecute taint, so any pod can land on it",
                              _taint_fix(pool, v.TAINT_POOL_CLASS_KEY, cls.value))
            elif ref is not defaults[0]:
                yield Finding(ref.res.urn, _subject(pool), _TAINTS_FIELD[pool.type],
                              f"untainted, but pool '{defaults[0].view.name}' is already this cluster's one "
                              "untainted resident/default pool",
                              _taint_fix(pool, v.TAINT_POOL_CLASS_KEY, (cls or v.PoolClass.RESIDENT).value))
        unknown_defaults = [r for r in unknown_refs if r.view.pool_class in (None, v.PoolClass.RESIDENT)]
        for ref in unknown_refs:
            # Only a lone resident/default pool may turn out untainted without a violation.
            if ref in unknown_defaults and not defaults and len(unknown_defaults) == 1:
                continue
            yield unknown(ref.res.urn, _subject(ref.view), _TAINTS_FIELD[ref.view.type])


@one_per_resource
def check_gpu_pool_taint(res: Resource, settings: Settings) -> Iterator[Finding]:
    """A GPU pool carries nvidia.com/gpu with effect NoSchedule (the effect the
    ExtendedResourceToleration admission tolerates: NoExecute would evict GPU pods)."""
    pool = read_pool(res.type, res.props, res.urn, res.name)
    if pool is None or pool.is_gpu is False:
        return
    field = _TAINTS_FIELD[pool.type]
    if is_unknown(pool.taints):
        yield unknown(res.urn, _subject(pool), field)
        return
    if any(t["key"] == v.TAINT_GPU_KEY and t["effect"] == v.TaintEffect.NO_SCHEDULE.value for t in pool.taints):
        return
    if pool.is_gpu is True:
        yield Finding(res.urn, _subject(pool), field,
                      "a GPU pool without a nvidia.com/gpu NoSchedule taint lets pods that request no GPU take "
                      "its nodes", _taint_fix(pool, v.TAINT_GPU_KEY, v.TAINT_GPU_VALUE))
    else:
        field = "spec.template.spec.requirements" if pool.type == v.TYPE_KARPENTER_NODE_POOL else "instanceTypes"
        yield unknown(res.urn, _subject(pool), field, why="whether the pool has GPUs is unknown")


def is_resident_pool(pool: PoolView) -> Tri:
    """Class ``resident``, or unclassed, untainted and GPU-less (the cluster's default pool:
    docs/design.md section 8; a GPU pool is never one)."""
    cls = pool.pool_class
    if cls is v.PoolClass.RESIDENT:
        return True
    if (cls is not None and not is_unknown(cls)) or pool.is_gpu is True:
        return False
    if is_unknown(pool.taints):
        return UNKNOWN
    untainted = not any(t["effect"] in v.HARD_TAINT_EFFECTS for t in pool.taints)
    return untainted if cls is None else (UNKNOWN if untainted else False)


@one_per_resource
def check_inference_on_demand(res: Resource, settings: Settings) -> Iterator[Finding]:
    """resident and gpu-inference pools run on on-demand capacity; the default pool (untainted,
    no class) is a resident pool (section 8): services without tolerations land there."""
    pool = read_pool(res.type, res.props, res.urn, res.name)
    if pool is None:
        return
    default = pool.pool_class is None and is_resident_pool(pool) is True
    if not default and pool.pool_class not in v.ALWAYS_ON_CLASSES \
            and not is_unknown(pool.pool_class):
        return
    field, fix = _SPOT_FIELD[pool.type]
    if default:
        if pool.spot is True:
            yield Finding(res.urn, _subject(pool), field, "the default pool (no taints, no "
                          f"{v.LABEL_POOL_CLASS}: pods without tolerations, resident services included, land "
                          "here) is on spot/preemptible capacity, which the cloud reclaims at short notice",
                          f"{fix}, or give the pool a class and its taint")
        elif is_unknown(pool.spot):
            yield unknown(res.urn, _subject(pool), field)
        return
    if is_unknown(pool.pool_class):
        if pool.spot is not False:
            yield unknown(res.urn, _subject(pool), "labels", why="the class of a pool that may be spot is unknown")
    elif is_unknown(pool.spot):
        yield unknown(res.urn, _subject(pool), field)
    elif pool.spot:
        yield Finding(res.urn, _subject(pool), field,
                      f"a {pool.pool_class.value} pool is on spot/preemptible capacity, which the cloud reclaims "
                      "at short notice", fix)


@one_per_resource
def check_scale_to_zero(res: Resource, settings: Settings) -> Iterator[Finding]:
    """batch/gpu-training pools have min 0; resident/gpu-inference pools keep min >= 1."""
    pool = read_pool(res.type, res.props, res.urn, res.name)
    if pool is None or pool.pool_class is None:
        return
    field, minimum = _min_field(res), pool.min_nodes
    if is_unknown(minimum):
        yield unknown(res.urn, _subject(pool), field)
        return
    if not isinstance(minimum, (int, float)):
        return
    cls = pool.pool_class
    if is_unknown(cls):  # every minimum is wrong for some class
        yield unknown(res.urn, _subject(pool), "labels", why="the pool's class is unknown")
        return
    if cls in (v.PoolClass.BATCH, v.PoolClass.GPU_TRAINING) and minimum > 0:
        yield Finding(res.urn, _subject(pool), field,
                      f"a {cls.value} pool keeps {minimum:g} idle node(s) between jobs", f"set {field} to 0")
    elif cls in v.ALWAYS_ON_CLASSES and minimum == 0:
        yield Finding(res.urn, _subject(pool), field,
                      f"a {cls.value} pool may scale to zero, so its services have nowhere to run",
                      f"set {field} to at least 1")
