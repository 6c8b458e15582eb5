"""Plain values out of whatever shape a resource's properties arrive in.

The same readers serve several callers: the policy pack (``nodepools.pack.wire``
already hands them plain data, sentinels read as ``UNKNOWN``), a user's own
pulumi_policy pack (which wraps props in proxies that raise on unknown values), the
offline engine (pulumi's ``Unknown`` objects) and plain dicts in tests. ``plain`` turns all of them into
dicts/lists with one ``UNKNOWN`` marker, so a rule can decide explicitly what an
unknown means instead of crashing or, worse, judging a value it cannot see.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

try:  # the proxies of a user's own pulumi_policy pack; the nodepools pack reads plain data
    from pulumi_policy import proxy as _policy_proxy
except ImportError:  # pulumi-policy is not a dependency of nodepools
    _policy_proxy = None

# The engine's wire sentinels for a value unknown during preview, one per type
# (pulumi/pulumi: sdk/go/common/resource/plugin/rpc.go, UnknownBoolValue ... UnknownObjectValue).
UNKNOWN_STRINGS = frozenset({
    "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
    "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
    "030794c1-ac77-496b-92df-f27374a8bd58", "e48ece36-62e2-4504-bad9-02848725956a",
    "dd056dcd-154b-4c76-9bd3-c8f88648b5ff"})


class _Unknown:
    """A value that cannot be known until the resource exists."""

    _instance: "_Unknown | None" = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Unknown()


def is_unknown(value: Any) -> bool:
    return value is UNKNOWN


def plain(value: Any) -> Any:
    """Deep-convert proxies, pulumi ``Unknown`` objects and sentinel strings."""
    kind = type(value)
    # Exact-type fast paths first: the pack converts every resource per stack pass.
    if kind is dict:
        return {k if type(k) is str else str(k): plain(v) for k, v in value.items()}
    if kind is list:
        return [plain(v) for v in value]
    if kind is str:
        return UNKNOWN if value in UNKNOWN_STRINGS else value
    if kind in (float, int, bool) or value is None or value is UNKNOWN:
        return value
    if isinstance(value, str):
        return UNKNOWN if value in UNKNOWN_STRINGS else value
    if kind.__name__ == "Unknown" and kind.__module__.startswith("pulumi"):
        return UNKNOWN
    if _policy_proxy is not None and isinstance(value, (_policy_proxy._DictProxy, _policy_proxy._ListProxy)):
        # The proxies raise on reading an unknown; their raw target does not.
        value = value["__target"]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [plain(v) for v in value]
    return value


def dig(value: Any, *path: str | int, default: Any = None) -> Any:
    """``value[p0][p1]...``; ``default`` when a step is missing or of the wrong
    shape, ``UNKNOWN`` as soon as a step is unknown."""
    for step in path:
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return default
            value = value[step]
        else:
            if not isinstance(value, dict) or step not in value:
                return default
            value = value[step]
    return default if value is None else value


def as_dict(value: Any) -> dict:
    """A dict, or ``{}`` for anything else (unknown included)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def known_list(value: Any) -> Any:
    """A list whose answer preview can give: the list itself, ``UNKNOWN`` when the
    list or any of its entries is unknown (an unknown entry could be anything, so
    dropping it would judge a different list), ``[]`` when absent or not a list."""
    if value is UNKNOWN or (isinstance(value, list) and any(x is UNKNOWN for x in value)):
        return UNKNOWN
    return as_list(value)


def known_str_map(value: Any) -> Any:
    """``str_map``, or ``UNKNOWN`` when the whole map is unknown (so a key's
    absence cannot be told)."""
    return UNKNOWN if value is UNKNOWN else str_map(value)


def str_map(value: Any) -> dict[str, Any]:
    """String keys to string (or UNKNOWN) values; other entries dropped."""
    return {k: v for k, v in as_dict(value).items() if isinstance(v, str) or v is UNKNOWN}


def known_str(value: Any, default: Any = None) -> Any:
    """A string as given, ``UNKNOWN`` when unknown, ``default`` when absent or of any other
    shape (a list or a number where a string goes: the provider refuses it, so judge the
    default rather than hash or compare a value of the wrong type)."""
    return value if isinstance(value, str) or value is UNKNOWN else default


def known_strs(value: Any) -> Any:
    """The string entries of a list (other shapes dropped), ``UNKNOWN`` when the list or any
    entry is unknown, ``[]`` when absent or not a list."""
    value = known_list(value)
    return value if value is UNKNOWN else [x for x in value if isinstance(x, str)]


def known_number(value: Any, default: Any = None) -> Any:
    """A number (never a bool) as float, ``UNKNOWN`` when unknown, ``default`` otherwise."""
    if value is UNKNOWN:
        return UNKNOWN
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def has_unknown(value: Any) -> bool:
    """Whether ``value`` is unknown or holds an unknown anywhere inside."""
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(has_unknown(x) for x in value.values())
    if isinstance(value, list):
        return any(has_unknown(x) for x in value)
    return False


def json_type(value: Any) -> str:
    """What a value is, to name in a message instead of quoting it (a value of the wrong shape
    may hold anything: a secret, the preview sentinel as a key, a megabyte of text)."""
    if value is None:
        return "null"
    return {bool: "a boolean", str: "a string", list: "a list", dict: "an object"}.get(type(value), "a number")
