"""nodeSelector and required node affinity, exactly as the scheduler matches them.

Sources (docs/kubernetes-facts.md section 5): ``spec.nodeSelector`` is
``labels.SelectorFromSet``: every key present with the same value. Required
node affinity is component-helpers' ``nodeaffinity.LazyErrorNodeSelector``:
``nodeSelectorTerms`` are ORed, the requirements inside a term ANDed, a term
with no requirements matches nothing, and a term whose requirements do not
parse (``labels.NewRequirement``: In/NotIn need values, Exists/DoesNotExist
none, Gt/Lt exactly one int64; keys and values must be valid label syntax)
never matches. NotIn and DoesNotExist match a node without the label. Both the
selector and the affinity must hold. ``matchFields`` can only name
``metadata.name``, which no pool can answer for its future nodes.
"""
from __future__ import annotations

from typing import Any, Mapping

from nodepools.inventory.values import UNKNOWN, as_list, is_unknown
from nodepools.placement.nodelabels import NodeLabels
from nodepools.placement.taints import parse_int64
from nodepools.inventory.tri import Tri, and3, not3
from nodepools.spec.syntax import label_key_error, label_value_error

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_NAME = "metadata.name"


def selector_matches(node_selector: Any, labels: NodeLabels) -> tuple[Tri, str]:
    """(matches, why not / why undecided) for ``spec.nodeSelector``."""
    if is_unknown(node_selector):
        return UNKNOWN, "nodeSelector unknown at preview"
    undecided = ""
    for key, want in node_selector.items():
        present, have = labels.lookup(key)
        if present is False:
            return False, f"nodeSelector {key}={want}: the pool's nodes have no label {key}"
        if is_unknown(want):
            undecided = undecided or f"nodeSelector {key}: its value is unknown until the update runs"
        elif is_unknown(have):
            undecided = undecided or f"nodeSelector {key}={want}: {labels.why_unknown(key)}"
        elif isinstance(have, frozenset):  # inventory.karpenter.OneOf: a node with any of them
            if want not in have:
                return False, f"nodeSelector {key}={want}: the pool's nodes have {key} in {sorted(have)}"
        elif have != want:
            return False, f"nodeSelector {key}={want}: the pool's nodes have {key}={have}"
    return (UNKNOWN, undecided) if undecided else (True, "")


def _parse_error(key: Any, operator: Any, values: list) -> str | None:
    """``labels.NewRequirement``'s validation, for a fully known requirement."""
    if not isinstance(key, str) or label_key_error(key):
        return f"invalid key {key!r}"
    if operator not in OPERATORS:
        return f"unsupported operator {operator!r}"
    if operator in ("In", "NotIn") and not values:
        return f"{operator} needs values"
    if operator in ("Exists", "DoesNotExist") and values:
        return f"{operator} takes no values"
    if operator in ("Gt", "Lt") and (len(values) != 1 or parse_int64(values[0]) is None):
        return f"{operator} needs exactly one integer value"
    bad = [x for x in values if not isinstance(x, str) or label_value_error(x)]
    return f"invalid value {bad[0]!r}" if bad else None


def requirement_matches(requirement: Mapping[str, Any], labels: NodeLabels) -> Tri:
    """One ``matchExpressions`` entry (``labels.Requirement.Matches``); a requirement
    that does not parse is False here (its whole term never matches)."""
    key, operator, raw = requirement.get("key"), requirement.get("operator"), requirement.get("values")
    values = [] if raw is None else as_list(raw)
    if is_unknown(key) or is_unknown(operator):
        return UNKNOWN
    if is_unknown(raw) or any(is_unknown(x) for x in values):
        # Without the label these never match, whether or not the values parse.
        absent = operator in ("In", "Exists", "Gt", "Lt") and labels.lookup(key)[0] is False
        return False if absent else UNKNOWN
    if _parse_error(key, operator, values):
        return False
    present, have = labels.lookup(key)
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not3(present)
    if present is False:
        return operator == "NotIn"
    if is_unknown(present) or is_unknown(have):
        return UNKNOWN
    if isinstance(have, frozenset):  # inventory.karpenter.OneOf: can some node of the pool match?
        return any(requirement_matches(requirement, _One(key, x, labels)) for x in have)
    if operator == "In":
        return have in values
    if operator == "NotIn":
        return have not in values
    node_value = parse_int64(have)
    if node_value is None:
        return False
    return node_value > parse_int64(values[0]) if operator == "Gt" else node_value < parse_int64(values[0])


