"""What a DRA DeviceClass hands out: GPUs or not, whole GPUs or MIG slices (of which profile).

docs/design.md sections 7 and 11.4. A class is a GPU class when one of its CEL selectors names
NVIDIA's GPU driver (``gpu.nvidia.com``); it hands out MIG slices when a selector asks for the
driver's ``type == 'mig'`` devices, of one profile when it also compares ``profile`` (the MIG
device attributes ``type``, ``profile``, ``parentUUID``: kubernetes-sigs/dra-driver-nvidia-gpu
cmd/gpu-kubelet-plugin/mig.go@v0.4.1, ``CommonAttributesMig``). A claim request's own
selectors may name the profile too.

A stack need not declare the classes it claims: NVIDIA's DRA driver publishes
``gpu.nvidia.com``, ``mig.nvidia.com`` and ``vfio.gpu.nvidia.com`` from its chart
(deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-*.yaml@v0.4.1, behind
``resources.gpus.enabled``), and the GPU Operator's DRA stack publishes the same (a
``nvidia.com/v1alpha1`` GPUCluster, or a ``gpu-operator`` release with
``gpuCluster.deployCR``: NVIDIA/gpu-operator deployments/gpu-operator/values.yaml@v26.7.0,
"gpus configures the gpu.nvidia.com / mig.nvidia.com / vfio.gpu.nvidia.com capability").
``published_classes`` reads those installs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, as_list, dig, is_unknown

_MIG_TYPE = re.compile(r"\.type\s*==\s*['\"]mig['\"]")
_PROFILE = re.compile(r"\.profile\s*==\s*['\"]([^'\"]+)['\"]")


@dataclass(frozen=True)
class ClassKind:
    """A GPU class's devices: ``mig`` slices (of ``profile``, None: any) or whole GPUs."""

    mig: bool = False
    profile: str | None = None


def _expressions(selectors: Any) -> list[Any]:
    return [dig(s, "cel", "expression") for s in as_list(selectors)]


def device_class_is_gpu(props: Any) -> Any:
    """True when a selector names the NVIDIA GPU driver; UNKNOWN when a selector is unknown."""
    selectors = dig(props, "spec", "selectors")
    if is_unknown(selectors):
        return UNKNOWN
    answer: Any = False
    for expression in _expressions(selectors):
        if is_unknown(expression):
            answer = UNKNOWN
        elif isinstance(expression, str) and v.NVIDIA_DRA_DRIVER in expression:
            return True
    return answer


def selected_profile(selectors: Any) -> str | None:
    """The MIG profile CEL selectors compare against, if any (unknown selectors name none)."""
    for expression in _expressions(selectors):
        if isinstance(expression, str) and (found := _PROFILE.search(expression)):
            return found[1]
    return None


def class_kind(props: Any) -> ClassKind:
    """Whole GPUs or MIG slices, read from a DeviceClass's selectors."""
    selectors = dig(props, "spec", "selectors")
    mig = any(isinstance(e, str) and _MIG_TYPE.search(e) for e in _expressions(selectors))
    return ClassKind(True, selected_profile(selectors)) if mig else ClassKind()


# What the driver's chart (and the GPU Operator's copy of the driver) publishes: whole GPUs,
# MIG slices of any profile, passthrough GPUs.
DRIVER_CLASSES = {v.DRA_CLASS_GPU: ClassKind(), v.DRA_CLASS_MIG: ClassKind(mig=True), v.DRA_CLASS_VFIO: ClassKind()}


def helm_chart_name(props: Any) -> Any:
    """The chart a Helm release installs (its last path segment: an OCI reference names it too), or UNKNOWN."""
    chart = dig(props, "chart")
    return chart if is_unknown(chart) else str(chart or "").rstrip("/").rsplit("/", 1)[-1]


def installs_dra_driver(type_: str, props: Any) -> Any:
    """Whether the resource installs NVIDIA's DRA driver for GPUs: its chart with GPUs on, the GPU
    Operator's GPUCluster, or a gpu-operator release deploying one. UNKNOWN where preview cannot see."""
    if type_ == v.TYPE_GPU_CLUSTER:
        return True
    if type_ not in v.HELM_TYPES:
        return False
    chart = helm_chart_name(props)
    if is_unknown(chart):
        return UNKNOWN
    if chart in v.DRA_DRIVER_CHARTS:
        enabled = dig(props, "values", "resources", "gpus", "enabled")
        return enabled if is_unknown(enabled) else enabled is not False
    if chart == v.GPU_OPERATOR_CHART:
        deploy = dig(props, "values", "gpuCluster", "deployCR")
        return deploy if is_unknown(deploy) else deploy is True
    return False


def published_classes(type_: str, props: Any) -> dict[str, ClassKind]:
    """The GPU DeviceClasses a resource publishes without declaring them (an install of the driver)."""
    return dict(DRIVER_CLASSES) if installs_dra_driver(type_, props) is True else {}
