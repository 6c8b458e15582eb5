"""A pack's policies over one request: levels and settings as configured, one stack view
per request, and each diagnostic worded exactly as pulumi_policy words it.

The wire behaviour the engine knows is pulumi_policy's servicer (pulumi/pulumi-policy:
sdk/python/lib/pulumi_policy/policy.py, ``_PolicyAnalyzerServicer``): a violation's
message is the policy's description, a newline and the finding; a remediate level is
reported as mandatory; a disabled policy does not run; the verdicts preview cannot reach
are one advisory "can't run policy ... during preview" diagnostic per policy, after its
violations, with no URN and no severity. A policy whose config does not parse fails the
request that would run it, naming every bad field. Each policy judges as of its config's ``today``,
else the date the servicer hands in (the run's UTC date). A rule that raises (a bug: the readers take
any value shape) costs only its own verdict: an advisory "could not judge" note naming the
resource and the policy, never the exception's text (which may quote a property, a secret's
included); the pack's stderr names the exception's type.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import date
from typing import Any, Iterable, Mapping, Sequence

from pulumi.runtime.proto import analyzer_pb2 as pb

from nodepools.policies.base import EnforcementLevel, Finding, PolicySpec, Severity, subject_of
from nodepools.inventory.resource import Resource
from nodepools.spec.secrets import redact

# pulumi_policy always answers 0.0.1; the CLI shows PulumiPolicy.yaml's version instead
# (and puts it in each diagnostic), but the preview notices spell this one.
PACK_VERSION = "0.0.1"
LEVELS = {EnforcementLevel.ADVISORY: pb.ADVISORY, EnforcementLevel.MANDATORY: pb.MANDATORY,
          EnforcementLevel.REMEDIATE: pb.REMEDIATE, EnforcementLevel.DISABLED: pb.DISABLED}
LEVEL_OF_WIRE = {wire: level for level, wire in LEVELS.items()}
SEVERITIES = {Severity.LOW: pb.POLICY_SEVERITY_LOW, Severity.MEDIUM: pb.POLICY_SEVERITY_MEDIUM,
              Severity.HIGH: pb.POLICY_SEVERITY_HIGH, Severity.CRITICAL: pb.POLICY_SEVERITY_CRITICAL}


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


def configure(specs: Sequence[PolicySpec], config: Mapping[str, tuple[EnforcementLevel, Mapping[str, Any]]],
              secrets: Iterable[str] = ()) -> tuple[Configured, ...]:
    """Each policy at the level and with the properties ``config`` gives it (its own
    defaults when it is not mentioned, as ``Configure`` replaces the whole config). A
    config that does not parse says why without quoting a value of ``secrets`` (the
    properties the engine sent marked secret)."""
    from pydantic import ValidationError

    from nodepools.policies.settings import parse_settings
    from nodepools.spec.errors import describe

    out = []
    for spec in specs:
        level, properties = config.get(spec.name, (spec.level, {}))
        try:
            out.append(Configured(spec, level, parse_settings(spec.name, spec.config, properties)))
        except ValidationError as error:
            out.append(Configured(spec, level, None, redact(f"{error.title}: " + "; ".join(describe(error)), secrets)))
    return tuple(out)


def _running(configured: Iterable[Configured], scope: str) -> list[Configured]:
    running = [c for c in configured if c.runs and c.spec.scope == scope]
    for c in running:
        if c.problem:
            raise RequestError(c.problem)
    return running


def _judged(c: Configured, settings: Any, subject: Any, pack: str, secrets: Iterable[str]) -> list[Any]:
    """One policy's diagnostics on ``subject`` (a ``Resource`` or the stack view) under ``settings``
    (``c.settings`` dated); a rule that raises gets the advisory internal-error note instead."""
    try:
        findings = list(c.spec.check(subject, settings))
        if not isinstance(subject, Resource):  # the stack view: its cannot-judge notes join the findings
            findings = subject.explained(findings)
        return diagnostics(c, settings, findings, pack, secrets)
    except Exception as error:  # noqa: BLE001 - a rule's bug costs its verdict, never the request
        return [internal_error(c, subject, pack, error)]


def internal_error(c: Configured, subject: Any, pack: str, error: BaseException) -> Any:
    """The note for a rule that raised on ``subject``; the pack's stderr gets the exception's
    type only (its text may quote a value)."""
    res = subject if isinstance(subject, Resource) else None
    where = subject_of(res.type, res.name) if res else "the stack"
    sys.stderr.write(f"nodepools pack: policy {c.spec.name!r} raised {type(error).__name__} judging {where} "
                     "(a bug in nodepools: please report it)\n")
    return pb.AnalyzeDiagnostic(
        policyName=c.spec.name, policyPackName=pack, policyPackVersion=PACK_VERSION,
        message=f"nodepools could not judge {where}: internal error in {c.spec.name}", urn=res.urn if res else "",
        description=c.spec.description, enforcementLevel=pb.ADVISORY)


def diagnostics(c: Configured, settings: Any, findings: Iterable[Finding], pack: str,
                secrets: Iterable[str] = ()) -> list[Any]:
    """The diagnostics of one policy's findings after exemptions and waivers (as of ``settings.today``)."""
    from nodepools.policies.waivers import apply

    verdict = apply(findings, settings)
    out, seen = [], set()
    for finding in verdict.violations:
        if (finding.urn, finding.message) in seen:
            continue
        seen.add((finding.urn, finding.message))
        out.append(pb.AnalyzeDiagnostic(
            policyName=c.spec.name, policyPackName=pack, policyPackVersion=PACK_VERSION,
            message=f"{c.spec.description}\n{redact(finding.message, secrets)}", urn=finding.urn,
            description=c.spec.description, enforcementLevel=c.reported_level, severity=SEVERITIES[c.spec.severity]))
    if verdict.cannot_judge:
        notes = list(dict.fromkeys(f.message for f in verdict.cannot_judge))
        text = redact(f"cannot judge {len(notes)} item(s): " + "; ".join(notes), secrets)
        out.append(pb.AnalyzeDiagnostic(
            policyName=c.spec.name, policyPackName=pack, policyPackVersion=PACK_VERSION,
            message=f"can't run policy '{c.spec.name}' from policy pack '{pack}@v{PACK_VERSION}' during preview: "
                    f"{text}", urn="", description=c.spec.description, enforcementLevel=pb.ADVISORY))
    return out


