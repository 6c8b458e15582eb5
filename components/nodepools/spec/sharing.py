"""GPU sharing of a gpu-inference pool: whole GPUs, time-slicing or one MIG profile.

docs/design.md section 7 ("GPU sharing, DRA, versions, GPU memory"). Training
pools take whole GPUs: a training step saturates a GPU, and time-slicing would
only interleave two jobs' steps (no memory isolation either), while MIG slices
break the NCCL collectives of multi-GPU training.

What a shared pool offers the scheduler:
- time-slicing keeps the resource name ``nvidia.com/gpu`` and advertises
  ``replicas`` of it per GPU (NVIDIA k8s-device-plugin ``sharing.timeSlicing``
  with ``renameByDefault: false``; GKE ``gpuSharingConfig`` TIME_SHARING). The
  replicas share the GPU's memory: each sees all of it.
- MIG splits each GPU into ``instances_per_gpu`` slices of the profile's memory.
  NVIDIA's device plugin with the ``mixed`` strategy names the resource
  ``nvidia.com/mig-<profile>``; GKE's own device plugin advertises partitions as
  ``nvidia.com/gpu`` and labels the node ``cloud.google.com/gke-gpu-partition-size``
  (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi).
"""
from __future__ import annotations

from nodepools import vocabulary as v
from nodepools.spec.errors import Problems
from nodepools.spec.gpus import GPU_MEMORY_GIB, MIG_PROFILES, mig_capable_models, mig_profile
from nodepools.spec.options import MAX_TIME_SLICING_REPLICAS, GpuSharing, GpuSharingMode
from nodepools.spec.pool_fields import PoolFields
from nodepools.vocabulary import Cloud, PoolClass

__all__ = ["GpuSharing", "GpuSharingMode", "check_sharing", "device_plugin_config_name", "gpu_resource",
           "memory_per_slot_gib", "slots_per_gpu", "slots_per_node"]

SHARING_CLASSES = (PoolClass.GPU_INFERENCE,)
# Clouds whose device plugin advertises a MIG slice as nvidia.com/gpu (GKE's own plugin).
MIG_AS_WHOLE_GPU_CLOUDS = frozenset({Cloud.GCP})


# Labels that say how a node's GPUs are shared; set from gpu_sharing only, so a
# user label cannot make a node claim a sharing it does not have.
SHARING_LABEL_KEYS = (v.LABEL_GPU_SHARING, v.LABEL_MIG_PROFILE, v.LABEL_DEVICE_PLUGIN_CONFIG)


def check_sharing(spec: PoolFields, problems: Problems) -> None:
    """Every problem of ``spec.gpu_sharing``, each naming its field and the allowed values."""
    sharing = spec.gpu_sharing
    for key in SHARING_LABEL_KEYS:
        if key in spec.labels:
            problems.add(("labels", key), f"label {key!r} is set by the pool from gpu_sharing and cannot be "
                         f"given (set gpu_sharing.mode: none, time-slicing or mig instead)", spec.labels[key])
    mode = sharing.mode
    if mode is not GpuSharingMode.TIME_SLICING and sharing.replicas is not None:
        problems.add(("gpu_sharing", "replicas"), f"gpu_sharing.replicas is only for mode 'time-slicing' "
                     f"(mode is {mode.value!r})", sharing.replicas)
    if mode is not GpuSharingMode.MIG and sharing.profile is not None:
        problems.add(("gpu_sharing", "profile"), f"gpu_sharing.profile is only for mode 'mig' (mode is "
                     f"{mode.value!r})", sharing.profile)
    if not sharing.shared:
        return
    if spec.pool_class not in SHARING_CLASSES:
        problems.add(("gpu_sharing", "mode"), f"gpu_sharing mode {mode.value!r} is not allowed for class "
                     f"{spec.pool_class.value} (allowed: none); only gpu-inference pools share GPUs, training "
                     "takes whole GPUs", mode.value)
        return
    if mode is GpuSharingMode.TIME_SLICING and sharing.replicas is None:
        problems.add(("gpu_sharing", "replicas"), "gpu_sharing mode 'time-slicing' needs replicas per GPU "
                     f"(allowed: 2-{MAX_TIME_SLICING_REPLICAS})", None)
    if mode is GpuSharingMode.MIG:
        _check_mig(spec, problems)


def _check_mig(spec: PoolFields, problems: Problems) -> None:
    model, profile = spec.gpu_model, spec.gpu_sharing.profile
    if model not in MIG_PROFILES:
        allowed = ", ".join(m.value for m in mig_capable_models())
        problems.add(("gpu_sharing", "mode"), f"gpu_sharing mode 'mig' needs a MIG-capable GPU (allowed: {allowed}); "
                     f"{model.value if model else 'this pool'!s} does not support MIG", "mig")
        return
    allowed = ", ".join(MIG_PROFILES[model])
    if profile is None:
        problems.add(("gpu_sharing", "profile"), f"gpu_sharing mode 'mig' needs a profile (allowed for "
                     f"{model.value}: {allowed})", None)
    elif mig_profile(model, profile) is None:
        problems.add(("gpu_sharing", "profile"), f"MIG profile {profile!r} does not exist on {model.value} "
                     f"(allowed: {allowed})", profile)


def gpu_resource(spec: PoolFields) -> str | None:
    """The extended resource a pod requests to land on ``spec``'s GPUs (None for CPU pools)."""
    if not spec.has_gpu:
        return None
    sharing = spec.gpu_sharing
    if sharing.mode is GpuSharingMode.MIG and spec.cloud not in MIG_AS_WHOLE_GPU_CLOUDS:
        return v.mig_resource(str(sharing.profile))
    return v.GPU_RESOURCE


def slots_per_gpu(spec: PoolFields) -> int:
    """How many of ``gpu_resource`` one physical GPU offers."""
    sharing = spec.gpu_sharing
    if sharing.mode is GpuSharingMode.TIME_SLICING:
        return int(sharing.replicas or 1)
    if sharing.mode is GpuSharingMode.MIG:
        profile = mig_profile(spec.gpu_model, str(sharing.profile))
        return profile.instances_per_gpu if profile else 1
    return 1


def slots_per_node(spec: PoolFields) -> int:
    return spec.gpus_per_node * slots_per_gpu(spec) if spec.has_gpu else 0


def memory_per_slot_gib(spec: PoolFields) -> int | None:
    """GPU memory one request gets: the profile's slice for MIG, else the whole GPU's
    (time-sliced replicas share it, each can address all of it)."""
    if spec.gpu_sharing.mode is GpuSharingMode.MIG:
        profile = mig_profile(spec.gpu_model, str(spec.gpu_sharing.profile))
        return profile.memory_gib if profile else None
    return GPU_MEMORY_GIB.get(spec.gpu_model) if spec.gpu_model else None


def device_plugin_config_name(spec: PoolFields) -> str | None:
    """The NVIDIA device plugin config entry a shared pool's nodes select with the
    ``nvidia.com/device-plugin.config`` label (None: the chart's default entry)."""
    sharing = spec.gpu_sharing
    if sharing.mode is GpuSharingMode.TIME_SLICING:
        return f"time-slicing-{sharing.replicas}"
    if sharing.mode is GpuSharingMode.MIG:
        return f"mig-{sharing.profile}"
    return None
