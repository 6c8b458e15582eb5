"""Turn the registry's plain rules into pulumi_policy policies.

Each policy parses its own config (shared keys + its own; a bad key or value
fails the run with every problem named), runs its rule over plain data, drops
exempt and waived findings and reports the rest at its enforcement level.
Verdicts preview cannot reach are raised as ``UnknownValueError`` after the
violations are reported: pulumi_policy then adds one advisory "can't run policy
... during preview" diagnostic listing them, so an unknown never becomes a
mandatory violation and is never silently dropped either.

Importing this module never starts a server; only ``policy/__main__.py``
constructs the ``PolicyPack``.
"""
from __future__ import annotations

from typing import Iterable

from pulumi_policy import (EnforcementLevel, Policy, PolicyConfigSchema, ReportViolation, ResourceValidationArgs,
                           ResourceValidationPolicy, Severity, StackValidationArgs, StackValidationPolicy)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from nodepools.policies.base import Finding, PolicySpec, Res
from nodepools.policies.registry import POLICIES
from nodepools.inventory.dra import gpu_device_classes, set_gpu_device_classes
from nodepools.policies.settings import Settings, parse_settings, schema_properties
from nodepools.policies.stack_view import StackView
from nodepools.policies.waivers import apply

PACK_NAME = "nodepools"
CANNOT_JUDGE_PREFIX = "cannot judge"


class CannotJudge(UnknownValueError):
    """Some verdicts need values known only after the update."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(UNKNOWN_STRING_VALUE, [])
        self.message = f"{CANNOT_JUDGE_PREFIX} {len(findings)} item(s): " + "; ".join(f.message for f in findings)


def _report(findings: Iterable[Finding], settings: Settings, report_violation: ReportViolation) -> None:
    verdict = apply(findings, settings)
    seen: set[tuple[str, str]] = set()
    for finding in verdict.violations:
        if (finding.urn, finding.message) not in seen:
            seen.add((finding.urn, finding.message))
            report_violation(finding.message, finding.urn or None)
    if verdict.cannot_judge:
        raise CannotJudge(list({f.message: f for f in verdict.cannot_judge}.values()))


def _resource_validate(spec: PolicySpec):
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        settings = parse_settings(spec.name, spec.config, args.get_config())
        provider = args.provider.urn if args.provider is not None else ""
        res = Res.of(args.resource_type, args.urn, args.name, args.props, args.opts.parent or "", provider=provider)
        _report(spec.check(res, settings), settings, report_violation)
    return validate


def stack_resources(args: StackValidationArgs) -> list[Res]:
    """The stack's resources as plain ``Res`` (URNs for parent, dependencies and provider)."""
    return [Res.of(r.resource_type, r.urn, r.name, r.props, r.parent.urn if r.parent else "",
                   [d.urn for d in r.dependencies],
                   {k: [d.urn for d in deps] for k, deps in r.property_dependencies.items()},
                   r.provider.urn if r.provider is not None else "")
            for r in args.resources]


# The view of the stack the last stack policy judged. pulumi_policy hands every stack
# policy of one AnalyzeStack the same resources, each time freshly deserialised; when
# they are equal, the policies share one view and so one placement analysis instead of
# reading the stack once per policy (BENCHMARKS.md, "3 policy pack"). Views are never
# mutated by rules. Keyed by the settings a view reads (``_view_key``).
_last_views: dict[tuple[tuple[str, ...], tuple[str, ...]], StackView] = {}
# The AnalyzeResponse of the request those views were built for (held, so its id is not reused).
_last_request: list[object] = []


def request_of(report_violation: ReportViolation) -> object | None:
    """The ``AnalyzeResponse`` ``report_violation`` appends to: one per ``AnalyzeStack``
    request, shared by every stack policy of it (pulumi_policy: policy.py
    ``_create_report_violation``). None when the SDK's closure is not shaped so."""
    for cell in getattr(report_violation, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if type(value).__name__ == "AnalyzeResponse":
            return value
    return None


def _view_key(label_sources: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # The settings a view reads: nodeLabelSources (placement) and gpuDeviceClasses (DRA claims).
    return label_sources, tuple(gpu_device_classes())


def stack_view(resources: list[Res], label_sources: tuple[str, ...] = ()) -> StackView:
    """A ``StackView`` of ``resources``: the previous one when the resources (and the
    settings the view reads) are equal."""
    key = _view_key(label_sources)
    any_view = next(iter(_last_views.values()), None)
    if any_view is None or any_view.resources != resources:
        _last_views.clear()
    elif key in _last_views:
        return _last_views[key]
    view = _last_views[key] = StackView(resources, label_sources, gpu_device_classes())
    return view


def request_view(args: StackValidationArgs, request: object | None, label_sources: tuple[str, ...]) -> StackView:
    """The view for this request: reading the resources once per request, not per policy
    (converting every resource again only to compare it cost 20 passes over the stack)."""
    key = _view_key(label_sources)
    if request is not None and _last_request and _last_request[0] is request:
        if key in _last_views:
            return _last_views[key]
        resources = next(iter(_last_views.values())).resources
        view = _last_views[key] = StackView(resources, label_sources, gpu_device_classes())
        return view
    view = stack_view(stack_resources(args), label_sources)
    _last_request[:] = [request] if request is not None else []
    return view


def _stack_validate(spec: PolicySpec):
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        settings = parse_settings(spec.name, spec.config, args.get_config())
        set_gpu_device_classes(settings.gpu_device_classes)
        view = request_view(args, request_of(report_violation), settings.node_label_sources)
        _report(spec.check(view, settings), settings, report_violation)
    return validate


def to_policy(spec: PolicySpec) -> Policy:
    common = dict(description=spec.description, enforcement_level=EnforcementLevel(spec.level.value),
                  severity=Severity(spec.severity.value),
                  config_schema=PolicyConfigSchema(schema_properties(spec.name, spec.config)),
                  tags=[spec.topic] if spec.topic else None)
    if spec.scope == "resource":
        return ResourceValidationPolicy(spec.name, validate=_resource_validate(spec), **common)
    return StackValidationPolicy(spec.name, validate=_stack_validate(spec), **common)


def policies(specs: Iterable[PolicySpec] = POLICIES) -> list[Policy]:
    """pulumi_policy policies for ``specs`` (default: all 26), for ``PolicyPack(policies=...)``."""
    return [to_policy(spec) for spec in specs]
