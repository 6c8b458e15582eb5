"""Pure translation: a validated ``PoolSpec`` on a GKE cluster -> plain node pool arguments.

No Pulumi resource is registered here. ``translate`` returns a ``NodePoolPlan``
whose ``args`` are the keyword arguments of ``gcp.container.NodePool`` (snake
case, nested blocks as dicts, which the SDK accepts and serialises to its wire
names), except the two values that may be Pulumi outputs and are wired in by
``register``: ``cluster`` and ``node_config.service_account`` (plus an optional
``node_config.boot_disk_kms_key``).
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.backends.gcp import tables
from nodepools.backends.gcp.checks import pool_problems
from nodepools.backends.gcp.context import GkeContext
from nodepools.clouds import gcp as gke
from nodepools.clouds.taints import TAINT_EFFECTS
from nodepools.clouds.topology import choose_placement
from nodepools.spec.pool import PoolSpec
from nodepools.spec.repair import repair_enabled
from nodepools.spec.sharing import GpuSharingMode
from nodepools.vocabulary import CapacityType, Cloud

# The autoscaler owns the node count; a changed initialNodeCount would even
# recreate the pool (docs/kubernetes-facts.md section 2). Engine spelling (camelCase):
# snake_case paths are silently ignored (docs/pulumi-facts.md, "Resource options").
IGNORE_CHANGES = ("initialNodeCount", "nodeCount")
ACCOUNT_ID_MAX = 30


@dataclass(frozen=True)
class NodePoolPlan:
    """Everything ``register`` needs for one pool, as plain data."""

    name: str
    args: dict[str, Any]
    ignore_changes: tuple[str, ...]
    # Node labels as the nodes will carry them: the spec's plus the ones GKE sets itself.
    node_labels: dict[str, str]
    # Roles for the pool's dedicated service account (unused when one is passed in).
    node_roles: tuple[str, ...]
    account_display_name: str
    account_description: str


def translate(spec: PoolSpec, ctx: GkeContext) -> NodePoolPlan:
    """The node pool for ``spec``. Raises a ValidationError for GKE-specific problems."""
    pool_problems(spec, ctx).raise_if_any("GkeNodePool")
    return translate_checked(spec, ctx)


def translate_checked(spec: PoolSpec, ctx: GkeContext) -> NodePoolPlan:
    """``translate`` for a spec that has passed GKE's pool rules (``GkeCluster.check_pool``)."""
    spot = spec.capacity is CapacityType.SPOT
    args: dict[str, Any] = {
        "name": spec.name,
        "project": ctx.project,
        "location": ctx.location,
        "initial_node_count": initial_node_count(spec, ctx),
        "autoscaling": {
            "total_min_node_count": spec.min_nodes,
            "total_max_node_count": spec.max_nodes,
            "location_policy": tables.LOCATION_POLICIES[spec.capacity],
        },
        # GKE repairs unless told not to (the API's default); only the opt-out turns it off
        # (nodepools.spec.repair; setManagement updates it in place).
        "management": {"auto_repair": repair_enabled(spec) is not False, "auto_upgrade": True},
        "upgrade_settings": _upgrade_settings(spec),
        "node_config": _node_config(spec, ctx, spot),
    }
    zones, compact_ignored = _placement(spec, ctx)
    if zones:
        args["node_locations"] = zones
    if compact_ignored is not None:
        args["placement_policy"] = {"type": tables.PLACEMENT_COMPACT}
    if ctx.private_nodes is not None:
        args["network_config"] = {"enable_private_nodes": ctx.private_nodes}
    return NodePoolPlan(
        name=spec.name, args=args, ignore_changes=(*IGNORE_CHANGES, *(compact_ignored or ())),
        node_labels=gke_node_labels(spec, ctx),
        node_roles=ctx.node_roles, account_display_name=f"nodepools {spec.name} nodes",
        account_description=f"Node service account of the {spec.pool_class.value} node pool {spec.name!r} "
                            f"in {ctx.location} (managed by nodepools)",
    )


def initial_node_count(spec: PoolSpec, ctx: GkeContext) -> int:
    """Per-zone start size that reaches ``min_nodes`` in total. GKE counts
    initial_node_count per zone; the autoscaler is not relied on to raise a new
    pool to its minimum (upstream cluster-autoscaler does not by default:
    ``--enforce-node-group-min-size=false``), so resident capacity exists from
    creation. Rounding up adds at most one node per zone, which scale-down
    removes. Zones unknown: GKE's default of three per regional pool."""
    return math.ceil(spec.min_nodes / ctx.zone_count(spec.zones))


def gke_node_labels(spec: PoolSpec, ctx: GkeContext) -> dict[str, str]:
    """The spec's labels plus those GKE puts on the nodes itself (not sent: GKE owns them)."""
    labels = {**spec.node_labels, v.LABEL_GKE_NODEPOOL: spec.name}
    if spec.capacity is CapacityType.SPOT:
        labels[v.LABEL_GKE_SPOT] = "true"
    accelerator = _accelerator(spec)
    if accelerator is not None:
        labels[v.LABEL_GKE_ACCELERATOR] = accelerator
        labels.update(_gke_sharing_labels(spec))
    return labels


