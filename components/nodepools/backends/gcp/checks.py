"""GKE's own rules for a cloud-neutral pool spec, checked before anything registers.

The spec layer already enforces the class rules; these are the ones GKE adds
(one machine type per pool, accelerators it offers, zones of the cluster's
region, compact placement in one zone on a family that supports it). Every
problem names its field and the allowed values; all are reported together.
"""
from __future__ import annotations

import re

from nodepools.backends.gcp.context import GkeContext
from nodepools.clouds.regions import gcp_zone_error
from nodepools.clouds import gcp as gke
from nodepools.clouds.topology import compact_series, compact_supported
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PlacementStrategy, PoolSpec
from nodepools import vocabulary as v
from nodepools.vocabulary import CapacityType, Cloud

# GKE node pool names: lowercase DNS label that starts with a letter.
_GKE_POOL_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
# Compute Engine machine type names: <series>-<shape>[-<size>], lowercase, no dots.
_MACHINE_TYPE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+\Z")


def pool_problems(spec: PoolSpec, ctx: GkeContext) -> Problems:
    """Every GKE-specific problem of ``spec`` on the cluster described by ``ctx``."""
    problems = Problems()
    if not _GKE_POOL_NAME.match(spec.name):
        problems.add("name", f"GKE node pool name {spec.name!r} must start with a lowercase letter "
                     "(then lowercase letters, digits or '-', ending with a letter or digit)", spec.name)
    machine_ok = _check_machine_types(spec, problems)
    if machine_ok and spec.has_gpu:
        _check_accelerator(spec, problems)
    if spec.subnet_ids:
        problems.add("subnet_ids", "GKE node pools take the cluster's subnetwork; choose placement with zones "
                     "instead (allowed: empty subnet_ids)", spec.subnet_ids)
    for i, zone in enumerate(spec.zones):
        if err := gcp_zone_error(zone, ctx.region):
            problems.add(("zones", i), err, zone)
    if spec.placement is PlacementStrategy.COMPACT:
        _check_compact(spec, ctx, problems, machine_ok)
    _check_capacity_labels(spec, problems)
    if spec.repair.eks is not None:
        problems.add(("repair", "eks"), "repair.eks settings are for EKS managed node groups; GKE's auto-repair "
                     "has no settings (allowed on GKE: repair.mode auto, on or off)",
                     spec.repair.eks.model_dump(exclude_none=True))
    return problems


def _check_capacity_labels(spec: PoolSpec, problems: Problems) -> None:
    """User capacity labels that contradict the pool: an on-demand pool labelled spot draws
    spot-tolerant work that expects interruptions, a spot one labelled otherwise hides them
    (GKE labels Spot VMs ``true`` itself; ``nodepools.backends.gcp.translate``)."""
    given = spec.labels.get(v.LABEL_GKE_SPOT)
    spot = spec.capacity is CapacityType.SPOT
    if given is not None and not (spot and given == "true"):
        sets = "sets it to 'true' itself" if spot else "sets it on Spot VMs only"
        problems.add(("labels", v.LABEL_GKE_SPOT), f"label {v.LABEL_GKE_SPOT!r} is {given!r}, but this pool's "
                     f"capacity is {spec.capacity.value!r} (GKE {sets}): remove the label", given)
    if v.LABEL_GKE_PREEMPTIBLE in spec.labels:
        problems.add(("labels", v.LABEL_GKE_PREEMPTIBLE), f"label {v.LABEL_GKE_PREEMPTIBLE!r} is set by GKE on "
                     "preemptible VMs, which nodepools never creates (capacity 'spot' is Spot VMs, labelled "
                     f"{v.LABEL_GKE_SPOT}): remove the label", spec.labels[v.LABEL_GKE_PREEMPTIBLE])


def _check_machine_types(spec: PoolSpec, problems: Problems) -> bool:
    ok = True
    for i, (name, entry) in enumerate(zip(spec.instance_types, spec.instances)):
        if entry.cloud is Cloud.AWS:
            ok = False
            problems.add(("instance_types", i), f"{name!r} is an AWS instance type; a GKE pool needs a Compute "
                         "Engine machine type (e.g. n2-standard-4, c3-standard-8, g2-standard-8, a2-highgpu-1g)", name)
        elif entry.cloud is None and not _MACHINE_TYPE.match(name):
            ok = False
            problems.add(("instance_types", i), f"{name!r} is not a Compute Engine machine type name (lowercase "
                         "<series>-<shape>-<size>, e.g. n2-standard-4)", name)
    if len(spec.instance_types) > 1:
        ok = False
        problems.add("instance_types", f"a GKE node pool takes exactly one machine type (got "
                     f"{len(spec.instance_types)}: {', '.join(spec.instance_types)}); create one pool per "
                     "machine type", spec.instance_types)
    return ok


def _check_accelerator(spec: PoolSpec, problems: Problems) -> None:
    model = spec.gpu_model
    if model is None:
        return  # the spec layer has already refused a GPU class without a model
    if gke.accelerator_type(model, spec.instance_types[0]) is None:
        allowed = ", ".join(m.value for m in gke.gpu_models())
        loc = ("gpu", "model") if spec.gpu is not None else "instance_types"
        problems.add(loc, f"GPU model {model.value!r} is not offered on GKE (allowed: {allowed})", model.value)


def _check_compact(spec: PoolSpec, ctx: GkeContext, problems: Problems, machine_ok: bool) -> None:
    zones = ctx.zones_for(spec.zones)
    if len(zones) != 1:
        where = f"the cluster's zones are {', '.join(zones)}" if zones else \
            f"the cluster location {ctx.location} is a region"
        problems.add("zones", f"placement 'compact' on GKE needs exactly one zone ({where}); "
                     f"give one zone of {ctx.region} in zones", spec.zones)
    machine = spec.instance_types[0]
    if machine_ok and not compact_supported(Cloud.GCP, machine):
        problems.add("placement", f"placement 'compact' is not supported on {machine} on GKE (allowed: "
                     f"{compact_series(Cloud.GCP)}); use placement 'spread' or such a machine type", "compact")
