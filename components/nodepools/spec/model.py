"""Base model and field types shared by every spec: strict, frozen, self-explaining.

pydantic's defaults are too forgiving or too terse for infrastructure input:
an unknown key says only "Extra inputs are not permitted" (we list the allowed
fields), and lax ints take ``true`` as 1 (a YAML slip would deploy a one-node pool).
"""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from nodepools.spec.errors import custom_error


def _reject_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _reject_bool_number(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError("float_type", "Input should be a valid number")
    return value


# An int that refuses booleans (everything else as pydantic's int: 3.0 ok, 2.5 refused).
WholeNumber = Annotated[int, BeforeValidator(_reject_bool)]
# A float that refuses booleans (pydantic's lax float takes ``true`` as 1.0).
RealNumber = Annotated[float, BeforeValidator(_reject_bool_number)]


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