def judge_resource(configured: Iterable[Configured], res: Resource, pack: str, today: date,
                   secrets: Iterable[str] = ()) -> list[Any]:
    """Every running resource policy on one resource, in registry order; ``today`` is the date of a
    policy whose config names none (the run's UTC date, read by the servicer)."""
    from nodepools.policies.settings import dated

    out = []
    for c in _running(configured, "resource"):
        out += _judged(c, dated(c.settings, today), res, pack, secrets)
    return out


def judge_stack(configured: Iterable[Configured], resources: list[Resource], pack: str, today: date,
                secrets: Iterable[str] = ()) -> list[Any]:
    """Every running stack policy on one view of the stack per distinct view settings
    (today, nodeLabelSources, gpuDeviceClasses), built when a policy first asks for it;
    ``today`` as for ``judge_resource``."""
    from nodepools.policies.settings import dated
    from nodepools.policies.stack_view import StackView

    views: dict[tuple[Any, ...], StackView] = {}
    out = []
    for c in _running(configured, "stack"):
        settings = dated(c.settings, today)
        key = (settings.today, tuple(settings.node_label_sources), tuple(settings.gpu_device_classes))
        if key not in views:
            views[key] = StackView(resources, today=key[0], label_sources=key[1], gpu_device_classes=key[2])
        out += _judged(c, settings, views[key], pack, secrets)
    return out
