"""One error shape for every bad input: pydantic's ValidationError.

Cross-field checks collect *all* their problems and raise them together as a
ValidationError, so a user sees every bad field of a spec in one run and nested
models get their location prefixed by pydantic itself (``pools.2.min_nodes``).
"""
from __future__ import annotations

from typing import Any, Mapping

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

ERROR_TYPE = "nodepools_spec"


def custom_error(kind: str, message: str, context: Mapping[str, Any] | None = None) -> PydanticCustomError:
    """An error whose message reads exactly as given. pydantic-core fills ``{key}`` for
    each key of the context and nothing else (no ``str.format``: a doubled ``{{`` stays
    doubled, so escaping user text turned ``${jndi:x}`` into ``${{jndi:x}}``); the
    context rides along only when the text holds none of its placeholders."""
    if context and any(f"{{{key}}}" in message for key in context):
        context = None
    return PydanticCustomError(kind, message, dict(context) if context else None)


class Problems:
    """Collects cross-field problems; ``raise_if_any`` raises them as one error."""

    def __init__(self) -> None:
        self._details: list[InitErrorDetails] = []

    def add(self, loc: tuple[str | int, ...] | str, message: str, value: Any = None) -> None:
        loc_tuple = (loc,) if isinstance(loc, str) else tuple(loc)
        self._details.append(
            InitErrorDetails(type=custom_error(ERROR_TYPE, message), loc=loc_tuple, input=value)
        )

    def absorb(self, err: ValidationError, prefix: tuple[str | int, ...] = (),
               rename: Mapping[str, str] | None = None) -> None:
        """Take every problem of ``err``, its location prefixed by ``prefix`` and its first
        field renamed by ``rename`` (a model's field -> the caller's name for it)."""
        for item in err.errors(include_url=False):
            loc = tuple(item["loc"])
            if rename and loc and loc[0] in rename:
                loc = (rename[loc[0]], *loc[1:])
            self.add(prefix + loc, message_of(item), item.get("input"))

    def __bool__(self) -> bool:
        return bool(self._details)

    def raise_if_any(self, title: str) -> None:
        if self._details:
            raise ValidationError.from_exception_data(title, self._details)


def dotted(loc: tuple[str | int, ...], root: str = "") -> str:
    """``('pools', 2, 'min_nodes')`` -> ``pools[2].min_nodes`` (prefixed by ``root``)."""
    out = root
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).isidentifier():
            out += f"[{str(part)!r}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(root)"


def message_of(item: Mapping[str, Any]) -> str:
    """An error item's message without pydantic's ``Value error, `` prefix."""
    return str(item["msg"]).removeprefix("Value error, ")


def describe(err: ValidationError, root: str = "") -> list[str]:
    """Human lines ``path: message`` for every problem in ``err``."""
    return [f"{dotted(tuple(item['loc']), root)}: {message_of(item)}" for item in err.errors(include_url=False)]
