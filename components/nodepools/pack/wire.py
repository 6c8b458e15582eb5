"""Resources off the wire, read once: the engine's ``Struct`` properties as the rules' plain data.

The engine marshals a resource's properties keeping unknowns and secrets
(pulumi/pulumi: sdk/go/common/resource/plugin/analyzer_plugin.go, ``MarshalOptions{KeepUnknowns,
KeepSecrets}``): an unknown is a sentinel string, a secret, an asset and an archive are
objects signed under ``SIG_KEY``. ``properties`` walks a ``Struct`` once and returns what
``pulumi_policy`` hands a policy and ``nodepools.inventory.values.plain`` then makes of it
(pulumi/pulumi-policy: sdk/python/lib/pulumi_policy/deserialize.py): dicts in the wire's
key order, lists, floats (the wire has no integers), strings, bools, None, ``UNKNOWN`` for
every unknown sentinel, a secret's value in its place, ``pulumi`` asset and archive objects.
The secrets' string values are collected (``Decoded.secrets``) so no message repeats one.

A value the engine never sends (NaN or infinity, an unknown signature, a secret without a
value) raises ``WireError`` naming the property, instead of judging a guess.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from nodepools.inventory.values import UNKNOWN, UNKNOWN_STRINGS
from nodepools.inventory.resource import Resource

# pulumi/pulumi: sdk/go/common/resource/properties.go (the signature key and its values).
SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7"


class WireError(ValueError):
    """A request the pack cannot read; ``str`` names the resource and property."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str | int] = []

    def where(self, urn: str, what: str = "properties") -> "WireError":
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path)
        return WireError(f"{urn or '<no urn>'}: {what}{path}: {self.problem}")


@dataclass
class Decoded:
    """Everything read from one request: the secrets' string values, for redaction."""

    secrets: set[str] = field(default_factory=set)


def properties(struct: Any, decoded: Decoded) -> dict[str, Any]:
    """A resource's ``google.protobuf.Struct`` as plain data (see the module docstring); its
    own keys are property names, never a signature (as pulumi_policy reads them)."""
    return _fields(struct, decoded)


def _value(message: Any, decoded: Decoded) -> Any:
    kind = message.WhichOneof("kind")
    if kind == "string_value":
        text = message.string_value
        return UNKNOWN if text in UNKNOWN_STRINGS else text
    if kind == "struct_value":
        return _struct(message.struct_value, decoded)
    if kind == "number_value":
        number = message.number_value
        if math.isnan(number) or math.isinf(number):
            raise WireError(f"{number} is not a JSON number (the engine sends none)")
        return number
    if kind == "bool_value":
        return message.bool_value
    if kind == "list_value":
        out = []
        for index, item in enumerate(message.list_value.values):
            try:
                out.append(_value(item, decoded))
            except WireError as error:
                error.path.insert(0, index)
                raise
        return out
    return None  # null_value, or a Value with no kind (read as null, as MessageToDict does)


def _struct(struct: Any, decoded: Decoded) -> Any:
    return _signed(struct, decoded) if SIG_KEY in struct.fields else _fields(struct, decoded)


def _fields(struct: Any, decoded: Decoded) -> dict[str, Any]:
    out = {}
    for key, item in struct.fields.items():
        try:
            out[key] = _value(item, decoded)
        except WireError as error:
            error.path.insert(0, key)
            raise
    return out


def _signed(struct: Any, decoded: Decoded) -> Any:
    fields = struct.fields
    sig = fields[SIG_KEY]
    signature = sig.string_value if sig.WhichOneof("kind") == "string_value" else None
    if signature == SECRET_SIG:
        if "value" not in fields:
            raise WireError("a secret without a value")
        try:
            value = _value(fields["value"], decoded)
        except WireError as error:
            error.path.insert(0, "value")
            raise
        if isinstance(value, str):
            decoded.secrets.add(value)
        return value
    if signature in (ASSET_SIG, ARCHIVE_SIG):
        return _asset(signature, {k: _value(v, decoded) for k, v in fields.items() if k != SIG_KEY})
    raise WireError(f"unrecognized signature {signature!r}")


def _asset(signature: str, parts: dict[str, Any]) -> Any:
    """The ``pulumi`` asset or archive object the SDK builds (rules never read one)."""
    import pulumi

    def text(key: str) -> str:
        if not isinstance(parts[key], str):
            raise WireError(f"the {key} of an asset or archive is not a string")
        return parts[key]

    if signature == ASSET_SIG:
        for key, make in (("path", pulumi.FileAsset), ("text", pulumi.StringAsset), ("uri", pulumi.RemoteAsset)):
            if key in parts:
                return make(text(key))
        raise WireError("an asset with none of path, text or uri")
    if "assets" in parts:
        assets = parts["assets"]
        if not isinstance(assets, dict) or not all(isinstance(a, (pulumi.Asset, pulumi.Archive))
                                                   for a in assets.values()):
            raise WireError("an archive whose assets are not assets or archives")
        return pulumi.AssetArchive(assets)
    for key, make in (("path", pulumi.FileArchive), ("uri", pulumi.RemoteArchive)):
        if key in parts:
            return make(text(key))
    raise WireError("an archive with none of assets, path or uri")


def provider_urn(message: Any) -> str:
    """The URN of a request's provider ("" when none is sent)."""
    return message.provider.urn if message.HasField("provider") else ""


def analyzed_resource(request: Any, decoded: Decoded) -> Resource:
    """The resource of an ``AnalyzeRequest`` (its parent from the options, no dependencies:
    the engine sends none to ``Analyze``)."""
    try:
        props = properties(request.properties, decoded)
    except WireError as error:
        raise error.where(request.urn) from None
    return Resource(request.type, request.urn, request.name, props, request.options.parent, (), {}, provider_urn(request))


def stack_resources(request: Any, decoded: Decoded) -> list[Resource]:
    """The resources of an ``AnalyzeStackRequest``. As pulumi_policy links them, a parent,
    dependency or property dependency counts only when that resource is in the request."""
    present = {r.urn for r in request.resources}
    out = []
    for r in request.resources:
        try:
            props = properties(r.properties, decoded)
        except WireError as error:
            raise error.where(r.urn) from None
        out.append(Resource(r.type, r.urn, r.name, props, r.parent if r.parent in present else "",
                       tuple(d for d in r.dependencies if d in present),
                       {key: tuple(d for d in deps.urns if d in present)
                        for key, deps in r.propertyDependencies.items()},
                       provider_urn(r)))
    return out
