"""The bounds and defaults the other languages' schema states, from the models that hold them.

The argument types (``pool_args``, ``guardrails_args``) say what each field means; its bounds
(``ge``/``le``/``gt``/``lt``, lengths) and its default are the model's (``PoolSpec``,
``GuardrailsSpec`` and their option models, the class presets, the table of Kubernetes minors)
and are added to the field's schema description here, when the provider builds its schema, so a
chart bump, a new default minor, a changed preset or a new limit reaches TypeScript, Go and YAML
users without a second edit. A docstring states a default only where the model's is no plain value
(``none``, "the cluster's", "derived from the instance types"), and no bound.
"""
from enum import Enum
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional

from pulumi.provider.experimental.util import camel_case
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from nodepools.guardrails.addon_modes import AddonMode, AddonsSpec
from nodepools.guardrails.spec import DEFAULT_NAMESPACES, AlertsSpec, ChartVersions, GuardrailsSpec, LimitRangeSpec
from nodepools.multilang import guardrails_args, pool_args
from nodepools.spec.karpenter import KarpenterOptions
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.options import EksRepairOptions, NodeRepair, WarmCapacity
from nodepools.spec.pool import CustomCapacity, GpuSpec, PoolSpec, Taint
from nodepools.spec.presets import BATCH_QUOTA_SHARE_RANGE, PRESET_FIELDS, preset_values
from nodepools.spec.sharing import GpuSharing

# Each argument type and the model it converts into, field for field (by Python name).
ARGS_MODELS: tuple[tuple[type, type[BaseModel]], ...] = (
    (pool_args.Pool, PoolSpec), (pool_args.Taint, Taint), (pool_args.Gpu, GpuSpec),
    (pool_args.CustomCapacity, CustomCapacity), (pool_args.KarpenterOptions, KarpenterOptions),
    (pool_args.GpuSharing, GpuSharing), (pool_args.Warm, WarmCapacity), (pool_args.Repair, NodeRepair),
    (pool_args.EksRepairOptions, EksRepairOptions),
    (guardrails_args.Guardrails, GuardrailsSpec), (guardrails_args.Alerts, AlertsSpec),
    (guardrails_args.LimitRange, LimitRangeSpec), (guardrails_args.ChartVersions, ChartVersions),
    (guardrails_args.Addons, AddonsSpec), (guardrails_args.AddonMode, AddonMode),
)


def _namespaces() -> str:
    return "Default: " + ", ".join(f"{c.value} {name}" for c, name in DEFAULT_NAMESPACES.items()) + "."


def _field_default(model: type[BaseModel], field: str) -> Optional[str]:
    return plain(model.model_fields[field].default)


def _batch_quota_share() -> str:
    low, high = BATCH_QUOTA_SHARE_RANGE
    return f"Between {low:.2f} and {high:.2f}. Default: {_field_default(GuardrailsSpec, 'batch_quota_share')}."


def _kubernetes_version() -> str:
    return (f"One of {', '.join(SUPPORTED_KUBERNETES_VERSIONS)}. "
            f"Default: {_field_default(GuardrailsSpec, 'kubernetes_version')}.")


# Defaults that are not one plain value of the model's field.
DERIVED: Mapping[tuple[type[BaseModel], str], Callable[[], str]] = MappingProxyType({
    **{(PoolSpec, field): (lambda f=field: f"Default from the class preset: {preset_values(f)}.")
       for field in PRESET_FIELDS},
    (GuardrailsSpec, "namespaces"): _namespaces,
    (GuardrailsSpec, "batch_quota_share"): _batch_quota_share,
    (GuardrailsSpec, "kubernetes_version"): _kubernetes_version,
})


def plain(value: Any) -> Optional[str]:
    """A default as the schema's readers write it; None for one that is no plain value."""
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return "empty"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def default_text(model: type[BaseModel], field: str) -> Optional[str]:
    """The sentence the schema adds to ``field``'s description; None when the model has no plain default."""
    if (model, field) in DERIVED:
        return DERIVED[(model, field)]()
    default = model.model_fields[field].default
    text = None if default is PydanticUndefined or default is None else plain(default)
    return None if text is None else f"Default: {text}."


def bounds_text(model: type[BaseModel], field: str) -> Optional[str]:
    """The field's constraints in words ("0 to 1000.", "Above 0 and below 1.", "1 to 20 items."); None without."""
    found = {type(m).__name__: m for m in model.model_fields[field].metadata}
    low = ("", found["Ge"].ge) if "Ge" in found else ("above ", found["Gt"].gt) if "Gt" in found else None
    high = ("", found["Le"].le) if "Le" in found else ("below ", found["Lt"].lt) if "Lt" in found else None
    if "MinLen" in found or "MaxLen" in found:
        low = ("", found["MinLen"].min_length) if "MinLen" in found else None
        high = ("", found["MaxLen"].max_length) if "MaxLen" in found else None
        items = " items"
    else:
        items = ""
    if low and high:
        text = (f"{low[1]} to {high[1]}" if low[0] == high[0] == ""
                else f"{low[0]}{low[1]} and {high[0] or 'at most '}{high[1]}")
    elif low:
        text = f"at least {low[1]}" if low[0] == "" else f"{low[0]}{low[1]}"
    elif high:
        text = f"at most {high[1]}" if high[0] == "" else f"{high[0]}{high[1]}"
    else:
        return None
    return f"{text[0].upper()}{text[1:]}{items}."


def with_defaults(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every argument type's bounds and defaults added to its properties' descriptions
    (the bounds before a default the docstring states in words)."""
    for args_type, model in ARGS_MODELS:
        properties = schema["types"][f"nodepools:index:{args_type.__name__}"]["properties"]
        for field in model.model_fields:
            prop = properties[camel_case(field)]
            text = prop["description"]
            bounds = bounds_text(model, field)
            if bounds is not None:
                head, said, tail = text.partition(" Default:")
                text = f"{head} {bounds}{said}{tail}".strip()
            default = default_text(model, field)
            if default is not None:
                text = f"{text} {default}".strip()
            prop["description"] = text
    return schema
