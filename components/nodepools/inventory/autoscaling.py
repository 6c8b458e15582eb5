"""What scales a workload and what keeps capacity warm for it, read from raw resources.

docs/design.md section 9.4 ("Warm capacity objects"):

- A workload is **autoscaled** when a HorizontalPodAutoscaler (``autoscaling/v2`` or
  ``v1``) or a KEDA ``keda.sh/v1alpha1`` ScaledObject targets it (``spec.scaleTargetRef``:
  kind, name, same namespace; KEDA's kind defaults to Deployment), or when it is a KServe
  InferenceService whose predictor's ``maxReplicas`` exceeds its ``minReplicas``
  (``inventory.kserve.predictor_scaling``, the one reader of the predictor). A target name unknown at preview (the
  Deployment's auto-name) is followed through the scaler's dependencies.
- **Warm sources**: a CapacityBuffer (``autoscaling.x-k8s.io`` v1alpha1 or v1beta1) with
  the pod template of its ``podTemplateRef`` (a PodTemplate of its namespace) or of the
  workload its ``scalableRef`` names; a Deployment whose pods run at a PriorityClass of the
  stack with a negative value and ``preemptionPolicy: Never`` (the classic placeholder).

Resources are ``inventory.resource.Resource``s (plain data, UNKNOWN where preview cannot know).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, dig, is_unknown, known_str
from nodepools.inventory.workloads import Workload, read_workload

KEDA_DEFAULT_KIND = "Deployment"


def is_placeholder(workload: Workload) -> bool:
    """A warm-capacity placeholder: its pods carry ``nodepools.io/placeholder: "true"`` (section 9.4)."""
    return workload.label(v.LABEL_PLACEHOLDER) == v.LABEL_PLACEHOLDER_VALUE


def _namespace(props: Any) -> Any:
    namespace = known_str(dig(props, "metadata", "namespace"))
    return namespace if is_unknown(namespace) else (namespace or "default")


@dataclass(frozen=True)
class Scaler:
    """An HPA or ScaledObject and the workload it scales."""

    urn: str
    what: str  # "HorizontalPodAutoscaler 'llm'"
    kind: Any  # the target's kind, or UNKNOWN
    name: Any  # the target's name, or UNKNOWN
    namespace: Any
    dependencies: tuple[str, ...]

    def scales(self, workload: Workload) -> Any:
        """True, False or UNKNOWN: this scaler targets ``workload``."""
        if self.kind is None or self.name is None:
            return False  # no target: the API server refuses such a scaler
        if isinstance(self.kind, str) and self.kind != workload.kind:
            return False
        if isinstance(self.namespace, str) and isinstance(workload.namespace, str) and \
                self.namespace != workload.namespace:
            return False
        sure = isinstance(self.kind, str) and isinstance(self.namespace, str) and isinstance(workload.namespace, str)
        if isinstance(self.name, str):
            return (True if sure else UNKNOWN) if self.name == workload.name else False
        # The name is an output (the workload's auto-name): the workload it comes from is a dependency.
        if workload.urn in self.dependencies:
            return True if sure else UNKNOWN
        same_type = [d for d in self.dependencies if _urn_type(d) == workload.type]
        return False if same_type else UNKNOWN


def _urn_type(urn: str) -> str:
    """``urn:pulumi:<stack>::<project>::<parent type>$<type>::<name>`` -> ``<type>``."""
    parts = urn.split("::")
    return parts[2].rsplit("$", 1)[-1] if len(parts) >= 4 else ""


def read_scaler(res: Any) -> Scaler | None:
    if res.type in v.HPA_TYPES:
        label, default_kind = "HorizontalPodAutoscaler", None
    elif res.type == v.TYPE_KEDA_SCALED_OBJECT:
        label, default_kind = "ScaledObject", KEDA_DEFAULT_KIND
    else:
        return None
    ref = dig(res.props, "spec", "scaleTargetRef")
    kind = dig(ref, "kind", default=default_kind)
    name = dig(res.props, "metadata", "name", default=res.name)
    return Scaler(res.urn, f"{label} '{'<unknown>' if is_unknown(name) else name}'", known_str(kind),
                  known_str(dig(ref, "name")), _namespace(res.props), tuple(res.dependencies))


def autoscaled_by(workload: Workload, scalers: Iterable[Scaler]) -> tuple[Any, str]:
    """(True / False / UNKNOWN, what scales it)."""
    answers = [(s.scales(workload), s.what) for s in scalers]
    for answer, what in answers:
        if answer is True:
            return True, what
    maybe = [what for answer, what in answers if is_unknown(answer)]
    return (UNKNOWN, " or ".join(maybe)) if maybe else (False, "")


# --- warm capacity -----------------------------------------------------------------------

@dataclass(frozen=True)
class WarmSource:
    """Something that keeps a replica-shaped slot free: its pod spec and how many slots."""

    urn: str
    what: str  # "CapacityBuffer 'x' in namespace 'y'"
    spec: Any  # the pod spec its slots are shaped like, or UNKNOWN
    slots: Any  # replicas (float), UNKNOWN when not known at preview


def _buffer_slots(spec: Any) -> Any:
    """A buffer holds slots unless its size is known to be zero (replicas 0 and no percentage or limits)."""
    replicas, percentage, limits = dig(spec, "replicas"), dig(spec, "percentage"), dig(spec, "limits")
    if any(is_unknown(x) for x in (replicas, percentage, limits)):
        return UNKNOWN
    if percentage or limits:
        return UNKNOWN if not replicas else float(replicas)
    return float(replicas or 0)


def warm_sources(resources: list[Any]) -> list[WarmSource]:
    """Every CapacityBuffer and placeholder Deployment of the stack (module docstring)."""
    # Keys of the wrong shape (a list where a name goes) are left out: the API server refuses them.
    templates = {(_namespace(r.props), known_str(dig(r.props, "metadata", "name"))): r for r in resources
                 if r.type == v.TYPE_POD_TEMPLATE}
    workloads = [w for w in (read_workload(r.type, r.props, r.urn, r.name) for r in resources) if w is not None]
    classes = {known_str(dig(r.props, "metadata", "name")): r.props for r in resources
               if r.type == v.TYPE_PRIORITY_CLASS}
    out = []
    for res in resources:
        if res.type in v.CAPACITY_BUFFER_TYPES:
            out.append(_buffer(res, templates, workloads))
        elif res.type == "kubernetes:apps/v1:Deployment":
            source = _placeholder(res, classes)
            if source is not None:
                out.append(source)
    return out


def _buffer(res: Any, templates: dict, workloads: list[Workload]) -> WarmSource:
    namespace, spec = _namespace(res.props), dig(res.props, "spec")
    name = dig(res.props, "metadata", "name", default=res.name)
    what = f"CapacityBuffer '{'<unknown>' if is_unknown(name) else name}' in namespace " \
           f"'{'<unknown>' if is_unknown(namespace) else namespace}'"
    template_name, scalable = dig(spec, "podTemplateRef", "name"), dig(spec, "scalableRef")
    pod: Any = UNKNOWN
    if isinstance(template_name, str):
        found = templates.get((namespace, template_name))
        pod = dig(found.props, "template", "spec") if found is not None else UNKNOWN
    elif isinstance(scalable, dict) and isinstance(scalable.get("name"), str):
        target = [w for w in workloads if w.kind == scalable.get("kind") and w.name == scalable["name"]
                  and w.namespace == namespace and w.templates]
        pod = target[0].templates[0].spec if target else UNKNOWN
    return WarmSource(res.urn, what, pod, _buffer_slots(spec))


def _placeholder(res: Any, classes: dict[Any, Any]) -> WarmSource | None:
    workload = read_workload(res.type, res.props, res.urn, res.name)
    if workload is None or not workload.templates:
        return None
    template = workload.templates[0]
    class_name = dig(template.spec, "priorityClassName")
    if is_unknown(class_name):
        return WarmSource(res.urn, f"Deployment '{workload.name}'", UNKNOWN, UNKNOWN)
    priority = classes.get(class_name)
    if priority is None:
        return None
    value, policy = dig(priority, "value"), dig(priority, "preemptionPolicy")
    if is_unknown(value) or is_unknown(policy):
        return WarmSource(res.urn, f"Deployment '{workload.name}'", UNKNOWN, UNKNOWN)
    if not (isinstance(value, (int, float)) and value < 0 and policy == "Never"):
        return None
    return WarmSource(res.urn, f"placeholder Deployment '{workload.name}' in namespace '{workload.namespace}' "
                      f"(PriorityClass {class_name} {value:g}, preemptionPolicy Never)", template.spec, template.pods)