class _One:
    """``labels`` with ``key`` fixed to one of its possible values."""

    def __init__(self, key: str, value: str, labels: NodeLabels) -> None:
        self._key, self._value, self._labels = key, value, labels

    def lookup(self, key: str) -> tuple[Tri, Any]:
        return (True, self._value) if key == self._key else self._labels.lookup(key)


def _field_requirement(requirement: Mapping[str, Any]) -> Tri:
    """``matchFields``: only ``metadata.name`` In/NotIn one value parses; even then
    a pool's future node names are unknown."""
    key, operator, values = requirement.get("key"), requirement.get("operator"), requirement.get("values")
    if any(is_unknown(x) for x in (key, operator, values)):
        return UNKNOWN
    if key != _FIELD_NAME or operator not in ("In", "NotIn") or len(as_list(values)) != 1:
        return False
    return UNKNOWN


def term_matches(term: Any, labels: NodeLabels) -> Tri:
    """One ``NodeSelectorTerm``: all requirements hold; an empty term matches nothing."""
    if is_unknown(term):
        return UNKNOWN
    term = term if isinstance(term, dict) else {}
    expressions, fields = term.get("matchExpressions"), term.get("matchFields")
    if is_unknown(expressions) or is_unknown(fields):
        return UNKNOWN
    expressions, fields = as_list(expressions), as_list(fields)
    if not expressions and not fields:
        return False
    # An unknown requirement could be anything; a malformed one does not parse.
    answers = [UNKNOWN if is_unknown(r) else requirement_matches(r if isinstance(r, dict) else {}, labels)
               for r in expressions]
    answers += [UNKNOWN if is_unknown(r) else _field_requirement(r if isinstance(r, dict) else {}) for r in fields]
    return and3(answers)


def affinity_matches(terms: Any, labels: NodeLabels) -> tuple[Tri, str]:
    """Required node affinity: None (no requirement) matches every node; a list of
    terms matches when any term does (an empty list matches nothing)."""
    if terms is None:
        return True, ""
    if is_unknown(terms):
        return UNKNOWN, "required node affinity unknown at preview"
    answers = [term_matches(term, labels) for term in terms]
    if any(a is True for a in answers):
        return True, ""
    if any(is_unknown(a) for a in answers):
        undecided = [t for t, a in zip(terms, answers) if is_unknown(a)]
        return UNKNOWN, "required node affinity: " + _why_undecided(undecided[0], labels)
    why = "; ".join(_explain(i, t, labels) for i, t in enumerate(terms)) or "no nodeSelectorTerms"
    return False, f"required node affinity matches no node of the pool ({why})"


def _why_undecided(term: Any, labels: NodeLabels) -> str:
    """Which value an undecided term reads that preview cannot know."""
    if is_unknown(term) or not isinstance(term, dict):
        return "a nodeSelectorTerm is unknown until the update runs"
    for requirement in as_list(term.get("matchExpressions")):
        if is_unknown(requirement) or not isinstance(requirement, dict):
            return "a matchExpressions entry is unknown until the update runs"
        if is_unknown(requirement_matches(requirement, labels)):
            key = requirement.get("key")
            if is_unknown(key) or is_unknown(requirement.get("operator")):
                return "a requirement's key or operator is unknown until the update runs"
            present, have = labels.lookup(key)
            if is_unknown(present) or is_unknown(have):
                return f"{key} {requirement.get('operator')}: {labels.why_unknown(key)}"
            return f"{key} {requirement.get('operator')}: its values are unknown until the update runs"
    if is_unknown(term.get("matchExpressions")) or is_unknown(term.get("matchFields")):
        return "the term's requirements are unknown until the update runs"
    return "matchFields metadata.name names a node, and a pool's future node names are not known"


def _explain(index: int, term: Any, labels: NodeLabels) -> str:
    """Why term ``index`` fails: its first failing requirement and the node's value."""
    term = term if isinstance(term, dict) else {}
    for requirement in as_list(term.get("matchExpressions")):
        requirement = requirement if isinstance(requirement, dict) else {}
        if requirement_matches(requirement, labels) is False:
            key, op = requirement.get("key"), requirement.get("operator")
            values = as_list(requirement.get("values"))
            error = _parse_error(key, op, values)
            if error:
                return f"term {index}: {error}"
            present, have = labels.lookup(key)
            has = f"{key}={have}" if present is True and not is_unknown(have) else \
                ("the label" if present is True else f"no label {key}")
            return f"term {index}: {key} {op} {values} but the nodes have {has}"
    if as_list(term.get("matchFields")):
        return f"term {index}: invalid matchFields (only metadata.name In/NotIn one value)"
    return f"term {index}: empty term matches nothing"
