"""A pod's DRA GPU claims against one node of a pool (docs/design.md sections 8 and 11.4).

Only a GPU pool serves them. A node's devices are its GPUs whatever time-slicing advertises,
except that a GPU split into MIG slices is no whole device: NVIDIA's DRA driver publishes a
MIG-enabled GPU's slices and not the GPU (kubernetes-sigs/dra-driver-nvidia-gpu:
cmd/gpu-kubelet-plugin/nvlib.go@v0.4.1, static MIG). A claim on a MIG class counts one slice
of the pool's MIG profile per device (``nodepools.inventory.gpu_offer.per_node``: GPUs x the
profile's instances per GPU), and only a pool of that profile serves one that names a profile.
On a pool declaring no MIG, slices are absent when its GPU cannot do MIG and unknown when it
can (a MIG manager may partition it at run time). Of a request's alternatives the smallest one
the node offers counts.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory import gpu_offer
from nodepools.inventory.dra import ALL, GpuAlternative, GpuClaim
from nodepools.inventory.pools import PoolView
from nodepools.inventory.tri import Tri
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.placement.capacity import NOT_IN_TABLE, NodeSize, node_sizes


def _smallest(alternatives: tuple[GpuAlternative, ...]) -> GpuAlternative:
    return min(alternatives, key=lambda a: a.least)


def describe(claim: GpuClaim) -> str:
    """What the claims ask for at least, whatever the pool: ``2 GPUs``, ``1 MIG 1g.10gb slice``."""
    chosen = [_smallest(alternatives) for alternatives in claim.requests]
    whole = sum(a.least for a in chosen if not a.mig)
    slices = [a for a in chosen if a.mig]
    parts = []
    if any(not a.mig and all(b.count == ALL for b in r if not b.mig) for a, r in zip(chosen, claim.requests)):
        parts.append("every GPU of a node")
    elif whole:
        parts.append(f"{whole:g} GPU{'s' if whole != 1 else ''}")
    if slices:
        count = sum(a.least for a in slices)
        profiles = {a.profile for a in slices}
        named = f" {profiles.pop()}" if len(profiles) == 1 and None not in profiles else ""
        parts.append(f"{count:g} MIG{named} slice{'s' if count != 1 else ''}")
    return " and ".join(parts)


def _devices(size: NodeSize, alternative: GpuAlternative) -> Any:
    """How many devices of the alternative's kind one node of ``size`` offers (UNKNOWN: cannot tell)."""
    if is_unknown(size.gpus):
        return UNKNOWN
    pool = replace(size.pool, gpu_count=size.gpus)
    mode = gpu_offer.sharing_mode(pool)
    if is_unknown(mode):
        return UNKNOWN
    if not alternative.mig:
        return 0.0 if mode == "mig" else size.gpus
    profile = alternative.profile or (gpu_offer.mig_profile_name(pool) if mode == "mig" else None)
    return gpu_offer.per_node(pool, v.mig_resource(str(profile or "any")))


def _none_fits(size: NodeSize, options: list[tuple[GpuAlternative, Any]]) -> str:
    """Why no alternative of a request fits one node of ``size``."""
    alternative, have = options[0]
    mode = gpu_offer.sharing_mode(size.pool)
    if have == 0 and mode == "mig":
        return f"and the pool's GPUs are split into MIG {gpu_offer.mig_profile_name(size.pool)} slices"
    if have == 0 and alternative.mig:
        return "and the pool's GPUs have no MIG slices"
    kind = "" if not alternative.mig else " MIG slices"
    return f"more than the {have:g}{kind} of one {size.instance_type} node"


def _on_node(claim: GpuClaim, size: NodeSize) -> tuple[Tri, str]:
    """Whether every GPU request of ``claim`` fits one empty node of ``size`` together."""
    used: dict[bool, float] = {False: 0.0, True: 0.0}
    have: dict[bool, float] = {}
    undecided = False
    for alternatives in claim.requests:
        options = [(a, _devices(size, a)) for a in alternatives]
        fitting = [(a, n) for a, n in options if not is_unknown(n) and n >= a.least]
        if not fitting:
            if any(is_unknown(n) for _, n in options):
                undecided = True
                continue
            return False, _none_fits(size, options)
        chosen, devices = min(fitting, key=lambda f: f[0].least)
        used[chosen.mig] += chosen.least
        have[chosen.mig] = devices
    for mig, devices in have.items():
        if used[mig] > devices:
            return False, f"more than the {devices:g}{' MIG slices' if mig else ''} of one {size.instance_type} node"
    return (UNKNOWN, "") if undecided else (True, "")


def _why_unknown(sizes: list[NodeSize]) -> str:
    unsized = [s for s in sizes if is_unknown(s.gpus)]
    if unsized and isinstance(unsized[0].instance_type, str):
        return f"instance type {unsized[0].instance_type} {NOT_IN_TABLE}: cannot judge size"
    if unsized:
        return "whether the pool has GPUs, or how many per node, is unknown at preview: cannot judge size"
    return ("whether the pool's GPUs are split into MIG slices is unknown at preview (a MIG manager may partition "
            "them): cannot judge size")


def fits_claim(claim: GpuClaim, pool: PoolView) -> tuple[Tri, str]:
    """A pod's DRA GPU claims against one node of ``pool``: fits when they fit one node of some
    instance type; too big only when too big for every type (the reason names the largest)."""
    if not claim.requests:
        return (UNKNOWN, "its DRA claims are unknown at preview: cannot judge size") if claim.open_ else (True, "")
    wants = f"its DRA claims (resourceClaims) ask for {describe(claim)}"
    if pool.is_gpu is False:
        return False, f"{wants}, and the pool has no GPU"
    sizes = node_sizes(pool)
    answers = [_on_node(claim, s) for s in sizes]
    if pool.is_gpu is True and any(a is True for a, _ in answers):
        return (UNKNOWN, f"{wants}, and more are unknown at preview: cannot judge size") if claim.open_ else (True, "")
    if pool.is_gpu is True and all(a is False for a, _ in answers):
        largest = max(range(len(sizes)), key=lambda i: sizes[i].gpus)
        return False, f"{wants}, {answers[largest][1]}"
    return UNKNOWN, _why_unknown(sizes)
