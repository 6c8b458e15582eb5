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
# GKE cluster names (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters
# ``name``): lowercase letters, digits and '-', starting with a letter, at most 40.
GKE_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?\Z")
GKE_NAME_RULE = "1-40 lowercase letters, digits or '-', starting with a letter"
_CLUSTER_ID = re.compile(r"projects/[^/]+/locations/[^/]+/clusters/(?P<name>[^/]+)\Z")
KMS_KEY_NAME = re.compile(r"projects/[^/]+/locations/(?P<location>[^/]+)/keyRings/[^/]+/cryptoKeys/[^/]+\Z")


def cluster_name_problem(name: str, ids: bool = False) -> str | None:
    """Why ``name`` is no GKE cluster name (with ``ids``, nor a ``projects/P/locations/L/clusters/C`` id)."""
    match = _CLUSTER_ID.match(name) if ids else None
    if GKE_NAME.match(match["name"] if match else name):
        return None
    return f"cluster name {name!r} is invalid: {GKE_NAME_RULE}" + (
        " (or projects/<p>/locations/<l>/clusters/<name>)" if ids else "")


def kms_key_problem(field: str, key: str, region: str | None) -> str | None:
    """Why ``key`` is no Cloud KMS key of ``region`` (None: any region); None when it is."""
    match = KMS_KEY_NAME.match(key)
    if match is None:
        return f"{field} {key!r} is not a Cloud KMS key name (projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>)"
    if region is not None and match["location"] != region:
        return f"{field} {key!r} lives in {match['location']!r}; GKE needs it in the cluster's region {region!r}"
    return None


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
