"""The Analyzer protocol's shapes as plain dataclasses, and the CLI's config reconciliation.

Kept apart from the runner (``nodepools.offline.analyzer``) so tests and the
offline plan can build resources and read diagnostics without a process.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto, rpc

from nodepools.offline.engine import Registration

# The engine's wire sentinel for a value unknown during preview.
UNKNOWN_WIRE = rpc.UNKNOWN
CANNOT_RUN_PREFIX = "can't run policy"


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


def urn_for(type_: str, name: str, *, project: str = "nodepools", stack: str = "dev", parent_type: str = "") -> str:
    """A URN as the engine builds it (``urn:pulumi:<stack>::<project>::[<parent type>$]<type>::<name>``)."""
    qualified = f"{parent_type}${type_}" if parent_type else type_
    return f"urn:pulumi:{stack}::{project}::{qualified}::{name}"


@dataclass(frozen=True)
class PackResource:
    """A resource as the engine hands it to analyzers. ``properties`` is a plain
    dict (use ``UNKNOWN_WIRE`` for unknowns) or the exact wire ``Struct``."""

    type: str
    name: str
    properties: Any
    urn: str = ""
    parent: str = ""
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    provider: str = ""  # the provider resource's URN
    protect: bool = False
    ignore_changes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.urn:
            object.__setattr__(self, "urn", urn_for(self.type, self.name))

    @classmethod
    def from_registration(cls, reg: Registration) -> "PackResource":
        # The engine's provider reference is "<provider urn>::<id>".
        provider = reg.provider.rsplit("::", 1)[0] if reg.provider else ""
        return cls(reg.type, reg.name, reg.wire, reg.urn, reg.parent, tuple(reg.dependencies),
                   {k: tuple(v) for k, v in reg.property_dependencies.items()}, provider, reg.protect,
                   tuple(reg.ignore_changes))

    def struct(self) -> struct_pb2.Struct:
        if isinstance(self.properties, struct_pb2.Struct):
            return self.properties
        message = struct_pb2.Struct()
        json_format.ParseDict(dict(self.properties), message)
        return message

    def options(self) -> Any:
        return proto.AnalyzerResourceOptions(parent=self.parent, protect=self.protect,
                                             ignoreChanges=list(self.ignore_changes))

    def provider_message(self, by_urn: Mapping[str, "PackResource"]) -> Any:
        provider = by_urn.get(self.provider)
        if provider is None:
            return None
        return proto.AnalyzerProviderResource(type=provider.type, urn=provider.urn, name=provider.name,
                                              properties=provider.struct())

    def analyzer_resource(self, by_urn: Mapping[str, "PackResource"]) -> Any:
        return proto.AnalyzerResource(
            type=self.type, urn=self.urn, name=self.name, properties=self.struct(), options=self.options(),
            provider=self.provider_message(by_urn), parent=self.parent, dependencies=list(self.dependencies),
            propertyDependencies={k: proto.AnalyzerPropertyDependencies(urns=list(v))
                                  for k, v in self.property_dependencies.items()})


def analyze_requests(items: list[PackResource]) -> list[Any]:
    """One ``AnalyzeRequest`` per resource, as the engine sends them (the provider resolved
    among ``items``)."""
    by_urn = {r.urn: r for r in items}
    return [proto.AnalyzeRequest(type=item.type, urn=item.urn, name=item.name, properties=item.struct(),
                                 options=item.options(), provider=item.provider_message(by_urn)) for item in items]


def stack_request(items: list[PackResource]) -> Any:
    """The ``AnalyzeStackRequest`` of ``items``."""
    by_urn = {r.urn: r for r in items}
    return proto.AnalyzeStackRequest(resources=[item.analyzer_resource(by_urn) for item in items])


_ENFORCEMENT_LEVELS = ("advisory", "mandatory", "remediate", "disabled")


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
