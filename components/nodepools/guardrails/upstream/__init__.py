"""Upstream facts vendored from the exact pinned releases (see README.md here).

Written by ``tools/refresh_upstream.py`` from fetched upstream git repositories;
read by the library (the autoscaler image of each Kubernetes minor) and by the
tests (chart value keys, autoscaler flags, the upstream IAM policy), so a pin
bump that breaks a fact fails a test instead of a cluster.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

# The prometheus-engine release whose CRDs the Google Managed Prometheus rules are
# validated against (GoogleCloudPlatform/prometheus-engine, tag v0.17.2).
GMP_RELEASE = "v0.17.2"
CHARTS = ("cluster-autoscaler", "kueue", "nvidia-device-plugin", "dra-driver-nvidia-gpu")


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """One vendored JSON file of this package, by file name."""
    return json.loads(resources.files(__name__).joinpath(name).read_text())


def autoscaler_images() -> dict[str, str]:
    """Kubernetes minor -> the image tag of its newest cluster-autoscaler release."""
    return {minor: r["image"] for minor, r in load("autoscaler_releases.json")["releases"].items()}


def autoscaler_flags(image: str) -> dict[str, list[str]]:
    """``{"flags": [...], "deprecated": [...]}`` of one autoscaler release (by image tag);
    KeyError naming the vendored releases otherwise."""
    flags = load("autoscaler_flags.json")["flags"]
    if image not in flags:
        raise KeyError(f"no vendored flags for cluster-autoscaler {image} (vendored: {', '.join(flags)})")
    return flags[image]


def capacity_buffer_crd(image: str) -> dict[str, Any] | None:
    """The CapacityBuffer CRD of one autoscaler release (by image tag), as upstream ships it;
    None for a release without one (before 1.34) or one not vendored."""
    try:
        return load(f"capacitybuffers_crd_{image}.json")["crd"]
    except FileNotFoundError:
        return None


def chart(name: str) -> dict[str, Any]:
    """``version``, ``app_version``, ``keys`` (the values.yaml key tree) and ``_source`` of a chart."""
    return load(f"chart_{name}.json")


def dra_driver_charts() -> dict[str, dict[str, Any]]:
    """Chart version -> the vendored facts of each release of NVIDIA's DRA driver chart nodepools
    checked (``version``, ``keys``, ``oci_reference``, ``device_classes``, ``_source``)."""
    found = load("chart_dra-driver-nvidia-gpu.json")
    return {found["version"]: found}


def provisioning_crd() -> dict[str, Any]:
    """The ProvisioningRequest CRD (autoscaling.x-k8s.io) of the newest supported autoscaler release."""
    return load("crd_provisioningrequests.json")["crd"]


def kueue_gates() -> dict[str, list[dict[str, Any]]]:
    """Kueue's feature gates at the pinned release: gate -> its stages (version, default, stage)."""
    return load("kueue_features.json")["gates"]
