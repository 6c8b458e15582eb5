"""A KServe InferenceService (``serving.kserve.io/v1beta1``): the one reader of its predictor.

The predictor is a pod spec with KServe's own fields beside it; its ``model`` becomes the
``kserve-container`` when it lists no ``containers`` (docs/design.md section 8). The workload
rules, the placement analysis and ``inference-scale-headroom`` all read it from here: its pod
through ``inventory.workloads``, its own scaling (``minReplicas`` / ``maxReplicas``) through
``predictor_scaling``. With no class label anywhere, one that requests a GPU is ``gpu-inference``.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory.gpu_requests import containers_request_gpu
from nodepools.inventory.pod_templates import PodTemplate, count, unknown_templates
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_str_map
from nodepools.vocabulary import PoolClass

# KServe ComponentExtensionSpec defaults (serving.kserve.io/v1beta1).
KSERVE_MIN_REPLICAS, KSERVE_MAX_REPLICAS = 1.0, 0.0
# Predictor fields that are KServe's, not the pod's: the component extension, the model
# spec and the framework shortcuts.
_KSERVE_FIELDS = frozenset({
    "minReplicas", "maxReplicas", "scaleTarget", "scaleMetric", "scaleMetricType", "containerConcurrency",
    "timeout", "canaryTrafficPercent", "logger", "batcher", "labels", "annotations", "deploymentStrategy",
    "autoScaling", "model", "workerSpec", "sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml",
    "lightgbm", "paddle", "huggingface"})
_MODEL_FIELDS = frozenset({"modelFormat", "runtime", "storageUri", "protocolVersion", "runtimeVersion", "storage"})
KSERVE_CONTAINER = "kserve-container"
PREDICTOR_ROLE = "predictor"


def _predictor_spec(predictor: Any) -> Any:
    """The predictor as a pod spec: its pod fields, and its model as the ``kserve-container``."""
    if is_unknown(predictor):
        return UNKNOWN
    predictor = as_dict(predictor)
    spec = {k: val for k, val in predictor.items() if k not in _KSERVE_FIELDS}
    model = predictor.get("model")
    if is_unknown(model):
        return UNKNOWN
    if isinstance(model, dict) and not spec.get("containers"):
        spec["containers"] = [{"name": KSERVE_CONTAINER, **{k: val for k, val in model.items()
                                                            if k not in _MODEL_FIELDS}}]
    return spec


def serves_model(raw_spec: Any) -> bool:
    """The predictor's first container is its ``model`` (no ``containers`` of its own)."""
    predictor = dig(raw_spec, "predictor")
    return isinstance(dig(predictor, "model"), dict) and not dig(predictor, "containers")


def _replicas(predictor: Any) -> tuple[Any, Any]:
    return (count(dig(predictor, "minReplicas"), KSERVE_MIN_REPLICAS),
            count(dig(predictor, "maxReplicas"), KSERVE_MAX_REPLICAS))


def read_inference_service(spec: Any) -> tuple[list[PodTemplate], dict[str, Any]]:
    """The predictor's pod (``minReplicas`` of them) and the class it takes without a label."""
    predictor = dig(spec, "predictor")
    if is_unknown(predictor):
        return unknown_templates(), {"default_class": UNKNOWN}
    pod = _predictor_spec(predictor)
    template = PodTemplate(PREDICTOR_ROLE, known_str_map(dig(predictor, "labels")),
                           known_str_map(dig(predictor, "annotations")), pod, _replicas(predictor)[0])
    gpu = containers_request_gpu(pod)
    return [template], {"default_class": UNKNOWN if is_unknown(gpu) else (PoolClass.GPU_INFERENCE if gpu else None)}


def predictor_scaling(raw_spec: Any) -> tuple[Any, str]:
    """(the predictor scales itself: maxReplicas > minReplicas, True / False / UNKNOWN, how that reads)."""
    low, high = _replicas(dig(raw_spec, "predictor"))
    if is_unknown(low) or is_unknown(high):
        return UNKNOWN, "maxReplicas unknown"
    return high > low, f"its predictor scales from minReplicas {low:g} to maxReplicas {high:g}"
