"""Outputs and unknowns in the inputs of a Construct call: passed through where the component
takes an output, refused naming the input everywhere else.

Every pool and guardrail field is checked before anything registers (the cloud's pool
rules, quotas derived from node sizes), so its value must be known when the program
runs. Only the arguments annotated ``pulumi.Input[...]`` (a cluster's name, its ids and
ARNs, the items of ``subnetIds``) are handed to resources as they come. Without this
check the SDK's host maps an output where the schema has an object to an empty object
(unknown ``guardrails`` became every default), calls ``int()`` on an unknown integer (a
traceback) and hands an unknown string to the spec ("not a valid string"). An output
is refused at ``pulumi up`` too, known or not, so a program that previews also deploys.
"""
from __future__ import annotations

import asyncio
import collections.abc
from typing import Any, ForwardRef, Mapping, Union, get_args, get_origin

import pulumi
from pulumi.errors import InputPropertyErrorDetails
from pulumi.output import Unknown
from pulumi.provider.experimental.analyzer import PropertyDefinition
from typing_extensions import NotRequired

from nodepools.multilang.unknown import TypeOf, object_type
from nodepools.spec.errors import dotted

# How an argument takes outputs: as its whole value, or in each item of its list.
WHOLE, ITEMS = "whole", "items"
WHOLE_LIST = ("{field} must be a list (its items may be outputs), not one output of a list: the pools are "
              "checked against it before anything registers")
NOT_HERE = ("{field} is an output (another resource's value, unknown until it exists, or a secret): it must be a "
            "plain value, as the inputs are checked before anything registers (outputs are taken by {allowed})")


def _takes_output(annotation: Any) -> bool:
    """``pulumi.Input[T]``: ``Union[T, Awaitable[T], 'Output[T]']`` (the last a forward reference)."""
    return get_origin(annotation) is Union and any(
        get_origin(a) is collections.abc.Awaitable or get_origin(a) is pulumi.Output
        or (isinstance(a, ForwardRef) and a.__forward_arg__.startswith("Output"))
        for a in get_args(annotation))


def output_fields(args_type: type, mapping: Mapping[str, str]) -> dict[str, str]:
    """Schema name -> WHOLE or ITEMS for each argument of ``args_type`` (a TypedDict) that
    takes outputs; ``mapping`` maps schema names to Python names."""
    out = {}
    for schema_name, py_name in mapping.items():
        ann = args_type.__annotations__.get(py_name)
        # NotRequired[X] -> X
        inner = get_args(ann)[0] if get_origin(ann) is NotRequired else ann
        if _takes_output(inner):
            out[schema_name] = WHOLE
        elif get_origin(inner) is list and get_args(inner) and _takes_output(get_args(inner)[0]):
            out[schema_name] = ITEMS
    return out


def _is_deferred(value: Any) -> bool:
    return isinstance(value, (pulumi.Output, Unknown))


def _as_output(value: Any) -> Any:
    """A bare unknown (an engine may send one without dependencies) as an unknown output."""
    if not isinstance(value, Unknown):
        return value
    loop = asyncio.get_event_loop()
    value_future, known_future = loop.create_future(), loop.create_future()
    value_future.set_result(None)
    known_future.set_result(False)
    return pulumi.Output(set(), value_future, known_future)


def deferred_inputs(inputs: dict[str, Any], properties: dict[str, PropertyDefinition], type_of: TypeOf,
                    takes_outputs: Mapping[str, str]) -> tuple[dict[str, Any], list[InputPropertyErrorDetails]]:
    """``inputs`` with bare unknowns where outputs go made outputs, and one error per output or
    unknown anywhere else (``takes_outputs``: ``output_fields`` of the component's args)."""
    errors: list[InputPropertyErrorDetails] = []
    allowed = ", ".join(f"{k}[*]" if how == ITEMS else k for k, how in takes_outputs.items())
    out = dict(inputs)
    for key, value in inputs.items():
        how, prop = takes_outputs.get(key), properties.get(key)
        if how == WHOLE:
            out[key] = _as_output(value)
        elif how == ITEMS and isinstance(value, list):
            out[key] = [_as_output(item) for item in value]
        elif how == ITEMS and _is_deferred(value):
            errors.append({"property_path": key, "reason": WHOLE_LIST.format(field=key)})
        elif prop is not None:
            errors += _refused(value, prop, type_of, (key,), allowed)
    return out, errors


def _refused(value: Any, prop: PropertyDefinition, type_of: TypeOf, loc: tuple[Any, ...],
             allowed: str) -> list[InputPropertyErrorDetails]:
    if _is_deferred(value):
        return [{"property_path": dotted(loc), "reason": NOT_HERE.format(field=dotted(loc), allowed=allowed)}]
    if prop.ref and isinstance(value, dict):
        typ = object_type(prop, type_of)
        if typ is None:
            return []
        return [e for k, v in value.items() if k in typ.properties
                for e in _refused(v, typ.properties[k], type_of, loc + (k,), allowed)]
    if prop.items is not None and isinstance(value, list):
        return [e for i, item in enumerate(value) for e in _refused(item, prop.items, type_of, loc + (i,), allowed)]
    if prop.additional_properties is not None and isinstance(value, dict):
        return [e for k, item in value.items()
                for e in _refused(item, prop.additional_properties, type_of, loc + (k,), allowed)]
    return []
