"""The pack's configuration: one JSON schema per policy (what the CLI validates and
fills defaults from) and the typed settings a rule reads.

CrossGuard config is per policy (``{"spot-checkpointing": {"spotCheckpointMax":
"15m"}}``), so every policy's schema carries the shared keys (``exemptNamespaces``,
``waivers``) plus its own. ``nodepools.policies.config.pack_config`` spreads a
pack-wide config onto the policies for users who prefer one place.

Defaults: minClusterVersion "1.32"; spotCheckpointMax "30m"; defaultModelLoadSeconds
300; batchQuotaShare 0.6 (the guardrails' upper bound for the batch namespace's
share of the resident and batch pools, see ``nodepools.guardrails.spec``);
exemptNamespaces []; tolerationApprovals {}; offPeakWindow 00:00-06:00 UTC; waivers [];
nodeAgentNamespaces [] (beyond the system namespaces); nodeLabelSources []; gpuNodeStartSeconds 300.
"""
from __future__ import annotations

import re
from datetime import date
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nodepools.spec.errors import Problems

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
    resource: str = Field(min_length=1)
    owner: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    expires: date


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


class Settings(_Strict):
    """Every key any policy reads (camelCase as in the pack config)."""

    exempt_namespaces: tuple[str, ...] = Field((), alias="exemptNamespaces")
    waivers: tuple[Waiver, ...] = ()
    min_cluster_version: str = Field("1.32", alias="minClusterVersion")
    spot_checkpoint_max: str = Field("30m", alias="spotCheckpointMax")
    default_model_load_seconds: float = Field(300.0, alias="defaultModelLoadSeconds", ge=0)
    batch_quota_share: float = Field(0.6, alias="batchQuotaShare", gt=0, le=1)
    toleration_approvals: dict[str, tuple[str, ...]] = Field(default_factory=dict, alias="tolerationApprovals")
    off_peak_window: OffPeakWindow = Field(default_factory=OffPeakWindow, alias="offPeakWindow")
    gpu_device_classes: tuple[str, ...] = Field((), alias="gpuDeviceClasses")
    node_agent_namespaces: tuple[str, ...] = Field((), alias="nodeAgentNamespaces")
    node_label_sources: tuple[str, ...] = Field((), alias="nodeLabelSources")
    gpu_node_start_seconds: float = Field(
        300.0, alias="gpuNodeStartSeconds", ge=0,
        description="seconds from a GPU node's purchase to a schedulable GPU (boot, driver, device plugin)")

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


_WAIVER_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["policy", "resource", "owner", "reason", "expires"],
    "properties": {
        "resource": {"type": "string", "minLength": 1,
                     "description": "a resource URN, or a glob over the resource's Pulumi name"},
        "owner": {"type": "string", "minLength": 1}, "reason": {"type": "string", "minLength": 1},
        "expires": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$",
                    "description": "last day (UTC) the waiver applies, YYYY-MM-DD"},
    },
}

# JSON schema of every config key, by its camelCase name.
PROPERTIES: dict[str, dict[str, Any]] = {
    "exemptNamespaces": {"type": "array", "items": {"type": "string"}, "default": [],
                         "description": "namespaces out of scope, beside kube-system/kube-public/kube-node-lease"},
    "minClusterVersion": {"type": "string", "pattern": _VERSION.pattern, "default": "1.32"},
    "spotCheckpointMax": {"type": "string", "default": "30m",
                          "description": "longest nodepools.io/checkpoint-interval a spot workload may declare"},
    "defaultModelLoadSeconds": {"type": "number", "minimum": 0, "default": 300,
                                "description": "model load time when nodepools.io/model-load-seconds is absent"},
    "batchQuotaShare": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.6,
                        "description": "largest share of the resident and batch pools' cpu/memory (at max nodes) "
                                       "a batch namespace's quota may claim"},
    "tolerationApprovals": {"type": "object", "default": {},
                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                            "description": "taint ('key' or 'key=value') -> namespaces approved to tolerate it"},
    "nodeAgentNamespaces": {"type": "array", "items": {"type": "string"}, "default": [],
                            "description": "namespaces whose DaemonSets (node agents: logging, monitoring, GPU "
                                           "exporters) are approved to tolerate any taint"},
    "nodeLabelSources": {"type": "array", "items": {"type": "string", "minLength": 1}, "default": [],
                         "description": "node label prefixes agents add at run time (e.g. "
                                        "feature.node.kubernetes.io/, nvidia.com/gpu.): unknown at preview, "
                                        "where any other undeclared label is absent"},
    "offPeakWindow": {"type": "object", "default": {"start": "00:00", "end": "06:00", "timeZone": "UTC"},
                      "properties": {"start": {"type": "string"}, "end": {"type": "string"},
                                     "timeZone": {"type": "string"}}},
    "gpuDeviceClasses": {"type": "array", "items": {"type": "string"}, "default": [],
                         "description": "DRA DeviceClass names whose claims request a GPU, besides classes whose "
                                        "selectors name gpu.nvidia.com"},
    "gpuNodeStartSeconds": {"type": "number", "minimum": 0, "default": 300,
                            "description": "seconds from a GPU node's purchase to a schedulable GPU (boot, driver, "
                                           "device plugin)"},
}


def schema_properties(policy: str, own_keys: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The config schema of ``policy``: shared keys plus its own."""
    waivers = {"type": "array", "default": [], "items": {**_WAIVER_SCHEMA, "properties": {
        **_WAIVER_SCHEMA["properties"], "policy": {"type": "string", "enum": [policy]}}}}
    return {"exemptNamespaces": PROPERTIES["exemptNamespaces"], "waivers": waivers,
            "gpuDeviceClasses": PROPERTIES["gpuDeviceClasses"], **{key: PROPERTIES[key] for key in own_keys}}


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
