"""Kueue's objects from raw resources: which flavors a LocalQueue admits through, each flavor's
Topology and its levels, and the admission checks on them.

Read for ``training-topology`` and the plan (docs/design.md section 9.3), from any Kueue
objects of the stack (ours or the user's), any served version of ``kueue.x-k8s.io``. A value
preview cannot know is UNKNOWN; an object the stack does not hold is absent (None).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from nodepools.inventory.values import UNKNOWN, as_dict, as_list, dig, is_unknown, known_list, known_str_map, plain

KUEUE_TYPE_PREFIX = "kubernetes:kueue.x-k8s.io/"


@dataclass(frozen=True)
class ClusterQueueView:
    flavors: Any  # flavor names (list) or UNKNOWN
    # admission check name -> the flavors it applies to (None: all of the queue's), or UNKNOWN
    checks: Any


@dataclass(frozen=True)
class FlavorView:
    topology: Any  # its topologyName, None without one, or UNKNOWN
    node_labels: Any  # dict, or UNKNOWN


@dataclass(frozen=True)
class KueueView:
    local_queues: dict[tuple[str, str], Any]  # (namespace, name) -> its ClusterQueue's name, or UNKNOWN
    cluster_queues: dict[str, ClusterQueueView]
    flavors: dict[str, FlavorView]
    topologies: dict[str, Any]  # name -> levels (tuple of node labels), or UNKNOWN
    admission_checks: dict[str, Any]  # name -> (controllerName, ProvisioningRequestConfig name) or UNKNOWN
    provisioning_classes: dict[str, Any]  # ProvisioningRequestConfig name -> provisioningClassName

    def flavors_of(self, cluster_queue: str) -> Any:
        """The flavor names a ClusterQueue admits through; None when the stack lacks the queue."""
        queue = self.cluster_queues.get(cluster_queue)
        return None if queue is None else queue.flavors

    def checks_on(self, cluster_queue: str, flavor: str) -> list[str]:
        """Names of the admission checks a ClusterQueue applies to ``flavor`` (known ones)."""
        queue = self.cluster_queues.get(cluster_queue)
        if queue is None or is_unknown(queue.checks):
            return []
        return [name for name, on in queue.checks.items() if on is None or (not is_unknown(on) and flavor in on)]


def _kind(resource_type: str) -> str | None:
    return resource_type.rsplit(":", 1)[-1] if resource_type.startswith(KUEUE_TYPE_PREFIX) else None


def _name(props: dict) -> Any:
    name = dig(props, "metadata", "name")
    return name if isinstance(name, str) else None


def _queue_flavors(spec: Any) -> Any:
    groups = known_list(dig(spec, "resourceGroups"))
    if is_unknown(groups):
        return UNKNOWN
    names: list[str] = []
    for group in groups:
        flavors = known_list(dig(group, "flavors"))
        if is_unknown(flavors):
            return UNKNOWN
        for flavor in flavors:
            name = dig(flavor, "name")
            if is_unknown(name):
                return UNKNOWN
            if isinstance(name, str):
                names.append(name)
    return names


def _queue_checks(spec: Any) -> Any:
    """v1beta2 ``admissionChecksStrategy.admissionChecks[{name, onFlavors}]``; v1beta1 also
    ``admissionChecks`` (names, on every flavor)."""
    strategy = dig(spec, "admissionChecksStrategy", "admissionChecks")
    plain = dig(spec, "admissionChecks")
    if is_unknown(strategy) or is_unknown(plain):
        return UNKNOWN
    out: dict[str, Any] = {name: None for name in as_list(plain) if isinstance(name, str)}
    for check in as_list(strategy):
        name, on = dig(check, "name"), dig(check, "onFlavors")
        if isinstance(name, str):
            out[name] = on if is_unknown(on) or on is None else [f for f in as_list(on) if isinstance(f, str)] or None
    return out


def read_kueue(resources: Iterable[Any]) -> KueueView:
    """Every Kueue object of ``resources`` (anything with ``type`` and ``props``)."""
    view = KueueView({}, {}, {}, {}, {}, {})
    for res in resources:
        kind = _kind(res.type)
        if kind is None:
            continue
        props = as_dict(plain(res.props))
        name, spec = _name(props), props.get("spec")
        if kind == "LocalQueue":
            namespace = dig(props, "metadata", "namespace")
            if name is not None and isinstance(namespace, str):
                view.local_queues[(namespace, name)] = dig(spec, "clusterQueue")
        elif name is None:
            continue
        elif kind == "ClusterQueue":
            view.cluster_queues[name] = ClusterQueueView(_queue_flavors(spec), _queue_checks(spec))
        elif kind == "ResourceFlavor":
            view.flavors[name] = FlavorView(dig(spec, "topologyName"), known_str_map(dig(spec, "nodeLabels")))
        elif kind == "Topology":
            levels = known_list(dig(spec, "levels"))
            view.topologies[name] = UNKNOWN if is_unknown(levels) or any(
                is_unknown(dig(level, "nodeLabel")) for level in levels) else tuple(
                dig(level, "nodeLabel") for level in levels if isinstance(dig(level, "nodeLabel"), str))
        elif kind == "AdmissionCheck":
            controller, parameters = dig(spec, "controllerName"), dig(spec, "parameters", "name")
            view.admission_checks[name] = UNKNOWN if is_unknown(controller) or is_unknown(parameters) else (
                controller, parameters)
        elif kind == "ProvisioningRequestConfig":
            view.provisioning_classes[name] = dig(spec, "provisioningClassName")
    return view
