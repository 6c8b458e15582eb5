"""GKE's spellings, both directions: accelerator types, the project-id rule (taint effects:
``nodepools.clouds.taints``, shared with EKS).

Source: https://cloud.google.com/compute/docs/gpus (accelerator names). Pure: no provider SDK.
"""
from __future__ import annotations

import re

from nodepools.spec.instances import GpuModel

# ``guestAccelerators[].type`` (and the ``cloud.google.com/gke-accelerator`` label
# value) per model. Models absent here are not offered on GKE.
ACCELERATOR_TYPES: dict[GpuModel, str] = {
    GpuModel.NVIDIA_T4: "nvidia-tesla-t4",
    GpuModel.NVIDIA_L4: "nvidia-l4",
    GpuModel.NVIDIA_A100: "nvidia-tesla-a100",
    GpuModel.NVIDIA_A100_80GB: "nvidia-a100-80gb",
    GpuModel.NVIDIA_H100: "nvidia-h100-80gb",
}
# Machine families whose accelerator has its own GKE name although the model is
# shared (A3 Mega carries H100s with a different interconnect).
ACCELERATOR_TYPES_BY_FAMILY: dict[tuple[str, GpuModel], str] = {
    ("a3-megagpu", GpuModel.NVIDIA_H100): "nvidia-h100-mega-80gb",
}
GPU_MODEL_OF_ACCELERATOR: dict[str, GpuModel] = {
    **{name: model for model, name in ACCELERATOR_TYPES.items()},
    **{name: model for (_, model), name in ACCELERATOR_TYPES_BY_FAMILY.items()},
}

PROJECT_ID = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]\Z")
_ZONE = re.compile(r"^([a-z]+-[a-z]+[0-9]+)-[a-z]\Z")


def region_of(location: str) -> str:
    """``us-central1-a`` -> ``us-central1``; a region is its own region."""
    match = _ZONE.match(location)
    return match.group(1) if match else location


def is_zone(location: str) -> bool:
    return bool(_ZONE.match(location))


def accelerator_type(model: GpuModel, machine_type: str) -> str | None:
    """The GKE accelerator name for ``model`` on ``machine_type``; None when GKE offers no such GPU."""
    for (family, family_model), name in ACCELERATOR_TYPES_BY_FAMILY.items():
        if family_model is model and machine_type.startswith(f"{family}-"):
            return name
    return ACCELERATOR_TYPES.get(model)


def gpu_models() -> list[GpuModel]:
    """The models GKE offers, in the model enum's order."""
    return [m for m in GpuModel if m in ACCELERATOR_TYPES]