def node_account_id(cluster_name: str, location: str, pool_name: str) -> str:
    """A service account id unique per (location, cluster, pool) within a project:
    ``np-<pool prefix>-<6 hex>``, 6-30 characters as IAM requires."""
    digest = hashlib.sha256(f"{location}/{cluster_name}/{pool_name}".encode()).hexdigest()[:6]
    stem = pool_name[: ACCOUNT_ID_MAX - len("np--") - len(digest)].rstrip("-")
    return f"np-{stem}-{digest}"


def _node_config(spec: PoolSpec, ctx: GkeContext, spot: bool) -> dict[str, Any]:
    machine = spec.instance_types[0]
    config: dict[str, Any] = {
        "machine_type": machine,
        "image_type": tables.IMAGE_TYPE,
        # Compute Engine disk "GB" are binary (GiB), so the size passes unchanged.
        "boot_disk": {"disk_type": tables.boot_disk_type(machine), "size_gb": spec.disk_size_gib},
        "spot": spot,
        "labels": dict(spec.node_labels),
        # Exactly the spec's taints: the workload contract tolerates these and no
        # others. The GPU taint is among them; GKE adds it only when the cluster
        # already has a non-GPU pool (docs/kubernetes-facts.md section 2).
        "taints": [{"key": t.key, "value": t.value, "effect": TAINT_EFFECTS[t.effect]}
                   for t in spec.node_taints],
        "resource_labels": {
            **ctx.resource_labels,
            v.GCP_RESOURCE_LABEL_POOL: spec.name,
            v.GCP_RESOURCE_LABEL_POOL_CLASS: spec.pool_class.value,
        },
        "metadata": dict(tables.NODE_METADATA),
        # Access is governed by the service account's IAM roles, not by scopes.
        "oauth_scopes": [tables.OAUTH_SCOPE_CLOUD_PLATFORM],
        "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
        # Pods see the GKE metadata server (Workload Identity), never the node's credentials.
        "workload_metadata_config": {"mode": tables.WORKLOAD_METADATA_MODE},
    }
    accelerator = _accelerator(spec)
    if accelerator is not None:
        config["guest_accelerators"] = [{
            "type": accelerator,
            "count": spec.gpus_per_node,
            "gpu_driver_installation_config": {"gpu_driver_version": ctx.gpu_driver_version.value},
            **_accelerator_sharing(spec),
        }]
    return config


def _accelerator_sharing(spec: PoolSpec) -> dict[str, Any]:
    """``gpu_sharing_config`` (TIME_SHARING, max clients = replicas) or
    ``gpu_partition_size`` (the MIG profile) of the guest accelerator
    (pulumi_gcp NodePoolNodeConfigGuestAcceleratorArgs)."""
    sharing = spec.gpu_sharing
    if sharing.mode is GpuSharingMode.TIME_SLICING:
        return {"gpu_sharing_config": {"gpu_sharing_strategy": tables.GPU_SHARING_TIME_SHARING,
                                       "max_shared_clients_per_gpu": sharing.replicas}}
    if sharing.mode is GpuSharingMode.MIG:
        return {"gpu_partition_size": sharing.profile}
    return {}


def _gke_sharing_labels(spec: PoolSpec) -> dict[str, str]:
    """The labels GKE itself puts on shared GPU nodes (how-to pages timesharing-gpus, gpus-multi)."""
    sharing = spec.gpu_sharing
    if sharing.mode is GpuSharingMode.TIME_SLICING:
        return {v.LABEL_GKE_GPU_SHARING_STRATEGY: tables.GKE_LABEL_TIME_SHARING,
                v.LABEL_GKE_MAX_SHARED_CLIENTS: str(sharing.replicas)}
    if sharing.mode is GpuSharingMode.MIG:
        return {v.LABEL_GKE_GPU_PARTITION_SIZE: str(sharing.profile)}
    return {}


def _accelerator(spec: PoolSpec) -> str | None:
    if not spec.has_gpu or spec.gpu_model is None:
        return None
    return gke.accelerator_type(spec.gpu_model, spec.instance_types[0])


def _placement(spec: PoolSpec, ctx: GkeContext) -> tuple[list[str], tuple[str, ...] | None]:
    """The pool's node locations, and for a compact pool the paths it ignores after creation
    (None: spread). A compact pool is pinned to its one zone, so a later change of the
    cluster's zones never moves or spreads it; an explicit compact pool has one zone
    (``checks``), the default takes the first of the cluster's zones, or stays spread when
    the pool names several of its own or no zone is known. GKE sets compact placement only
    on a pool it creates, so what the default sets is ignored afterwards: a pool that
    exists keeps its placement and its zones."""
    own = list(spec.zones)
    choice = choose_placement(spec, Cloud.GCP)
    if not choice.compact:
        return own, None
    zones = list(ctx.zones_for(spec.zones))
    if not choice.by_default:
        return zones, ()
    if (own and len(own) > 1) or not zones:
        return own, None
    if own or (ctx.is_zonal and not ctx.default_zones):  # already one zone: nothing to pin
        return own, ("placementPolicy",)
    return zones[:1], ("placementPolicy", "nodeLocations")


def _upgrade_settings(spec: PoolSpec) -> dict[str, Any]:
    surge, unavailable = tables.UPGRADE_SURGE[spec.pool_class]
    return {"strategy": tables.UPGRADE_STRATEGY, "max_surge": surge, "max_unavailable": unavailable}
