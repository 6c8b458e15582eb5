"""GKE spellings and per-family facts, as data.

Everything the GCP translator needs to know about GKE's enums and about
Compute Engine machine families lives here, so the translator itself is only
wiring. The spellings the inventory reads back live in ``nodepools.clouds``
(accelerator types in ``gcp``, taint effects in ``taints``). Sources:
docs/kubernetes-facts.md section 2 (location policy, driver versions), the GKE and Compute Engine documentation cited per table.
"""
from __future__ import annotations

from enum import Enum

from nodepools.clouds.gcp import ACCELERATOR_TYPES_BY_FAMILY
from nodepools.vocabulary import CapacityType, PoolClass


class GpuDriverVersion(str, Enum):
    """``gpu_driver_installation_config.gpu_driver_version``. Only the two values
    that install a driver are offered: unset (or INSTALLATION_DISABLED) leaves GPU
    nodes without a driver, so no GPU is ever advertised (docs/kubernetes-facts.md s. 2)."""

    DEFAULT = "DEFAULT"
    LATEST = "LATEST"


# ANY uses unused reservations first and lowers spot preemption risk; BALANCED
# spreads on-demand capacity evenly over zones (docs/kubernetes-facts.md section 2).
LOCATION_POLICIES: dict[CapacityType, str] = {
    CapacityType.ON_DEMAND: "BALANCED",
    CapacityType.SPOT: "ANY",
}

# (max_surge, max_unavailable) per class. Classes that must stay up surge one
# node and never drop one. Training surges none: an extra node of an 8-GPU
# type needs 8 spare GPUs of quota, which training projects rarely hold, and
# training tolerates a node going away by design (it checkpoints).
UPGRADE_SURGE: dict[PoolClass, tuple[int, int]] = {
    PoolClass.RESIDENT: (1, 0),
    PoolClass.BATCH: (1, 0),
    PoolClass.GPU_INFERENCE: (1, 0),
    PoolClass.GPU_TRAINING: (0, 1),
}

# Families that boot only from Hyperdisk (Compute Engine "machine series"
# disk support tables); every family in the instance table (n2, e2, c3, g2,
# a2, a3-highgpu) takes pd-balanced, GKE's own default.
_HYPERDISK_ONLY_FAMILIES = frozenset({
    "n4", "n4a", "n4d", "c4", "c4a", "c4d", "h4d", "x4", "a3-ultragpu", "a4", "a4x",
})
DISK_PD_BALANCED = "pd-balanced"
DISK_HYPERDISK_BALANCED = "hyperdisk-balanced"

# Container-Optimized OS: read-only root file system, minimal surface; the
# LATEST driver version is a COS driver (docs/kubernetes-facts.md section 2).
IMAGE_TYPE = "COS_CONTAINERD"
WORKLOAD_METADATA_MODE = "GKE_METADATA"
OAUTH_SCOPE_CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
NODE_METADATA = {"disable-legacy-endpoints": "true"}
PLACEMENT_COMPACT = "COMPACT"
# GPUSharingConfig.gpuSharingStrategy (container/v1 API), and the value GKE then
# writes in the cloud.google.com/gke-gpu-sharing-strategy node label.
GPU_SHARING_TIME_SHARING = "TIME_SHARING"
GKE_LABEL_TIME_SHARING = "time-sharing"
UPGRADE_STRATEGY = "SURGE"

# GKE's least-privilege role for node service accounts (logging, monitoring,
# autoscaling metrics); it replaces the older trio logging.logWriter,
# monitoring.metricWriter, monitoring.viewer (CIS GKE benchmark 2.0, 5.2.1).
DEFAULT_NODE_ROLES = ("roles/container.defaultNodeServiceAccount",)
# Basic roles that no node needs; refused even when asked for.
FORBIDDEN_NODE_ROLES = frozenset({"roles/owner", "roles/editor", "roles/viewer"})
DEFAULT_COMPUTE_SA_SUFFIX = "-compute@developer.gserviceaccount.com"

# Zones a regional GKE cluster spreads a node pool over when none are given.
REGIONAL_DEFAULT_ZONE_COUNT = 3


def machine_family(machine_type: str) -> str:
    """``n2-standard-4`` -> ``n2``; ``a3-ultragpu-8g`` -> ``a3-ultragpu`` when
    that sub-family is listed somewhere here, else the series."""
    series, _, rest = machine_type.partition("-")
    sub = f"{series}-{rest.partition('-')[0]}"
    known = _HYPERDISK_ONLY_FAMILIES | {f for f, _ in ACCELERATOR_TYPES_BY_FAMILY}
    return sub if sub in known else series


def boot_disk_type(machine_type: str) -> str:
    if machine_family(machine_type) in _HYPERDISK_ONLY_FAMILIES or machine_type.endswith("-metal"):
        return DISK_HYPERDISK_BALANCED
    return DISK_PD_BALANCED
