"""Base model and field types shared by every spec: strict, frozen, self-explaining.

pydantic's defaults are too forgiving or too terse for infrastructure input:
an unknown key says only "Extra inputs are not permitted" (we list the allowed
fields), lax ints take ``true`` as 1 (a YAML slip would deploy a one-node pool) and
``"5"`` as 5, and lax booleans take ``"false"``, ``"off"`` or ``0``. Every door
(stack config, the Python API, the multi-language components) hands its values to
these models as they came, so a wrong type is refused with pydantic's own message,
never coerced.

``DEFERRED`` stands for a value another resource gives once it exists (a Pulumi
``Output``): the Python API and the multi-language components put it where an
output was given, and the rules check only the values known at the gate.
"""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainValidator, StrictBool, ValidationError, \
    model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from nodepools.spec.errors import custom_error


def _reject_bool(value: Any) -> Any:
    if isinstance(value, (bool, str, bytes)):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _reject_bool_number(value: Any) -> Any:
    if isinstance(value, (bool, str, bytes)):
        raise PydanticCustomError("float_type", "Input should be a valid number")
    return value


# An int that refuses booleans and strings (everything else as pydantic's int: 3.0 ok,
# 2.5 and infinities refused).
WholeNumber = Annotated[int, BeforeValidator(_reject_bool)]
# A float that refuses booleans and strings (pydantic's lax float takes ``true`` as 1.0).
RealNumber = Annotated[float, BeforeValidator(_reject_bool_number)]
# A boolean that is one: ``"false"`` is refused, not read as false (nor, as Python would, as true).
Flag = StrictBool


class Deferred:
    """The marker ``DEFERRED``: a value known only once another resource exists (one
    instance, compared by identity; copies are itself)."""

    def __copy__(self) -> "Deferred":
        return self

    def __deepcopy__(self, memo: Any) -> "Deferred":
        return self

    def __repr__(self) -> str:
        return "DEFERRED"


DEFERRED = Deferred()


def _text(value: Any) -> Any:
    if value is DEFERRED or isinstance(value, str):
        return value
    raise PydanticCustomError("string_type", "Input should be a valid string")


# A string, or ``DEFERRED`` where the caller gave an output (the rules skip it).
Text = Annotated[Any, PlainValidator(_text)]


def known(value: Any) -> bool:
    """``value`` was given and is known at the gate (not None, not ``DEFERRED``)."""
    return value is not None and value is not DEFERRED


class StrictModel(BaseModel):
    """Frozen, unknown fields refused with the list of allowed ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _name_allowed_fields(cls, data: Any, handler: Any) -> Any:
        try:
            return handler(data)
        except ValidationError as err:
            items = err.errors(include_url=False)
            if not any(e["type"] == "extra_forbidden" and len(e["loc"]) == 1 for e in items):
                raise
            allowed = ", ".join(cls.model_fields)
            details = []
            for e in items:
                message = e["msg"]
                if e["type"] == "extra_forbidden" and len(e["loc"]) == 1:
                    message = f"unknown field (allowed: {allowed})"
                # ctx rides along (e.g. a union's bad tag) for callers that format their own messages.
                details.append(InitErrorDetails(type=custom_error(e["type"], message, e.get("ctx")),
                                                loc=tuple(e["loc"]), input=e.get("input")))
            raise ValidationError.from_exception_data(cls.__name__, details) from None
