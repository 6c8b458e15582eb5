"""What GPU resources one node of a pool advertises, read from the pool's labels.

docs/design.md section 7: a shared pool says how it shares through the node
labels ``nodepools.io/gpu-sharing`` and ``nodepools.io/mig-profile`` (GKE also
labels shared nodes itself, ``cloud.google.com/gke-gpu-partition-size`` and
``cloud.google.com/gke-max-shared-clients-per-gpu``; the GKE pool reader adds
those from the guest accelerator). Per node:

- whole GPUs: ``nvidia.com/gpu`` = GPUs;
- time-slicing: ``nvidia.com/gpu`` = GPUs x replicas (replicas from GKE's label or
  from the device plugin config entry ``time-slicing-<n>`` the node selects);
- MIG: slices = GPUs x the profile's instances per GPU (``nodepools.spec.gpus``),
  advertised as ``nvidia.com/mig-<profile>`` by NVIDIA's plugin (mixed strategy;
  no ``nvidia.com/gpu`` left) and as ``nvidia.com/gpu`` by GKE's own plugin.

A ``nvidia.com/mig-*`` resource on a pool that declares no MIG is absent when its
GPU cannot do MIG, and unknown when it can (the GPU Operator's MIG manager may
partition it at run time, which preview cannot see).

``nvidia.com/gpu.shared`` is what NVIDIA's plugin advertises when a sharing config
renames the resource (``renameByDefault: true``). Our configs never rename
(``guardrails/device_plugin_config.py``) and GKE's plugin keeps ``nvidia.com/gpu``,
so it is absent on GKE pools and on nodes that select no config or one of ours
(``default``, ``time-slicing-<n>``, ``mig-<profile>``); on nodes that select a config
we did not write it is unknown. A node without GPUs offers no GPU resource at all.
Which names are GPU resources is ``vocabulary.is_gpu_resource``, the request side's
definition too.
"""
from __future__ import annotations

import re
from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.podspec import all_containers, container_requests
from nodepools.inventory.pools import PoolView
from nodepools.inventory.values import UNKNOWN, is_unknown
from nodepools.spec.gpus import gpu_memory_gib, mig_profile, supports_mig
from nodepools.spec.instances import GpuModel

# Pool types whose device plugin advertises a MIG slice as nvidia.com/gpu (GKE's own).
_MIG_AS_WHOLE_GPU_TYPES = frozenset({v.TYPE_GKE_NODE_POOL})
_TIME_SLICING_CONFIG_PREFIX = "time-slicing-"
# The device plugin config entries our guardrails write (guardrails/device_plugin_config.py):
# none of them renames nvidia.com/gpu to nvidia.com/gpu.shared.
_OUR_CONFIG = re.compile(r"^(default|time-slicing-\d+|mig-.+)$")


def _model(pool: PoolView) -> GpuModel | None:
    try:
        return GpuModel(pool.gpu_model)
    except ValueError:
        return None


def _replicas(pool: PoolView) -> Any:
    for raw in (pool.labels.get(v.LABEL_GKE_MAX_SHARED_CLIENTS),
                str(pool.labels.get(v.LABEL_DEVICE_PLUGIN_CONFIG, "")).removeprefix(_TIME_SLICING_CONFIG_PREFIX)):
        if isinstance(raw, str) and raw.isdigit():
            return int(raw)
    return UNKNOWN


def sharing_mode(pool: PoolView) -> Any:
    """``none``, ``time-slicing``, ``mig`` or UNKNOWN."""
    mode = pool.labels.get(v.LABEL_GPU_SHARING)
    if is_unknown(mode):
        return UNKNOWN
    if mode is None:
        if pool.labels.get(v.LABEL_GKE_GPU_PARTITION_SIZE):
            return "mig"
        if pool.labels.get(v.LABEL_GKE_GPU_SHARING_STRATEGY):
            return "time-slicing"
        return "none"
    return mode


def mig_profile_name(pool: PoolView) -> Any:
    return pool.labels.get(v.LABEL_MIG_PROFILE) or pool.labels.get(v.LABEL_GKE_GPU_PARTITION_SIZE)


def offered_resource(pool: PoolView) -> Any:
    """The GPU resource name ``pool``'s nodes advertise (UNKNOWN when the sharing is)."""
    mode = sharing_mode(pool)
    if is_unknown(mode):
        return UNKNOWN
    if mode == "mig" and pool.type not in _MIG_AS_WHOLE_GPU_TYPES:
        return v.mig_resource(str(mig_profile_name(pool)))
    return v.GPU_RESOURCE


def _may_rename(pool: PoolView) -> Any:
    """Whether the pool's device plugin config may advertise ``nvidia.com/gpu.shared``."""
    if pool.type in _MIG_AS_WHOLE_GPU_TYPES:
        return False  # GKE's own plugin
    config = pool.labels.get(v.LABEL_DEVICE_PLUGIN_CONFIG)
    if is_unknown(config):
        return UNKNOWN
    return UNKNOWN if config is not None and not _OUR_CONFIG.match(str(config)) else False


def per_node(pool: PoolView, resource: str) -> Any:
    """How many of the GPU resource ``resource`` (``vocabulary.is_gpu_resource``) one node of
    ``pool`` advertises (float, or UNKNOWN); 0 for any other name."""
    gpus = pool.gpu_count
    mode = sharing_mode(pool)
    if is_unknown(gpus) or is_unknown(mode):
        return UNKNOWN
    if gpus == 0 or not v.is_gpu_resource(resource):
        return 0.0
    if resource == offered_resource(pool):
        if mode == "time-slicing":
            replicas = _replicas(pool)
            return UNKNOWN if is_unknown(replicas) else gpus * replicas
        if mode == "mig":
            profile = mig_profile(_model(pool), str(mig_profile_name(pool)))
            return UNKNOWN if profile is None else gpus * profile.instances_per_gpu
        return gpus
    if resource == v.GPU_SHARED_RESOURCE:
        return UNKNOWN if is_unknown(_may_rename(pool)) else 0.0
    if mode == "none":  # a MIG slice on a pool that declares no MIG
        model = _model(pool)
        return UNKNOWN if model is None and pool.gpu_model or supports_mig(model) else 0.0
    return 0.0


def memory_per_request_gib(pool: PoolView) -> Any:
    """GPU memory one GPU request gets on ``pool``: the MIG slice's, else the whole GPU's."""
    model = _model(pool)
    if sharing_mode(pool) == "mig":
        profile = mig_profile(model, str(mig_profile_name(pool)))
        return profile.memory_gib if profile else UNKNOWN
    memory = gpu_memory_gib(model)
    return UNKNOWN if memory is None else memory


def time_sliced_overrequest(spec: Any, pool: PoolView) -> str | None:
    """Why a container cannot get its GPUs on a time-sliced pool: a replica is a share
    of one GPU, so asking for more than one buys no more GPU and both sides refuse it
    (NVIDIA device plugin ``failRequestsGreaterThanOne``, which our configs set; GKE
    "at most 1 nvidia.com/gpu can be requested on GPU nodes" with time-sharing)."""
    if sharing_mode(pool) != "time-slicing":
        return None
    for container in all_containers(spec):
        wanted = container_requests(container).get(v.GPU_RESOURCE, 0.0)
        if wanted > 1:
            return (f"container '{container.get('name', '?')}' requests nvidia.com/gpu {wanted:g} on time-sliced "
                    f"GPUs: at most 1 per container (a replica is a share of one GPU)")
    return None
