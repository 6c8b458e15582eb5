"""The pack's configuration: one model (``Settings``) of every key a policy reads, and
from it the JSON schema of each policy (what the CLI validates and fills defaults from)
and the typed settings a rule reads.

CrossGuard config is per policy (``{"spot-checkpointing": {"spotCheckpointMax":
"15m"}}``), so every policy's schema carries the shared keys (``SHARED_KEYS``:
``exemptNamespaces``, ``waivers``, ``gpuDeviceClasses``, ``today``) plus its own.
``nodepools.policies.config.spread`` spreads a pack-wide config onto the policies for
users who prefer one place.

Each key's name, type, constraints, default and description are written once, on its
``Settings`` field (docs/design.md section 3, "Pack configuration", lists them for users);
``PROPERTIES`` is generated from the model, defaults from ``Settings()`` itself.
"""
from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nodepools.spec.errors import Problems
from nodepools.spec.kube_versions import MINIMUM_KUBERNETES_VERSION
from nodepools.spec.presets import BATCH_QUOTA_SHARE_RANGE

_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")
_CLOCK = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$|^24:00$")
_VERSION = re.compile(r"^\d+\.\d+$")


def parse_duration_seconds(text: Any) -> float | None:
    """A Go-style duration (``30m``, ``1h30m``, ``90s``) in seconds; None when malformed."""
    if not isinstance(text, str) or not text or not (m := _DURATION.match(text.strip())):
        return None
    hours, minutes, seconds = (float(g) if g else 0.0 for g in m.groups())
    return hours * 3600 + minutes * 60 + seconds


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Waiver(_Strict):
    """Waives ``policy`` for the resources matching ``resource`` (a URN, or a glob
    over the resource's Pulumi name) until the end of ``expires`` (UTC)."""

    policy: str
    resource: str = Field(min_length=1, description="a resource URN, or a glob over the resource's Pulumi name")
    owner: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    expires: date = Field(description="last day (UTC) the waiver applies, YYYY-MM-DD",
                          json_schema_extra={"pattern": r"^\d{4}-\d{2}-\d{2}$"})


class OffPeakWindow(_Strict):
    start: str = "00:00"
    end: str = "06:00"
    time_zone: str = Field("UTC", alias="timeZone")

    @field_validator("start", "end")
    @classmethod
    def _clock(cls, value: str) -> str:
        if not _CLOCK.match(value):
            raise ValueError(f"{value!r} is not a time of day HH:MM (00:00-24:00)")
        return value


_Names = tuple[str, ...]


class Settings(_Strict):
    """Every key any policy reads (camelCase as in the pack config), with its default."""

    exempt_namespaces: _Names = Field(
        (), alias="exemptNamespaces",
        description="namespaces out of scope, beside kube-system/kube-public/kube-node-lease")
    waivers: tuple[Waiver, ...] = ()
    min_cluster_version: str = Field(MINIMUM_KUBERNETES_VERSION, alias="minClusterVersion", json_schema_extra={"pattern": _VERSION.pattern})
    spot_checkpoint_max: str = Field(
        "30m", alias="spotCheckpointMax",
        description="longest nodepools.io/checkpoint-interval a spot workload may declare")
    default_model_load_seconds: float = Field(
        300.0, alias="defaultModelLoadSeconds", ge=0,
        description="model load time when nodepools.io/model-load-seconds is absent")
    # The guardrails' upper bound for the batch namespace's share.
    batch_quota_share: float = Field(
        BATCH_QUOTA_SHARE_RANGE[1], alias="batchQuotaShare", gt=0, le=1,
        description="largest share of the resident and batch pools' cpu/memory (at max nodes) a batch "
                    "namespace's quota may claim")
    toleration_approvals: dict[str, _Names] = Field(
        {}, alias="tolerationApprovals",
        description="taint ('key' or 'key=value') -> namespaces approved to tolerate it")
    off_peak_window: OffPeakWindow = Field(OffPeakWindow(), alias="offPeakWindow")
    gpu_device_classes: _Names = Field(
        (), alias="gpuDeviceClasses",
        description="DRA DeviceClass names whose claims request a GPU, besides classes whose selectors name "
                    "gpu.nvidia.com")
    node_agent_namespaces: _Names = Field(
        (), alias="nodeAgentNamespaces",
        description="namespaces whose DaemonSets (node agents: logging, monitoring, GPU exporters) are approved "
                    "to tolerate any taint")
    node_label_sources: tuple[Annotated[str, Field(min_length=1)], ...] = Field(
        (), alias="nodeLabelSources",
        description="node label prefixes agents add at run time (e.g. feature.node.kubernetes.io/, nvidia.com/gpu.): "
                    "unknown at preview, where any other undeclared label is absent")
    gpu_node_start_seconds: float = Field(
        300.0, alias="gpuNodeStartSeconds", ge=0,
        description="seconds from a GPU node's purchase to a schedulable GPU (boot, driver, device plugin)")
    # The date is an input (docs/design.md section 10): None here means "the run's UTC date", which
    # the pack's servicer and the CLI fill in (``dated``); no rule reads a clock.
    today: date | None = Field(
        None, description="the date the rules judge by, YYYY-MM-DD: waiver expiry, the clouds' standard support, "
                          "cron schedules (default: the UTC date of the run)",
        json_schema_extra={"format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"})

    @field_validator("min_cluster_version")
    @classmethod
    def _version(cls, value: str) -> str:
        if not _VERSION.match(value):
            raise ValueError(f"{value!r} is not a Kubernetes minor version like 1.32")
        return value

    @field_validator("spot_checkpoint_max")
    @classmethod
    def _duration(cls, value: str) -> str:
        if not parse_duration_seconds(value):
            raise ValueError(f"{value!r} is not a positive duration like 30m, 1h or 90s")
        return value

    @property
    def spot_checkpoint_max_seconds(self) -> float:
        return parse_duration_seconds(self.spot_checkpoint_max) or 0.0


