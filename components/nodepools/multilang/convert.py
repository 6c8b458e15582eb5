"""Arguments of the other languages -> the Python API's validated objects.

The door only converts: ``python_names`` renames the schema's names to Python's
and leaves every value as it came over the wire (a number is a double, a list a
list, a string a string), so the values reach the very models the stack config
and the Python API use, which refuse a wrong type with their own message rather
than coerce it. The SDK's own mapping (``ComponentProvider.map_input_properties``)
is not used: it calls ``int()`` on every integer (an ``OverflowError`` on
``-Infinity``, 2.5 read as 2), maps a string where an object goes to an empty
object (``guardrails: "on"`` became every default) and passes a string where a
list goes (``subnetIds: "subnet-a"`` became ``['s', 'u', ...]``).

The arguments carry ``PoolSpec``/``GuardrailsSpec`` field names, so they convert
by name and are validated in the Python API's order: the cluster target
(``EksCluster``/``GkeCluster``, whose known values pass the cluster rules every
door shares) and the ``PlatformArgs``, then ``Platform.validate`` (the pool set,
the cloud's pool rules, the add-ons' needs), whose ``ValidatedPlatform`` the
component hands to ``Platform`` so no rule runs twice. Every problem is collected
and raised once, before anything registers.
"""
from typing import Any, Callable, Mapping, Optional

import pulumi
from pulumi.errors import InputPropertyErrorDetails
from pydantic import ValidationError

from nodepools.backends.base import ClusterTarget
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.components.providers import kubernetes_provider_problem
from nodepools.components.validated import ValidatedPlatform
from pulumi.errors import InputPropertyError
from pulumi.provider.experimental.analyzer import PropertyDefinition

from nodepools.multilang.names import invalid_inputs, property_errors
from nodepools.multilang.unknown import TypeOf, object_type
from nodepools.spec.errors import Problems

PLATFORM_FIELDS = ("pools", "guardrails", "region")


def python_names(component: str, value: Any, properties: Mapping[str, PropertyDefinition],
                 mapping: Mapping[str, str], type_of: TypeOf, path: str = "") -> Any:
    """``value`` (an object of the schema) with its property names in Python's spelling, deeply;
    values untouched, null ones dropped (Pulumi's "not set"). A required property that is missing
    is refused by its schema path, as the SDK's host refuses it."""
    if not isinstance(value, dict):
        return value
    for name, prop in properties.items():
        if not prop.optional and value.get(name) is None:
            where = f"{path}.{name}" if path else name
            raise InputPropertyError(where, f"Missing required input '{where}' on '{component}'")
    return {mapping.get(key, key): _item(component, item, properties[key], type_of, f"{path}.{key}" if path else key)
            if key in properties else item for key, item in value.items() if item is not None}


def _item(component: str, value: Any, prop: PropertyDefinition, type_of: TypeOf, path: str) -> Any:
    typ = object_type(prop, type_of) if prop.ref else None
    if typ is not None:
        return python_names(component, value, typ.properties, typ.properties_mapping, type_of, path)
    if prop.items is not None and isinstance(value, list):
        return [_item(component, item, prop.items, type_of, f"{path}[{i}]") for i, item in enumerate(value)]
    if prop.additional_properties is not None and isinstance(value, dict):
        return {k: _item(component, item, prop.additional_properties, type_of, f"{path}.{k}")
                for k, item in value.items()}
    return value


def platform_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """The ``PlatformArgs`` fields of ``args`` (absent ones left to the model's defaults)."""
    return {k: args[k] for k in PLATFORM_FIELDS if args.get(k) is not None}


def require_lists(args: Mapping[str, Any], fields: tuple[str, ...]) -> None:
    """Refuse one output standing for a whole list: the schema's lists are plain (their items may be
    outputs) because the pools are checked against them before anything registers."""
    problems = Problems()
    for field in fields:
        if isinstance(args.get(field), pulumi.Output):
            problems.add(field, f"{field} must be a list (its items may be outputs), not one output of a list: "
                         "the pools are checked against it before anything registers", None)
    problems.raise_if_any("arguments")


def validated(component: str, make_target: Callable[[], ClusterTarget], args: Mapping[str, Any],
              names: frozenset[str]) -> ValidatedPlatform:
    """The cluster target and ``PlatformArgs`` of ``args``, validated together (the result's
    ``target`` and ``args``); raises ``InputPropertiesError`` naming every bad input (in the
    schema's spelling, ``nodepools.multilang.names``), the Kubernetes provider's type included."""
    errors: list[InputPropertyErrorDetails] = []
    problem = kubernetes_provider_problem(args.get("kubernetes_provider"), "kubernetesProvider")
    if problem is not None:
        errors.append({"property_path": "kubernetesProvider", "reason": problem})
    target: Optional[ClusterTarget] = None
    spec: Optional[PlatformArgs] = None
    result: Optional[ValidatedPlatform] = None
    try:
        target = make_target()
    except ValidationError as err:
        errors += property_errors(err, names)
    try:
        spec = PlatformArgs.model_validate(platform_args(args))
    except ValidationError as err:
        errors += property_errors(err, names)
    if target is not None and spec is not None:
        try:
            result = Platform.validate(target, spec)
        except ValidationError as err:
            errors += property_errors(err, names)
    if errors or result is None:
        raise invalid_inputs(component, errors)
    return result
