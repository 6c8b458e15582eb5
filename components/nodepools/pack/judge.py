"""A pack's policies over one request: levels and settings as configured, one stack view
per request, and each diagnostic worded exactly as pulumi_policy words it.

The wire behaviour the engine knows is pulumi_policy's servicer (pulumi/pulumi-policy:
sdk/python/lib/pulumi_policy/policy.py, ``_PolicyAnalyzerServicer``): a violation's
message is the policy's description, a newline and the finding; a remediate level is
reported as mandatory; a disabled policy does not run; the verdicts preview cannot reach
are one advisory "can't run policy ... during preview" diagnostic per policy, after its
violations, with no URN and no severity. A policy whose config does not parse fails the
request that would run it, naming every bad field; so does a rule that raises.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from pulumi.runtime.proto import analyzer_pb2 as pb

from nodepools.policies.base import EnforcementLevel, Finding, PolicySpec, Res, Severity

# pulumi_policy always answers 0.0.1; the CLI shows PulumiPolicy.yaml's version instead
# (and puts it in each diagnostic), but the preview notices spell this one.
PACK_VERSION = "0.0.1"
LEVELS = {EnforcementLevel.ADVISORY: pb.ADVISORY, EnforcementLevel.MANDATORY: pb.MANDATORY,
          EnforcementLevel.REMEDIATE: pb.REMEDIATE, EnforcementLevel.DISABLED: pb.DISABLED}
LEVEL_OF_WIRE = {wire: level for level, wire in LEVELS.items()}
SEVERITIES = {Severity.LOW: pb.POLICY_SEVERITY_LOW, Severity.MEDIUM: pb.POLICY_SEVERITY_MEDIUM,
              Severity.HIGH: pb.POLICY_SEVERITY_HIGH, Severity.CRITICAL: pb.POLICY_SEVERITY_CRITICAL}
# Secret strings shorter than this cannot be told from ordinary words in a message.
SECRET_MIN_LENGTH = 4


class RequestError(Exception):
    """A request the pack refuses: ``message`` says why; ``internal`` when the fault is ours."""

    def __init__(self, message: str, internal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.internal = internal


@dataclass(frozen=True)
class Configured:
    """One policy as the last ``Configure`` set it."""

    spec: PolicySpec
    level: EnforcementLevel
    settings: Any  # nodepools.policies.settings.Settings; None when ``problem``
    problem: str = ""  # why the config does not parse ("" when it does)

    @property
    def runs(self) -> bool:
        return self.level is not EnforcementLevel.DISABLED

    @property
    def reported_level(self) -> int:
        # A violation that survived remediation is mandatory (pulumi_policy: Analyze, AnalyzeStack).
        level = EnforcementLevel.MANDATORY if self.level is EnforcementLevel.REMEDIATE else self.level
        return LEVELS[level]


def configure(specs: Sequence[PolicySpec], config: Mapping[str, tuple[EnforcementLevel, Mapping[str, Any]]]
              ) -> tuple[Configured, ...]:
    """Each policy at the level and with the properties ``config`` gives it (its own
    defaults when it is not mentioned, as ``Configure`` replaces the whole config)."""
    from pydantic import ValidationError

    from nodepools.policies.settings import parse_settings
    from nodepools.spec.errors import describe

    out = []
    for spec in specs:
        level, properties = config.get(spec.name, (spec.level, {}))
        try:
            out.append(Configured(spec, level, parse_settings(spec.name, spec.config, properties)))
        except ValidationError as error:
            out.append(Configured(spec, level, None, f"{error.title}: " + "; ".join(describe(error))))
    return tuple(out)


def _running(configured: Iterable[Configured], scope: str) -> list[Configured]:
    running = [c for c in configured if c.runs and c.spec.scope == scope]
    for c in running:
        if c.problem:
            raise RequestError(c.problem)
    return running


def _check(c: Configured, subject: Any) -> list[Finding]:
    try:
        return list(c.spec.check(subject, c.settings))
    except Exception as error:  # a rule's fault, never the engine's: say which, without a traceback
        where = getattr(subject, "urn", "") or "the stack"
        raise RequestError(f"policy {c.spec.name!r} failed on {where}: {type(error).__name__}: {error}",
                           internal=True) from error


def _redact(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted((s for s in secrets if len(s) >= SECRET_MIN_LENGTH), key=len, reverse=True):
        text = text.replace(secret, "[secret]")
    return text


def diagnostics(c: Configured, findings: Iterable[Finding], pack: str, secrets: Iterable[str] = ()) -> list[Any]:
    """The diagnostics of one policy's findings after exemptions and waivers."""
    from nodepools.policies.waivers import apply

    verdict = apply(findings, c.settings)
    out, seen = [], set()
    for finding in verdict.violations:
        if (finding.urn, finding.message) in seen:
            continue
        seen.add((finding.urn, finding.message))
        out.append(pb.AnalyzeDiagnostic(
            policyName=c.spec.name, policyPackName=pack, policyPackVersion=PACK_VERSION,
            message=f"{c.spec.description}\n{_redact(finding.message, secrets)}", urn=finding.urn,
            description=c.spec.description, enforcementLevel=c.reported_level, severity=SEVERITIES[c.spec.severity]))
    if verdict.cannot_judge:
        notes = list(dict.fromkeys(f.message for f in verdict.cannot_judge))
        text = _redact(f"cannot judge {len(notes)} item(s): " + "; ".join(notes), secrets)
        out.append(pb.AnalyzeDiagnostic(
            policyName=c.spec.name, policyPackName=pack, policyPackVersion=PACK_VERSION,
            message=f"can't run policy '{c.spec.name}' from policy pack '{pack}@v{PACK_VERSION}' during preview: "
                    f"{text}", urn="", description=c.spec.description, enforcementLevel=pb.ADVISORY))
    return out


def judge_resource(configured: Iterable[Configured], res: Res, pack: str, secrets: Iterable[str] = ()) -> list[Any]:
    """Every running resource policy on one resource, in registry order."""
    out = []
    for c in _running(configured, "resource"):
        out += diagnostics(c, _check(c, res), pack, secrets)
    return out


def judge_stack(configured: Iterable[Configured], resources: list[Res], pack: str,
                secrets: Iterable[str] = ()) -> list[Any]:
    """Every running stack policy on one view of the stack per distinct view settings
    (nodeLabelSources, gpuDeviceClasses), built when a policy first asks for it."""
    from nodepools.policies.stack_view import StackView

    views: dict[tuple[tuple[str, ...], tuple[str, ...]], StackView] = {}
    out = []
    for c in _running(configured, "stack"):
        key = (tuple(c.settings.node_label_sources), tuple(c.settings.gpu_device_classes))
        if key not in views:
            views[key] = StackView(resources, label_sources=key[0], gpu_device_classes=key[1])
        out += diagnostics(c, views[key].explained(_check(c, views[key])), pack, secrets)
    return out
