"""Readers over one pod spec (a plain dict from ``values.plain``).

Shared by the policy rules and the placement analysis so that "what does this
pod request, tolerate and select" has one answer everywhere.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, str_map
from nodepools.vocabulary import GPU_RESOURCE


def containers(spec: dict) -> list[dict]:
    return [c for c in as_list(dig(spec, "containers")) if isinstance(c, dict)]


def init_containers(spec: dict) -> list[dict]:
    return [c for c in as_list(dig(spec, "initContainers")) if isinstance(c, dict)]


def all_containers(spec: dict) -> list[dict]:
    return init_containers(spec) + containers(spec)


def tolerations(spec: dict) -> list[dict]:
    return [t for t in as_list(dig(spec, "tolerations")) if isinstance(t, dict)]


def node_selector(spec: dict) -> dict[str, Any]:
    return str_map(dig(spec, "nodeSelector"))


def required_node_terms(spec: dict) -> list[dict] | None:
    """The required nodeSelectorTerms, or None when the pod has no required node affinity."""
    required = dig(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return None
    if is_unknown(required):
        return UNKNOWN  # type: ignore[return-value]
    terms = dig(required, "nodeSelectorTerms", default=[])
    return UNKNOWN if is_unknown(terms) else [t if isinstance(t, dict) else {} for t in as_list(terms)]  # type: ignore[return-value]


def container_requests(container: dict) -> dict[str, float]:
    """Requests as the API server defaults them: a resource with a limit but no
    request requests its limit (extended resources like nvidia.com/gpu may only
    be given as limits)."""
    resources = as_dict(container.get("resources"))
    limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
    out: dict[str, float] = {}
    for name in set(limits) | set(requests):
        raw = requests.get(name, limits.get(name))
        if (value := try_quantity(raw)) is not None:
            out[name] = value
    return out


def _add(total: dict[str, float], more: dict[str, float]) -> dict[str, float]:
    return {k: total.get(k, 0.0) + more.get(k, 0.0) for k in set(total) | set(more)}


def _max(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {k: max(a.get(k, 0.0), b.get(k, 0.0)) for k in set(a) | set(b)}


def _is_sidecar(container: dict) -> bool:
    return container.get("restartPolicy") == "Always"


def pod_requests(spec: dict) -> dict[str, float]:
    """The pod's effective request per resource, as the scheduler computes it:
    app containers and restartable (sidecar) init containers add up; each
    regular init container runs alone beside the sidecars started before it, and
    the pod needs the max of the two (Kubernetes "resource sharing within
    containers", KEP-753 for sidecars)."""
    app: dict[str, float] = {}
    for container in containers(spec):
        app = _add(app, container_requests(container))
    sidecars: dict[str, float] = {}
    init_peak: dict[str, float] = {}
    for container in init_containers(spec):
        requests = container_requests(container)
        if _is_sidecar(container):
            sidecars = _add(sidecars, requests)
        else:
            init_peak = _max(init_peak, _add(sidecars, requests))
    return _max(_add(app, sidecars), init_peak)


def gpu_request(spec: dict) -> float:
    return pod_requests(spec).get(GPU_RESOURCE, 0.0)


def has_unknown_resources(spec: dict) -> bool:
    """True when any container's resources cannot be read during preview."""
    return any(is_unknown(c.get("resources")) or any(is_unknown(v) for v in as_dict(c.get("resources")).values())
               for c in all_containers(spec)) or is_unknown(dig(spec, "containers"))
