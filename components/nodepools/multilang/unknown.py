"""Unknown input names, refused as the Python API refuses unknown fields.

The SDK's provider host maps the inputs the schema knows and drops the rest
silently, so a misspelt ``minNode`` from an untyped caller would deploy the
preset's size. ``StrictModel`` refuses unknown fields in Python; this does the
same on the raw inputs, with its message in the schema's spelling.
"""
from typing import Any, Callable, Optional

from pulumi.errors import InputPropertyErrorDetails
from pulumi.provider.experimental.analyzer import PropertyDefinition, TypeDefinition

from nodepools.spec.errors import dotted

TypeOf = Callable[[PropertyDefinition], Optional[TypeDefinition]]


def unknown_inputs(inputs: Any, properties: dict[str, PropertyDefinition], type_of: TypeOf,
                   loc: tuple[Any, ...] = ()) -> list[InputPropertyErrorDetails]:
    """Every key of ``inputs`` (deeply) that ``properties`` does not define."""
    if not isinstance(inputs, dict):
        return []
    errors: list[InputPropertyErrorDetails] = []
    for key, value in inputs.items():
        prop = properties.get(key)
        if prop is None:
            errors.append({"property_path": dotted(loc + (key,)),
                           "reason": f"unknown field (allowed: {', '.join(properties)})"})
        else:
            errors += _nested(value, prop, type_of, loc + (key,))
    return errors


def _nested(value: Any, prop: PropertyDefinition, type_of: TypeOf,
            loc: tuple[Any, ...]) -> list[InputPropertyErrorDetails]:
    if prop.ref:
        typ = object_type(prop, type_of)
        return unknown_inputs(value, typ.properties, type_of, loc) if typ else []
    if prop.items is not None and isinstance(value, list):
        return [e for i, item in enumerate(value) for e in _nested(item, prop.items, type_of, loc + (i,))]
    if prop.additional_properties is not None and isinstance(value, dict):
        return [e for k, item in value.items() for e in _nested(item, prop.additional_properties, type_of, loc + (k,))]
    return []


def object_type(prop: PropertyDefinition, type_of: TypeOf) -> Optional[TypeDefinition]:
    """The object type ``prop`` refers to (None for enums, Any and other packages' types)."""
    # References outside the package (the Kubernetes provider) and Any have no definition here.
    if prop.ref is None or prop.ref.startswith("/") or ":" not in prop.ref:
        return None
    typ = type_of(prop)
    return None if typ is None or typ.enum else typ
