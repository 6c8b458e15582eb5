"""Taints against tolerations, exactly as the scheduler's TaintToleration filter.

``tolerates`` is ``Toleration.ToleratesTaint`` (kubernetes/kubernetes:
staging/src/k8s.io/api/core/v1/toleration.go; docs/kubernetes-facts.md section 5):
a non-empty effect must equal the taint's (empty matches every effect), a
non-empty key must equal the taint's (empty matches every key), then the
operator: ""/Equal compares values, Exists matches any value, Lt/Gt compare
int64s (KEP-5471) and any other operator never matches. Only NoSchedule and
NoExecute taints filter; PreferNoSchedule only scores, so it never blocks.

``admission_tolerations`` is the ExtendedResourceToleration admission plugin
(plugin/pkg/admission/extendedresourcetoleration, on by default on EKS and
GKE): a pod requesting an extended resource such as ``nvidia.com/gpu`` gets
``{key: <resource>, operator: Exists, effect: NoSchedule}``.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from nodepools.inventory.podspec import all_containers, container_requests, has_unknown_resources
from nodepools.inventory.values import UNKNOWN, as_dict, is_unknown
from nodepools.inventory.tri import Tri, and3, eq3
from nodepools.vocabulary import HARD_TAINT_EFFECTS, TaintEffect

_INT64 = re.compile(r"^[+-]?[0-9]+\Z")  # strconv.ParseInt(s, 10, 64): no spaces, no "_"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_DEFAULT_NAMESPACE = "kubernetes.io/"
_REQUESTS_PREFIX = "requests."


def parse_int64(value: Any) -> int | None:
    """``strconv.ParseInt(value, 10, 64)``: the int, or None on a parse error."""
    if not isinstance(value, str) or not _INT64.match(value):
        return None
    number = int(value)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _text(value: Any) -> Any:
    return value if is_unknown(value) else ("" if value is None else str(value))


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any], *, comparison_operators: bool = True) -> Tri:
    """``ToleratesTaint``; UNKNOWN when a toleration field that matters is unknown.

    ``comparison_operators``: the TaintTolerationComparisonOperators gate (alpha in
    1.35) that enables Lt/Gt; with it off, Lt/Gt never match.
    """
    effect, key = _text(toleration.get("effect")), _text(toleration.get("key"))
    effect_ok = True if effect == "" else eq3(effect, _text(taint.get("effect")))
    key_ok = True if key == "" else eq3(key, _text(taint.get("key")))
    operator = _text(toleration.get("operator"))
    if is_unknown(operator):
        value_ok: Tri = UNKNOWN
    elif operator in ("", "Equal"):
        value_ok = eq3(_text(toleration.get("value")), _text(taint.get("value")))
    elif operator == "Exists":
        value_ok = True
    elif operator in ("Lt", "Gt") and comparison_operators:
        value_ok = _compare(operator, toleration.get("value"), taint.get("value"))
    else:
        value_ok = False
    return and3((effect_ok, key_ok, value_ok))


def _compare(operator: str, toleration_value: Any, taint_value: Any) -> Tri:
    if is_unknown(toleration_value):
        return UNKNOWN
    tol, node = parse_int64(_text(toleration_value)), parse_int64(_text(taint_value))
    if tol is None or node is None:
        return False
    return node < tol if operator == "Lt" else node > tol


def is_hard(taint: Mapping[str, Any]) -> bool:
    """NoSchedule and NoExecute filter; PreferNoSchedule never blocks a pod."""
    return taint.get("effect") in HARD_TAINT_EFFECTS


def taint_text(taint: Mapping[str, Any]) -> str:
    """kubectl's spelling: ``key=value:Effect`` (``key:Effect`` without a value)."""
    value = taint.get("value") or ""
    return f"{taint.get('key')}{'=' + value if value else ''}:{taint.get('effect')}"


