"""Errors in the names other languages see.

Decision: a problem found through the provider reports the Python API's message
with every argument name spelled as the schema spells it (camelCase:
``pools[0].minNodes``, ``batchQuotaShare must be between ...``), because those
are the names a TypeScript, Go (exported forms of the same words) or YAML
program writes. Map keys (labels, namespaces, ...) and quoted user values are
left as they are. The path is that of the component's inputs: the cluster's
arguments are top-level inputs, so the Python API's ``cluster.`` prefix goes.
"""
import re
from typing import Any, Iterable

from pulumi.errors import InputPropertiesError, InputPropertyErrorDetails
from pulumi.provider.experimental.util import camel_case
from pydantic import ValidationError

from nodepools.multilang.guardrails_args import Alerts, ChartVersions, Guardrails, LimitRange
from nodepools.multilang.pool_args import CustomCapacity, Gpu, Pool, Taint
from nodepools.spec.errors import dotted, message_of

SHARED_ARG_TYPES = (Pool, Taint, Gpu, CustomCapacity, Guardrails, Alerts, LimitRange,
                    ChartVersions)

# Inputs whose keys are user data, never field names.
MAP_FIELDS = frozenset({"labels", "custom_capacity", "namespaces", "rule_labels", "tags", "resource_labels"})
_QUOTED = re.compile(r"('[^']*')")


def field_names(types: Iterable[type]) -> frozenset[str]:
    """Every multi-word field name of ``types`` (the args classes): the words to respell."""
    return frozenset(name for t in types for name in t.__annotations__ if "_" in name)


def schema_path(loc: tuple[Any, ...]) -> str:
    """A pydantic location as the schema spells it: ``('pools', 0, 'min_nodes')`` -> ``pools[0].minNodes``."""
    if loc[:1] == ("cluster",):
        loc = loc[1:]
    parts: list[Any] = []
    verbatim = False
    for part in loc:
        if isinstance(part, str) and not verbatim:
            parts.append(camel_case(part))
            verbatim = part in MAP_FIELDS
        else:
            parts.append(part)
            verbatim = False
    return dotted(tuple(parts))


def schema_message(message: str, names: frozenset[str]) -> str:
    """``message`` with each of ``names`` outside quotes respelled in camelCase."""
    if not names:
        return message
    words = re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    pieces = _QUOTED.split(message)
    return "".join(p if i % 2 else words.sub(lambda m: camel_case(m.group(1)), p) for i, p in enumerate(pieces))


def property_errors(err: ValidationError, names: frozenset[str]) -> list[InputPropertyErrorDetails]:
    return [{"property_path": schema_path(tuple(item["loc"])), "reason": schema_message(message_of(item), names)}
            for item in err.errors(include_url=False)]


def invalid_inputs(component: str, errors: list[InputPropertyErrorDetails]) -> InputPropertiesError:
    """One error for every problem: the engine shows each property's path and reason."""
    lines = "".join(f"\n  {e['property_path']}: {e['reason']}" for e in errors)
    return InputPropertiesError(f"{component} has invalid inputs:{lines}", errors)
