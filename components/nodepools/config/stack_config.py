"""The structured config of one stack, validated into the spec before anything registers.

A stack's ``Pulumi.<env>.yaml`` holds these keys in the ``nodepools`` namespace:
``cluster`` (``nodepools.clouds.cluster_settings``), ``layout`` (``flat`` | ``specialized``),
``pools`` (a list of ``PoolSpec`` fields), ``guardrails`` (the guardrails spec;
default: every guardrail at its default) and ``example`` (default false: true marks a
stack whose ids are placeholders, which the deploy workflow plans and never deploys).
Every problem of every key is reported in one ``StackConfigError`` whose lines name
the config path, e.g.
``nodepools:pools[2].min_nodes: min_nodes (5) must be <= max_nodes (3)``.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Iterable, Mapping

import pulumi
from pydantic import Field, PrivateAttr, ValidationError, model_validator

from nodepools.clouds.cluster_settings import EksClusterConfig, GkeClusterConfig
from nodepools.components.platform import PlatformArgs
from nodepools.components.validated import ValidatedPlatform, validate_platform
from nodepools.backends.connection import PlannedTarget
from nodepools.config.guardrails import GuardrailsSpec, platform_args
from nodepools.config.layout import Layout, LayoutVerdict, flat_layout_problem, layout_verdict
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.kube_versions import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.errors import Problems, dotted, message_of
from nodepools.spec.model import StrictModel
from nodepools.spec.pool import PoolSpec
from nodepools.spec.secrets import redact
from nodepools.vocabulary import Cloud

NAMESPACE = "nodepools"
KEYS = ("cluster", "layout", "pools", "guardrails", "example")


class StackConfigError(pulumi.RunError):
    """Every bad field of a stack's config, one ``path: message`` line each.

    A ``pulumi.RunError``, so the Pulumi CLI prints the lines without a traceback."""

    def __init__(self, lines: list[str], validation_error: ValidationError | None = None) -> None:
        self.lines = lines
        self.validation_error = validation_error
        head = f"stack config has {len(lines)} problem{'s' if len(lines) != 1 else ''} (nothing was registered):"
        super().__init__("\n  ".join([head, *lines]))

    def redacted(self, secrets: Iterable[str]) -> "StackConfigError":
        """The same error with no secret of ``secrets`` in its lines (and without the
        ValidationError, whose inputs hold them); itself when there is none."""
        secrets = set(secrets)
        if not secrets:
            return self
        return StackConfigError([redact(line, secrets) for line in self.lines])


class StackConfig(StrictModel):
    """One stack: its cluster, layout, pools and guardrails."""

    cluster: EksClusterConfig | GkeClusterConfig = Field(discriminator="cloud")
    layout: Layout
    pools: list[PoolSpec] = Field(min_length=1, max_length=50)
    guardrails: GuardrailsSpec = Field(default_factory=GuardrailsSpec)
    # An example stack: its ids are placeholders (tools/deployable_stacks.py leaves it out of deploys).
    example: bool = False
    # The keys (``cluster``, ``pools``, ...) the stack's config marks secret, and their strings.
    _secret_keys: frozenset[str] = PrivateAttr(default=frozenset())
    _secrets: frozenset[str] = PrivateAttr(default=frozenset())

    @property
    def secret_keys(self) -> frozenset[str]:
        return self._secret_keys

    def redact(self, text: str) -> str:
        """``text`` without the strings of the secret keys (``nodepools.spec.secrets``)."""
        return redact(text, self._secrets) if self._secrets else text

    def with_secrets(self, keys: Iterable[str], secrets: Iterable[str]) -> "StackConfig":
        """This config, read from ``keys`` marked secret whose strings are ``secrets`` (``from_pulumi``)."""
        self._secret_keys, self._secrets = frozenset(keys), frozenset(secrets)
        return self

    @model_validator(mode="after")
    def _check(self) -> "StackConfig":
        problems = Problems()
        absorb(problems, lambda: self.cluster_pools)
        if self.layout is Layout.FLAT and (why := flat_layout_problem(self.pools)):
            problems.add("layout", why, self.layout.value)
        if self.guardrails.kubernetes_version != self.cluster.kubernetes_version:
            problems.add(("guardrails", "kubernetes_version"), f"guardrails.kubernetes_version "
                         f"{self.guardrails.kubernetes_version!r} differs from the cluster's "
                         f"{self.cluster.kubernetes_version!r}; leave it unset to follow the cluster",
                         self.guardrails.kubernetes_version)
        if not problems:
            absorb(problems, lambda: self.platform_args)
        problems.raise_if_any("StackConfig")
        return self

    @model_validator(mode="before")
    @classmethod
    def _guardrails_follow_cluster(cls, data: Any) -> Any:
        """The guardrails build objects for the cluster's Kubernetes version unless told otherwise."""
        if not isinstance(data, dict):
            return data
        cluster, guardrails = data.get("cluster"), data.get("guardrails", {})
        if isinstance(cluster, dict) and isinstance(guardrails, dict) and "kubernetes_version" not in guardrails:
            version = cluster.get("kubernetes_version", DEFAULT_KUBERNETES_VERSION)
            # A bad cluster version is reported once, at the key the user wrote.
            if version in SUPPORTED_KUBERNETES_VERSIONS:
                data = {**data, "guardrails": {**guardrails, "kubernetes_version": version}}
        return data

    # Built once, during validation (cached: the config is frozen), and handed to the
    # Platform as they are, so their rules never run twice.
    @cached_property
    def platform_args(self) -> PlatformArgs:
        """What the Platform component takes (pools, guardrails, the cluster's region where it has one)."""
        return platform_args(self.pools, self.guardrails, getattr(self.cluster, "region", None),
                             self.cluster.system_nodes)

    @cached_property
    def cluster_pools(self) -> ClusterPools:
        """The pools as one cluster's set (names unique, one cloud, one default pool, a place for add-ons)."""
        return ClusterPools(cloud=self.cluster.cloud, pools=self.pools, system_nodes=self.cluster.system_nodes)

    @property
    def cloud(self) -> Cloud:
        return Cloud(self.cluster.cloud)

    @property
    def verdict(self) -> LayoutVerdict:
        return layout_verdict(self.layout, self.pools, unowned_nodes=self.cluster.system_nodes is not None)


