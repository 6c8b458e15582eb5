"""The Analyzer protocol's shapes: resources to the wire, diagnostics back as plain dataclasses, and
the CLI's config reconciliation.

Kept apart from the runner (``nodepools.offline.analyzer``) so tests and the
offline plan can build requests and read diagnostics without a process. A resource is the one
record, ``nodepools.inventory.resource.Resource`` (built by hand), or a mocked run's
``Registration`` (its exact wire ``Struct``, as the engine would send it).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Mapping

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto, rpc

from nodepools.inventory.resource import Resource
from nodepools.inventory.values import UNKNOWN
from nodepools.offline.engine import Registration

# The engine's wire sentinel for a value unknown during preview.
UNKNOWN_WIRE = rpc.UNKNOWN
CANNOT_RUN_PREFIX = "can't run policy"
# What the client sends: resources built by hand, or a mocked run's registrations (the exact wire).
Item = Resource | Registration


class PackError(RuntimeError):
    """The pack failed to start or a call failed (the message carries the pack's stderr)."""


class PackConfigError(ValueError):
    """The pack config does not validate against the policies' schemas (as the CLI would refuse it)."""


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    description: str
    level: str  # advisory | mandatory | remediate | disabled
    severity: str  # low | medium | high | critical | unspecified
    kind: str  # resource | stack
    config_schema: dict[str, Any]
    required: tuple[str, ...]


@dataclass(frozen=True)
class PackInfo:
    name: str
    version: str
    policies: dict[str, PolicyInfo]


def policy_info(message: Any, level_names: Mapping[int, str]) -> PolicyInfo:
    kind = "stack" if message.policy_type == proto.PolicyType.POLICY_TYPE_STACK else "resource"
    severity = proto.PolicySeverity.Name(message.severity).removeprefix("POLICY_SEVERITY_").lower()
    return PolicyInfo(message.name, message.description, level_names[message.enforcementLevel], severity, kind,
                      json_format.MessageToDict(message.configSchema.properties),
                      tuple(message.configSchema.required))


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic; ``urn`` is the analyzed resource for ``Analyze`` (as the engine
    attributes it), the reported resource or "" (the stack) for ``AnalyzeStack``."""

    policy: str
    urn: str
    message: str
    level: str
    severity: str
    stage: str  # analyze | analyze-stack

    @property
    def cannot_judge(self) -> bool:
        """The pack could not reach a verdict at preview (always advisory)."""
        return self.message.startswith(CANNOT_RUN_PREFIX)

    @classmethod
    def of(cls, message: Any, resource_urn: str, stage: str, level_names: Mapping[int, str]) -> "Diagnostic":
        severity = proto.PolicySeverity.Name(message.severity).removeprefix("POLICY_SEVERITY_").lower()
        return cls(message.policyName, message.urn or resource_urn, message.message,
                   level_names[message.enforcementLevel], severity, stage)


def wire_value(value: Any) -> Any:
    """Plain data as the engine marshals it: ``UNKNOWN`` becomes the wire's unknown sentinel; every
    other value, a value signed as the engine signs it (a secret: ``{SIG_KEY: SECRET_SIG, "value": ...}``)
    included, goes as it is."""
    if value is UNKNOWN:
        return UNKNOWN_WIRE
    if isinstance(value, Mapping):
        return {str(k): wire_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [wire_value(v) for v in value]
    return value


def _struct(item: Item) -> struct_pb2.Struct:
    if isinstance(item, Registration):
        return item.wire  # exactly as the engine received it: secrets and unknowns as recorded
    message = struct_pb2.Struct()
    message.update(wire_value(item.props))  # update, unlike ParseDict, takes any float, as the wire does
    return message


def _message(item: Item) -> Any:
    """``item`` as an ``AnalyzerResource`` (its provider filled in by ``analyzer_resources``)."""
    if isinstance(item, Registration):
        options = proto.AnalyzerResourceOptions(parent=item.parent, protect=item.protect,
                                                ignoreChanges=list(item.ignore_changes))
    else:
        options = proto.AnalyzerResourceOptions(parent=item.parent)
    return proto.AnalyzerResource(
        type=item.type, urn=item.urn, name=item.name, properties=_struct(item), options=options,
        parent=item.parent, dependencies=list(item.dependencies),
        propertyDependencies={k: proto.AnalyzerPropertyDependencies(urns=list(v))
                              for k, v in item.property_dependencies.items()})


def _provider_urn(item: Item) -> str:
    if isinstance(item, Registration):  # the engine's provider reference is "<provider urn>::<id>"
        return item.provider.rsplit("::", 1)[0] if item.provider else ""
    return item.provider


def analyzer_resources(items: list[Item]) -> list[Any]:
    """Each of ``items`` as the engine hands it to analyzers (``AnalyzerResource``): hand-built
    ``Resource``s marshalled from their plain props, a mocked run's ``Registration``s with their
    exact wire ``Struct``; a provider is sent when it is among ``items``."""
    messages = [_message(item) for item in items]
    by_urn = {m.urn: m for m in messages}
    for item, message in zip(items, messages):
        provider = by_urn.get(_provider_urn(item))
        if provider is not None:
            message.provider.CopyFrom(proto.AnalyzerProviderResource(
                type=provider.type, urn=provider.urn, name=provider.name, properties=provider.properties))
    return messages


def analyze_requests(items: list[Item]) -> list[Any]:
    """One ``AnalyzeRequest`` per resource, as the engine sends them (the provider resolved
    among ``items``)."""
    out = []
    for m in analyzer_resources(items):
        request = proto.AnalyzeRequest(type=m.type, urn=m.urn, name=m.name, properties=m.properties, options=m.options)
        if m.HasField("provider"):
            request.provider.CopyFrom(m.provider)
        out.append(request)
    return out


def stack_request(items: list[Item]) -> Any:
    """The ``AnalyzeStackRequest`` of ``items``."""
    return proto.AnalyzeStackRequest(resources=analyzer_resources(items))


def exact(resource: Resource, wire: struct_pb2.Struct) -> Registration:
    """``resource`` with ``wire`` as its exact properties (a secret's signature, an unknown of any
    type, a number the JSON mapping refuses): a registration as the engine records one."""
    return Registration(urn=resource.urn, type=resource.type, name=resource.name, custom=True,
                        parent=resource.parent, inputs={}, wire=wire, dependencies=list(resource.dependencies),
                        property_dependencies={k: list(v) for k, v in resource.property_dependencies.items()},
                        ignore_changes=[], provider=f"{resource.provider}::{UNKNOWN_WIRE}" if resource.provider else "",
                        protect=False, delete_before_replace=False,
                        aliases=[], replace_on_changes=[])


_ENFORCEMENT_LEVELS = ("advisory", "mandatory", "remediate", "disabled")


def with_today(info: PackInfo, config: Mapping[str, Any] | None, today: date) -> dict[str, Any]:
    """``config`` (``--policy-pack-config`` format) with ``today`` for every policy whose schema
    takes one and whose own entry names none: the pack judges on that date, not by its own clock.
    A pack from before the date was an input has no ``today`` key and keeps its clock."""
    out = dict(config or {})
    for name, policy in info.policies.items():
        if "today" not in policy.config_schema:
            continue
        entry = out.get(name)
        if entry is None:
            out[name] = {"today": today.isoformat()}
        elif isinstance(entry, str):
            out[name] = {"enforcementLevel": entry, "today": today.isoformat()}
        elif isinstance(entry, Mapping):
            out[name] = {"today": today.isoformat(), **entry}
    return out


def reconcile(info: PackInfo, config: Mapping[str, Any], validate: bool = True) -> dict[str, tuple[str, dict]]:
    """What the CLI sends to Configure for ``config`` (``--policy-pack-config``
    format): schema defaults, then ``all``'s level, then each policy's level and
    properties; validated against the schemas unless ``validate`` is False (to
    test the pack's own checks). Unlike the CLI, a policy name the pack does not
    have is an error rather than ignored."""
    errors = [f"unknown policy {k!r}" for k in config if k != "all" and k not in info.policies]
    result = {name: (p.level, {k: s["default"] for k, s in p.config_schema.items() if "default" in s})
              for name, p in info.policies.items()}
    everything = config.get("all")
    if everything is not None:
        result = {name: (everything, props) for name, (_, props) in result.items()}
    for name, given in config.items():
        if name == "all" or name not in result:
            continue
        level, props = result[name]
        if isinstance(given, str):
            level = given
        else:
            given = dict(given)
            level = given.pop("enforcementLevel", level)
            props = {**props, **given}
        result[name] = (level, props)
    for name, (level, props) in result.items():
        if level not in _ENFORCEMENT_LEVELS:
            errors.append(f"Policy {name!r}: {level!r} is not a valid enforcement level")
        errors += _validate(info.policies[name], props) if validate else []
    if errors:
        raise PackConfigError("; ".join(errors))
    return result


def _validate(policy: PolicyInfo, props: dict) -> list[str]:
    try:
        import jsonschema  # the CLI validates with gojsonschema; skip where jsonschema is absent
    except ImportError:  # pragma: no cover - jsonschema ships with the test extras
        return []
    schema = {"type": "object", "properties": policy.config_schema, **({"required": list(policy.required)}
                                                                       if policy.required else {})}
    validator = jsonschema.Draft7Validator(schema)
    return [f"Policy {policy.name!r}: {'/'.join(map(str, e.path)) or '(root)'}: {e.message}"
            for e in validator.iter_errors(props)]