def untolerated(tolerations: Any, taints: Any, *, comparison_operators: bool = True) -> tuple[Tri, dict | None]:
    """Whether every hard taint is tolerated, and the taint that decides it.

    ``(True, None)``; ``(False, taint)`` naming the first untolerated hard taint in
    the node's order (as ``FindMatchingUntoleratedTaint`` does); ``(UNKNOWN, taint
    or None)`` when no taint is definitely untolerated but one cannot be judged.
    ``tolerations`` or ``taints`` may be UNKNOWN as a whole.
    """
    if is_unknown(taints):
        universal = not is_unknown(tolerations) and any(_tolerates_everything(t) for t in tolerations)
        return (True, None) if universal else (UNKNOWN, None)
    undecided: dict | None = None
    for taint in taints:
        if not is_hard(taint):
            continue
        if is_unknown(tolerations):
            answer: Tri = UNKNOWN
        else:
            answer = _any(_tolerated_by(t, taint, comparison_operators) for t in tolerations)
        if answer is False:
            return False, dict(taint)
        if is_unknown(answer) and undecided is None:
            undecided = dict(taint)
    return (True, None) if undecided is None else (UNKNOWN, undecided)


def _tolerates_everything(toleration: Mapping[str, Any]) -> bool:
    return (toleration is not MAYBE_EXTENDED and _text(toleration.get("key")) == ""
            and _text(toleration.get("effect")) == "" and toleration.get("operator") == "Exists")


def _tolerated_by(toleration: Mapping[str, Any], taint: Mapping[str, Any], comparison_operators: bool) -> Tri:
    if toleration is MAYBE_EXTENDED:
        could = taint.get("effect") == TaintEffect.NO_SCHEDULE.value and is_extended_resource(str(taint.get("key")))
        return UNKNOWN if could else False
    return tolerates(toleration, taint, comparison_operators=comparison_operators)


def _any(answers: Iterable[Tri]) -> Tri:
    unknown = False
    for answer in answers:
        if answer is True:
            return True
        unknown = unknown or is_unknown(answer)
    return UNKNOWN if unknown else False


def is_extended_resource(name: str) -> bool:
    """``helper.IsExtendedResourceName``: a domain-prefixed name outside
    ``kubernetes.io/`` and not a quota ``requests.`` name (cpu, memory,
    hugepages-* and ephemeral-storage are native)."""
    return "/" in name and _DEFAULT_NAMESPACE not in name and not name.startswith(_REQUESTS_PREFIX)


# Stands for the admission-added tolerations of a pod whose resources are unknown
# at preview: it may tolerate a NoSchedule taint keyed by an extended resource, nothing else.
MAYBE_EXTENDED: dict = {"key": "<extended resources unknown at preview>", "operator": "Exists", "effect": "NoSchedule"}


def admission_tolerations(spec: Mapping[str, Any]) -> Any:
    """Tolerations ExtendedResourceToleration adds to a pod with this spec, in the
    plugin's sorted order; UNKNOWN when the containers' resources are unknown.

    The plugin reads requests after API defaulting, where a limit-only extended
    resource has been copied into requests (``container_requests`` does the same);
    a zero request still counts, as the plugin only looks at the names.
    """
    if is_unknown(spec) or has_unknown_resources(as_dict(spec)):
        return UNKNOWN
    names = {name for c in all_containers(as_dict(spec)) for name in container_requests(c) if is_extended_resource(name)}
    return [{"key": name, "operator": "Exists", "effect": TaintEffect.NO_SCHEDULE.value} for name in sorted(names)]


def effective_tolerations(spec: Mapping[str, Any], explicit: Any) -> Any:
    """The pod's own tolerations plus the admission-added ones; UNKNOWN when the
    pod's tolerations are unknown, ``MAYBE_EXTENDED`` in place of the added ones
    when its resources are."""
    if is_unknown(explicit):
        return UNKNOWN
    added = admission_tolerations(spec)
    return [*explicit, *([MAYBE_EXTENDED] if is_unknown(added) else added)]