def absorb(problems: Problems, build: Any, prefix: tuple[str | int, ...] = ()) -> Any:
    """Run ``build``; move the problems of a ValidationError it raises into ``problems``."""
    try:
        return build()
    except ValidationError as err:
        problems.absorb(err, prefix)
        return None


def config_path(loc: tuple[str | int, ...]) -> str:
    """``('pools', 2, 'min_nodes')`` -> ``nodepools:pools[2].min_nodes``."""
    if not loc:
        return NAMESPACE
    head, rest = str(loc[0]), tuple(loc[1:])
    if head == "system_nodes":  # the platform's field; in config it lives under the cluster
        head, rest = "cluster", ("system_nodes", *rest)
    if head == "cluster" and rest and rest[0] in {c.value for c in Cloud}:
        rest = rest[1:]  # the discriminated union's tag is not part of the user's path
    return dotted(rest, f"{NAMESPACE}:{head}")


def _describe(err: ValidationError) -> list[str]:
    lines = []
    for item in err.errors(include_url=False):
        loc, msg = tuple(item["loc"]), message_of(item)
        if item["type"] in ("union_tag_invalid", "union_tag_not_found"):
            got = (item.get("ctx") or {}).get("tag", "nothing")
            loc, msg = loc + ("cloud",), f"cloud must be one of: {', '.join(c.value for c in Cloud)} (got {got})"
        elif item["type"] == "extra_forbidden" and len(loc) == 1:
            msg = f"unknown config key (allowed: {', '.join(f'{NAMESPACE}:{k}' for k in KEYS)})"
        if loc and loc[-1] == "[key]":
            loc = loc[:-1]  # pydantic's marker for a bad mapping key: the path ends at the key itself
        lines.append(f"{config_path(loc)}: {msg}")
    return lines


def load_stack_config(raw: Mapping[str, Any]) -> StackConfig:
    """Validate ``raw`` (config keys without the namespace, values parsed) or raise
    ``StackConfigError`` listing every problem."""
    try:
        return StackConfig.model_validate(dict(raw))
    except ValidationError as err:
        raise StackConfigError(_describe(err), err) from None


def check_on_target(config: StackConfig, planned: PlannedTarget) -> ValidatedPlatform:
    """Build the cluster's pool target before the cluster registers (``planned``:
    ``planned_eks_target``/``planned_gke_target`` of the config; it registers nothing) and
    check every pool against that cloud's rules, so a pool the cloud refuses stops the stack
    before its cluster registers. The result is what ``Platform`` takes without checking
    again, on that same target."""
    problems = Problems()
    target = absorb(problems, lambda: planned.target, ("cluster",))
    validated = None
    if target is not None:
        # Everything the Platform would refuse (the cloud's pool rules, the pool set,
        # the add-ons' needs) is refused here, before the cluster and provider register.
        validated = absorb(problems, lambda: validate_platform(target, config.platform_args, config.cluster_pools))
    try:
        problems.raise_if_any("StackConfig")
    except ValidationError as err:
        planned.abandon()
        raise StackConfigError(_describe(err), err) from None
    return validated
