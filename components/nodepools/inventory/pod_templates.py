"""The shape every workload reader produces: a workload and its pod templates.

``inventory.workloads`` reads the built-in kinds and dispatches on the type token;
``inventory.custom_workloads``, ``inventory.trainer`` and ``inventory.kserve`` read the
custom resources people run GPU work with (docs/design.md section 8). They all build
these two records with the helpers below, so every rule reads them alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, known_str_map


@dataclass(frozen=True)
class PodTemplate:
    """One pod template. Preview may hide any part of it: ``labels``, ``annotations``
    and ``spec`` are then UNKNOWN (never an empty map, which would judge a pod that
    declares nothing)."""

    role: str  # "" for single-template kinds, else the replica role (Worker, Master, a replicated job)
    labels: Any  # dict[str, str | UNKNOWN], or UNKNOWN
    annotations: Any
    spec: Any  # the pod spec (a dict), or UNKNOWN
    pods: Any  # how many pods this template stands for (float), or UNKNOWN


# The role of the one template standing for a template list unknown at preview.
UNKNOWN_ROLE = "*"

# Gang mechanisms (``inventory.gangs`` decides which one a workload uses).
KUEUE = "Kueue"
COSCHEDULING = "coscheduling"
NATIVE = "native scheduling group"
VOLCANO = "Volcano"


@dataclass(frozen=True)
class GangPolicy:
    """A gang the custom resource itself asks for (a Volcano Job's ``minAvailable``, a
    TrainingRuntime's ``podGroupPolicy``): its mechanism, how many pods must start
    together (float, or UNKNOWN) and where it is declared."""

    mechanism: Any  # one of the names above, or UNKNOWN
    min_pods: Any
    where: str


@dataclass(frozen=True)
class Workload:
    type: str
    kind: str
    urn: str
    name: str
    namespace: Any  # str or UNKNOWN
    labels: Any  # dict[str, str | UNKNOWN], or UNKNOWN
    annotations: Any
    templates: list[PodTemplate]
    raw_spec: Any = field(repr=False)  # dict, or UNKNOWN
    # Where the templates were read when not from the workload itself (a TrainJob's runtime).
    template_source: str = ""
    # Why the pod templates are unknown when preview is not the reason (a runtime outside the stack).
    why_unknown: str = ""
    # Pods that must start together when not all of them (a LeaderWorkerSet's group size).
    group_pods: Any = None
    own_gang: GangPolicy | None = None
    # The class when no label gives one (an InferenceService requesting a GPU is gpu-inference).
    default_class: Any = None

    @property
    def pod_count(self) -> Any:
        """Pods that must run together (replicas / parallelism), or UNKNOWN."""
        counts = [t.pods for t in self.templates]
        if any(is_unknown(c) for c in counts):
            return UNKNOWN
        return sum(counts)

    @property
    def gang_pods(self) -> Any:
        """Pods one gang holds: a group's for a LeaderWorkerSet, else every pod."""
        return self.pod_count if self.group_pods is None else self.group_pods

    def label(self, key: str) -> Any:
        """A label from the pod templates, else the workload's own metadata; UNKNOWN
        when a map that would decide it is unknown."""
        return _lookup(key, [t.labels for t in self.templates] + [self.labels])

    def annotation(self, key: str) -> Any:
        return _lookup(key, [t.annotations for t in self.templates] + [self.annotations])


def _lookup(key: str, maps: list[Any]) -> Any:
    for values in maps:
        if is_unknown(values):
            return UNKNOWN
        if key in values:
            return values[key]
    return None


def count(value: Any, default: float = 1.0) -> Any:
    """A replica count as a float; ``default`` for anything not a number, UNKNOWN at preview."""
    if is_unknown(value):
        return UNKNOWN
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def times(*counts: Any) -> Any:
    out = 1.0
    for value in counts:
        if is_unknown(value):
            return UNKNOWN
        out *= value
    return out


def template(role: str, pod_template: Any, pods: Any) -> PodTemplate:
    """``dig`` carries an unknown template (or metadata) down to every field read from it."""
    spec = dig(pod_template, "spec", default={})
    return PodTemplate(role, known_str_map(dig(pod_template, "metadata", "labels")),
                       known_str_map(dig(pod_template, "metadata", "annotations")),
                       spec if is_unknown(spec) else as_dict(spec), pods)


def unknown_templates(role: str = UNKNOWN_ROLE) -> list[PodTemplate]:
    """One template standing for templates preview cannot list (``role`` where they would be)."""
    return [PodTemplate(role, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)]
