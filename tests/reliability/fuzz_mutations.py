"""Hypothesis strategies that damage resource properties the way real inputs go wrong:
keys go missing, values take the wrong type or null, preview leaves them unknown,
lists grow huge, or a whole subtree is replaced by arbitrary JSON."""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from nodepools.offline.analyzer import UNKNOWN_WIRE

HUGE = (300, 1500)
# Strings that mean something to some reader: quantities, label values, enum
# spellings, cron lines, the preview sentinel, and plain noise.
TRICKY_STRINGS = st.sampled_from([
    "", " ", "0", "-1", "1e309", "NaN", "1Gi", "500m", "1.5", "abc", "nvidia.com/gpu", "NoSchedule", "NO_SCHEDULE",
    "SPOT", "on-demand", "resident", "Exists", "Equal", "*/5 * * * *", "99 99 99 99 99", "kube-system",
    UNKNOWN_WIRE, "x" * 300, "ünïcødé", "{\"a\": 1}",
])
LEAVES = st.one_of(
    st.none(), st.booleans(),
    st.integers(-(2 ** 53), 2 ** 53).map(float),
    # Finite only: the engine never sends NaN or infinity (JSON has none); the pack refuses
    # them with a message naming the property (tests/pack/test_wire.py), a gRPC error this
    # fuzzer would count as a failure, and the reference server cannot read them at all.
    st.floats(allow_nan=False, allow_infinity=False),
    TRICKY_STRINGS, st.text(max_size=20),
)
JSON = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(TRICKY_STRINGS, st.text(max_size=8)), inner, max_size=4)),
    max_leaves=12)


def _wrong_type(value: Any) -> st.SearchStrategy:
    """Something of another shape carrying the same content."""
    if isinstance(value, dict):
        return st.sampled_from([list(value.values()), list(value), str(value), float(len(value)), True])
    if isinstance(value, list):
        return st.sampled_from([{str(i): x for i, x in enumerate(value)}, str(value), float(len(value)), False])
    if isinstance(value, str):
        return st.sampled_from([{"value": value}, [value], float(len(value)), value == ""])
    if isinstance(value, bool):
        return st.sampled_from([str(value).lower(), [value], {"value": value}, 1.0])
    if isinstance(value, float):
        return st.sampled_from([str(value), [value], {"value": value}, value > 0])
    return LEAVES


def _huge(value: Any) -> st.SearchStrategy:
    """A huge list: the value repeated, or many random leaves (same or mixed types)."""
    return st.one_of(
        st.integers(*HUGE).map(lambda n: [value] * n),
        st.builds(lambda leaf, n: [leaf] * n, LEAVES, st.integers(*HUGE)),
        st.lists(LEAVES, min_size=50, max_size=120),
    )


def replacement(value: Any) -> st.SearchStrategy:
    return st.one_of(
        st.none(), st.just(UNKNOWN_WIRE), _wrong_type(value), _huge(value), JSON,
    )


@st.composite
def mutated(draw: Any, value: Any, unknown_only: bool = False, descend: bool = False) -> Any:
    """``value`` with one subtree damaged: walk down a random path, then delete the
    entry or replace it. ``unknown_only`` replaces by the preview sentinel only;
    ``descend`` damages inside ``value`` rather than ``value`` itself."""
    if isinstance(value, (dict, list)) and value and (descend or draw(st.integers(0, 3)) > 0):
        keys = sorted(value) if isinstance(value, dict) else list(range(len(value)))
        key = draw(st.sampled_from(keys))
        copy = dict(value) if isinstance(value, dict) else list(value)
        if not unknown_only and draw(st.integers(0, 4)) == 0:
            del copy[key]
        else:
            copy[key] = draw(mutated(value[key], unknown_only))
        return copy
    return UNKNOWN_WIRE if unknown_only else draw(replacement(value))


@st.composite
def mutated_props(draw: Any, props: dict[str, Any], unknown_only: bool = False) -> dict[str, Any]:
    """Properties stay a mapping (the engine always sends an object; with
    ``unknown_only`` the damage is inside it, since a preview never hides all of them)."""
    out = draw(mutated(props, unknown_only, descend=unknown_only))
    return out if isinstance(out, dict) else {}


# Where each workload kind keeps the structure a pod needs (spec, template, pod
# spec, containers), so a malformation there leaves no valid pod to judge.
_POD = ("template", "spec")
POD_SPEC_PATHS: dict[str, tuple[tuple[Any, ...], ...]] = {
    "Pod": (("spec",),),
    "CronJob": (("spec",), ("spec", "jobTemplate"), ("spec", "jobTemplate", "spec"),
                ("spec", "jobTemplate", "spec", *_POD)),
    "JobSet": (("spec",), ("spec", "replicatedJobs"), ("spec", "replicatedJobs", 0, "template"),
               ("spec", "replicatedJobs", 0, "template", "spec", *_POD)),
    "PyTorchJob": (("spec",), ("spec", "pytorchReplicaSpecs"), ("spec", "pytorchReplicaSpecs", "Worker", *_POD)),
}
DEFAULT_POD_SPEC_PATHS = (("spec",), ("spec", "template"), ("spec", *_POD))


def pod_spec_paths(kind: str) -> list[tuple[Any, ...]]:
    """Every structural path of ``kind``: the containers list and its first entry too."""
    if kind == "InferenceService":  # the predictor is the pod spec; its ``model`` is the container
        return [("spec",), ("spec", "predictor"), ("spec", "predictor", "model")]
    paths = list(POD_SPEC_PATHS.get(kind, DEFAULT_POD_SPEC_PATHS))
    return paths + [(*paths[-1], "containers"), (*paths[-1], "containers", 0)]


def malformations(value: Any) -> st.SearchStrategy:
    """What a required structure can wrongly be: absent, null, unknown, empty or of another type."""
    empty = [] if isinstance(value, list) else {}
    return st.one_of(st.sampled_from(["<delete>", None, UNKNOWN_WIRE, empty]), _wrong_type(value))


def set_path(props: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A copy of ``props`` with ``path`` replaced (or removed for ``"<delete>"``)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(props) if isinstance(props, dict) else list(props)
    if not rest and value == "<delete>":
        del copy[head]
    else:
        copy[head] = set_path(props[head], rest, value)
    return copy


def get_path(props: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        props = props[step]
    return props