# Keys every policy's schema carries: each policy filters exempt namespaces and applies its
# waivers (as of ``today``), and every one may ask "does this pod request a GPU" (DRA GPU classes).
SHARED_KEYS = ("exemptNamespaces", "waivers", "gpuDeviceClasses", "today")


def dated(settings: Settings, today: date) -> Settings:
    """``settings`` as the rules get them: the configured ``today``, else ``today`` (the run's UTC
    date, read only at the pack servicer's and the CLI's edge)."""
    return settings if settings.today is not None else settings.model_copy(update={"today": today})


def _inline(schema: Any, defs: Mapping[str, Any]) -> Any:
    """``schema`` with every ``$ref`` replaced by its definition and pydantic's titles dropped."""
    if isinstance(schema, list):
        return [_inline(x, defs) for x in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _inline(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    return {k: _inline(x, defs) for k, x in schema.items() if k != "title" or not isinstance(x, str)}


def _schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A field that may be None (filled at the edge when not given) is a plain value in the schema."""
    alternatives = schema.pop("anyOf", None)
    if alternatives is not None:
        schema = {**next(a for a in alternatives if a.get("type") != "null"), **schema}
    return schema


def _properties() -> dict[str, dict[str, Any]]:
    generated = Settings.model_json_schema(by_alias=True)
    defaults = Settings().model_dump(mode="json", by_alias=True)
    out = {}
    for key, schema in generated["properties"].items():
        # A default of None is no default in the schema: the edge fills it (``today``: the run's date).
        default = {} if defaults[key] is None else {"default": defaults[key]}
        schema = _schema(_inline(schema, generated.get("$defs", {})))
        schema.pop("default", None)
        out[key] = {**schema, **default}
    return out


# JSON schema of every config key, by its camelCase name, generated from ``Settings``.
PROPERTIES: dict[str, dict[str, Any]] = _properties()


def schema_properties(policy: str, own_keys: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The config schema of ``policy``: shared keys plus its own; its waivers must name it."""
    waivers = PROPERTIES["waivers"]
    items = {**waivers["items"], "properties": {**waivers["items"]["properties"],
                                                "policy": {"type": "string", "enum": [policy]}}}
    shared = {key: PROPERTIES[key] for key in SHARED_KEYS}
    return {**shared, "waivers": {**waivers, "items": items}, **{key: PROPERTIES[key] for key in own_keys}}


def parse_settings(policy: str, own_keys: tuple[str, ...], config: Mapping[str, Any] | None) -> Settings:
    """Typed settings of ``policy`` from its CrossGuard config. Raises one pydantic
    ValidationError naming every unknown key, bad value, or waiver naming another policy."""
    config = dict(config or {})
    problems = Problems()
    allowed = set(schema_properties(policy, own_keys))
    for key in sorted(set(config) - allowed):
        problems.add(key, f"unknown config key {key!r} for policy {policy!r} (allowed: {', '.join(sorted(allowed))})")
    for i, waiver in enumerate(config.get("waivers") or []):
        if isinstance(waiver, Mapping) and waiver.get("policy") != policy:
            problems.add(("waivers", i, "policy"), f"a waiver configured on {policy!r} must name it "
                         f"(got {waiver.get('policy')!r})")
    settings = Settings()
    try:
        settings = Settings.model_validate({k: v for k, v in config.items() if k in allowed})
    except ValidationError as error:
        problems.absorb(error)
    problems.raise_if_any(f"policy {policy!r} config")
    return settings
