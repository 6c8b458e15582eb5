"""Readers over one pod spec (a plain dict from ``values.plain``, or ``UNKNOWN``
when preview cannot see the pod template at all).

Shared by the policy rules and the placement analysis so that "what does this
pod request, tolerate and select" has one answer everywhere. A list with an
unknown entry (a container, a toleration) reads as unknown as a whole, never as
the list without that entry.
"""
from __future__ import annotations

from typing import Any

from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, json_type, known_list, str_map

CONTAINER_LISTS = ("initContainers", "containers")


def containers(spec: Any) -> list[dict]:
    """The app containers that can be read (object entries); see ``container_list`` for unknowns."""
    return [c for c in as_list(dig(spec, "containers")) if isinstance(c, dict)]


def init_containers(spec: Any) -> list[dict]:
    return [c for c in as_list(dig(spec, "initContainers")) if isinstance(c, dict)]


def all_containers(spec: Any) -> list[dict]:
    return init_containers(spec) + containers(spec)


def container_list(spec: Any, key: str = "containers") -> Any:
    """``(index, container)`` for each object entry of ``spec[key]``, or UNKNOWN when
    the pod spec, the list or one of its entries is unknown."""
    raw = known_list(dig(spec, key))
    return UNKNOWN if is_unknown(raw) else [(i, c) for i, c in enumerate(raw) if isinstance(c, dict)]


def container_problem(spec: Any) -> Any:
    """Why the API server would reject this pod spec's containers: ``(field, problem)``
    with ``field`` relative to the pod spec; None when they are valid; UNKNOWN when
    preview cannot tell. A pod needs at least one container, and every container and
    init container is an object with a name (the PodSpec and Container schemas'
    ``required``; the API server's ValidatePodSpec also refuses an empty list)."""
    if is_unknown(spec):
        return UNKNOWN
    undecided = False
    for key in CONTAINER_LISTS:
        raw = dig(spec, key)
        if is_unknown(raw):
            undecided = True
            continue
        if raw is None or raw == []:
            if key == "containers":
                return key, "no containers" if raw is None else "an empty containers list"
            continue
        if not isinstance(raw, list):
            return key, f"not a list of containers ({json_type(raw)})"
        for i, entry in enumerate(raw):
            name = dig(entry, "name")
            if is_unknown(entry) or is_unknown(name):
                undecided = True
            elif not isinstance(entry, dict):
                return f"{key}[{i}]", f"not a container object ({json_type(entry)})"
            elif not isinstance(name, str) or not name:
                return f"{key}[{i}]", "a container without a name"
    return UNKNOWN if undecided else None


def toleration_entries(spec: Any) -> Any:
    """``(index, toleration)`` per entry of the pod's own ``tolerations``, the toleration a
    dict or UNKNOWN (an entry preview cannot see); UNKNOWN when the list itself is. An entry
    that is not an object is left out, its index skipped: the API server refuses such a
    pod, so it tolerates nothing. The one reader of tolerations (``tolerations`` below,
    the placement analysis and the toleration rules all read through it)."""
    raw = dig(spec, "tolerations")
    if is_unknown(raw):
        return UNKNOWN
    return [(i, t) for i, t in enumerate(as_list(raw)) if isinstance(t, dict) or is_unknown(t)]


def tolerations(spec: Any) -> Any:
    """The pod's own tolerations, or UNKNOWN when the list or an entry is unknown (an
    unknown entry could tolerate anything, so the list without it is not the pod's)."""
    entries = toleration_entries(spec)
    if is_unknown(entries) or any(is_unknown(t) for _, t in entries):
        return UNKNOWN
    return [t for _, t in entries]


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
    if is_unknown(terms):
        return UNKNOWN  # type: ignore[return-value]
    # An unknown term stays UNKNOWN (another term may still match); a malformed one matches nothing.
    return [t if isinstance(t, dict) or is_unknown(t) else {} for t in as_list(terms)]


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


def _resources_unknown(container: dict) -> bool:
    resources = container.get("resources")
    if is_unknown(resources):
        return True
    blocks = [as_dict(resources).get(k) for k in ("requests", "limits")]
    return any(is_unknown(b) or any(is_unknown(x) for x in as_dict(b).values()) for b in blocks)


def has_unknown_resources(spec: Any) -> bool:
    """True when preview cannot read every request and limit: the pod spec, a container
    list or entry, a resources block or a single quantity is unknown."""
    lists = [container_list(spec, key) for key in CONTAINER_LISTS]
    return any(is_unknown(entries) or any(_resources_unknown(c) for _, c in entries) for entries in lists)
