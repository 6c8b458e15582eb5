"""Which gang mechanism a workload uses, read from the workload and the PodGroups of the stack.

One reader for ``gang-scheduling`` and the plan (docs/design.md sections 2 and 9.3):

- Kueue: the ``kueue.x-k8s.io/queue-name`` label (the pod templates', else the workload's);
- coscheduling: the ``scheduling.x-k8s.io/pod-group`` label;
- the native scheduling group (``scheduling.k8s.io`` Workload API, KEP-4671): a pod's
  ``spec.schedulingGroup.podGroupName`` (1.36, ``v1alpha2``) or ``spec.workloadRef`` (1.35,
  ``v1alpha1``). A PodGroup of the stack whose ``schedulingPolicy`` is ``basic`` schedules its
  pods one by one: naming it is no gang. Every PodGroup states its policy
  (``PodGroupSpec.schedulingPolicy`` is required; kubernetes-validate 1.36 schema
  podgroupspec-scheduling-v1alpha2), so a PodGroup of the stack decides; one the stack does
  not hold (made by a controller from a Workload's template) is taken as a gang;
- a gang the custom resource asks for itself (``Workload.own_gang``, docs/design.md section 8):
  a Volcano Job under the volcano scheduler, an MPIJob whose pods name it, a TrainingRuntime's
  ``podGroupPolicy``. Volcano holds pods back only up to ``minAvailable``: a gang whose
  ``minAvailable`` covers fewer than all its pods still starts part of them;
- Volcano for any kind: pods naming the volcano scheduler with a ``group-min-member``
  annotation, or naming a Volcano PodGroup (its ``minMember``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, as_dict, dig, is_unknown, plain
from nodepools.inventory.pod_templates import COSCHEDULING, KUEUE, NATIVE, VOLCANO, GangPolicy, count
from nodepools.inventory.quantities import try_quantity
from nodepools.inventory.workloads import Workload

__all__ = ["COSCHEDULING", "Gang", "KUEUE", "NATIVE", "VOLCANO", "gang_of", "is_native_scheduling_type",
           "pod_group_policies", "volcano_groups"]


@dataclass(frozen=True)
class Gang:
    """``mechanism``: one of the names above, None (no gang) or UNKNOWN (preview cannot tell);
    ``detail``: what names it (the queue, the pod group), or why a native group is no gang."""

    mechanism: Any
    detail: str = ""
    why: str = ""  # why a mechanism the workload names is no gang, as a phrase for the finding
    fix: str = ""  # what would make that mechanism a gang


def is_native_scheduling_type(resource_type: str) -> bool:
    return resource_type.startswith(v.TYPE_NATIVE_SCHEDULING_PREFIX) and \
        resource_type.rsplit(":", 1)[-1] in v.NATIVE_GANG_KINDS


def pod_group_policies(resources: Iterable[Any]) -> dict[tuple[str, str], Any]:
    """(namespace, name) -> "gang", "basic" or UNKNOWN for every PodGroup in ``resources``
    (anything with ``type`` and ``props``, as the engine sends them)."""
    out: dict[tuple[str, str], Any] = {}
    for res in resources:
        if not is_native_scheduling_type(res.type) or not res.type.endswith(":PodGroup"):
            continue
        props = plain(res.props)
        name, namespace = dig(props, "metadata", "name"), dig(props, "metadata", "namespace")
        if not isinstance(name, str):
            continue
        policy = dig(props, "spec", "schedulingPolicy")
        kind = UNKNOWN if is_unknown(policy) else ("gang" if "gang" in as_dict(policy) else "basic")
        out[(namespace if isinstance(namespace, str) else "default", name)] = kind
    return out


def _native(workload: Workload, pod_groups: dict[tuple[str, str], Any]) -> Gang | None:
    for template in workload.templates:
        group = dig(template.spec, "schedulingGroup")
        if is_unknown(group):
            return Gang(UNKNOWN)
        name = dig(group, "podGroupName")
        if is_unknown(name):
            return Gang(UNKNOWN)
        if isinstance(name, str) and name:
            policy = pod_groups.get((workload.namespace if isinstance(workload.namespace, str) else "", name), "gang")
            if is_unknown(policy):
                return Gang(UNKNOWN, f"PodGroup '{name}'")
            if policy == "basic":
                detail = f"names PodGroup '{name}', whose schedulingPolicy is basic (no gang)"
                return Gang(None, detail, f"its native scheduling group {detail}")
            return Gang(NATIVE, f"PodGroup '{name}'")
        reference = dig(template.spec, "workloadRef")
        if is_unknown(reference):
            return Gang(UNKNOWN)
        if reference is not None:
            return Gang(NATIVE, f"Workload '{dig(reference, 'name')}' (1.35 workloadRef)")
    return None


def volcano_groups(resources: Iterable[Any]) -> dict[tuple[str, str], Any]:
    """(namespace, name) -> ``spec.minMember`` (float, or UNKNOWN) of every Volcano PodGroup in ``resources``."""
    out: dict[tuple[str, str], Any] = {}
    for res in resources:
        if res.type != v.TYPE_VOLCANO_POD_GROUP:
            continue
        props = plain(res.props)
        name, namespace = dig(props, "metadata", "name"), dig(props, "metadata", "namespace")
        if isinstance(name, str):
            out[(namespace if isinstance(namespace, str) else "default", name)] = count(
                dig(props, "spec", "minMember"), 0.0)
    return out


def _volcano_annotated(workload: Workload, groups: dict[tuple[str, str], Any]) -> GangPolicy | None:
    """Pods of any kind that name the volcano scheduler and a gang size: the group-min-member
    annotation, or a Volcano PodGroup of the stack the group-name annotation names (one the stack
    lacks is unknown). Without either Volcano makes each owner a group of one: no gang."""
    names = [dig(t.spec, "schedulerName") for t in workload.templates]
    if not names or not all(n == v.SCHEDULER_VOLCANO or is_unknown(n) for n in names):
        return None
    mechanism = UNKNOWN if any(is_unknown(n) for n in names) else VOLCANO
    minimum = workload.annotation(v.ANNOTATION_VOLCANO_MIN_MEMBER)
    if minimum is not None:
        size = minimum if is_unknown(minimum) else (try_quantity(minimum) or 0.0)
        return GangPolicy(mechanism, size, f"annotation {v.ANNOTATION_VOLCANO_MIN_MEMBER}")
    for key in v.ANNOTATIONS_VOLCANO_GROUP_NAME:
        group = workload.annotation(key)
        if is_unknown(group):
            return GangPolicy(UNKNOWN, UNKNOWN, f"annotation {key}")
        if isinstance(group, str):
            size = groups.get((workload.namespace if isinstance(workload.namespace, str) else "", group), UNKNOWN)
            return GangPolicy(mechanism, size, f"spec.minMember of Volcano PodGroup '{group}'")
    return None


def _own(workload: Workload, policy: GangPolicy | None) -> Gang | None:
    """A gang the resource declares (or its Volcano annotations ask for), judged against its pods."""
    if policy is None:
        return None
    pods = workload.gang_pods
    if is_unknown(policy.mechanism) or is_unknown(policy.min_pods) or is_unknown(pods):
        return Gang(UNKNOWN, policy.where)
    if policy.mechanism == VOLCANO and policy.min_pods < pods:
        detail = f"minimum {policy.min_pods:g} of {pods:g} pods ({policy.where})"
        return Gang(None, detail, f"Volcano's {detail} lets part of them start",
                    f"set {policy.where} to {pods:g} (Volcano)")
    return Gang(policy.mechanism, f"{policy.where}: {policy.min_pods:g} pods")


def gang_of(workload: Workload, pod_groups: dict[tuple[str, str], Any],
            volcano: dict[tuple[str, str], Any] | None = None) -> Gang:
    """The workload's gang mechanism (labels first, then the native scheduling group, then
    the resource's own or Volcano's); ``volcano`` are the stack's Volcano PodGroups
    (``volcano_groups``)."""
    unknown = False
    for key, mechanism in ((v.LABEL_KUEUE_QUEUE, KUEUE), (v.LABEL_COSCHEDULING_POD_GROUP, COSCHEDULING)):
        value = workload.label(key)
        if is_unknown(value):
            unknown = True
        elif value is not None:
            return Gang(mechanism, f"{key}: {value}")
    native = _native(workload, pod_groups)
    if native is not None and native.mechanism is not None:
        return native
    own = _own(workload, workload.own_gang or _volcano_annotated(workload, volcano or {}))
    if own is not None and own.mechanism is not None:
        return own
    if unknown:
        return Gang(UNKNOWN)
    return native or own or Gang(None)
