"""The reference server of the parity tests: nodepools' rules under pulumi_policy's own
Analyzer servicer, the wire behaviour the engine is used to (pulumi/pulumi-policy:
sdk/python/lib/pulumi_policy/policy.py). Each policy is adapted the plain way: it
parses its own config, reads the resources pulumi_policy hands it and judges its own
view of the stack; a verdict preview cannot reach is raised as ``UnknownValueError``
after the violations, so pulumi_policy reports one advisory "can't run policy ...
during preview" notice for it. Slow by construction (a view per stack policy), never
shipped: tests/pack/pack_under_test.py starts it for parity runs.
"""
from pulumi_policy import (EnforcementLevel, PolicyConfigSchema, PolicyPack, ResourceValidationPolicy, Severity,
                           StackValidationPolicy)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from datetime import datetime, timezone

from nodepools.inventory.resource import Resource
from nodepools.pack.catalogue import DESCRIPTION, PACK_NAME
from nodepools.policies.registry import POLICIES
from nodepools.policies.settings import dated, parse_settings, schema_properties
from nodepools.policies.stack_view import StackView
from nodepools.policies.waivers import apply


def settings_of(spec, args):
    """The policy's config, on its ``today`` else the run's UTC date (as the pack's servicer does)."""
    return dated(parse_settings(spec.name, spec.config, args.get_config()), datetime.now(timezone.utc).date())


class CannotJudge(UnknownValueError):
    def __init__(self, findings):
        super().__init__(UNKNOWN_STRING_VALUE, [])
        self.message = f"cannot judge {len(findings)} item(s): " + "; ".join(f.message for f in findings)


def report(findings, settings, report_violation):
    verdict = apply(findings, settings)
    seen = set()
    for finding in verdict.violations:
        if (finding.urn, finding.message) not in seen:
            seen.add((finding.urn, finding.message))
            report_violation(finding.message, finding.urn or None)
    if verdict.cannot_judge:
        raise CannotJudge(list({f.message: f for f in verdict.cannot_judge}.values()))


def resource_policy(spec):
    def validate(args, report_violation):
        settings = settings_of(spec, args)
        provider = args.provider.urn if args.provider is not None else ""
        res = Resource.of(args.resource_type, args.name, args.props, urn=args.urn, parent=args.opts.parent or "",
                          provider=provider)
        report(spec.check(res, settings), settings, report_violation)
    return validate


def stack_policy(spec):
    def validate(args, report_violation):
        settings = settings_of(spec, args)
        resources = [Resource.of(r.resource_type, r.name, r.props, urn=r.urn, parent=r.parent.urn if r.parent else "",
                                 dependencies=[d.urn for d in r.dependencies],
                                 property_dependencies={k: [d.urn for d in deps]
                                                        for k, deps in r.property_dependencies.items()},
                                 provider=r.provider.urn if r.provider is not None else "")
                     for r in args.resources]
        view = StackView(resources, today=settings.today, label_sources=settings.node_label_sources,
                         gpu_device_classes=settings.gpu_device_classes)
        report(spec.check(view, settings), settings, report_violation)
    return validate


def policy(spec):
    common = dict(description=spec.description, enforcement_level=EnforcementLevel(spec.level.value),
                  severity=Severity(spec.severity.value),
                  config_schema=PolicyConfigSchema(schema_properties(spec.name, spec.config)),
                  tags=[spec.topic] if spec.topic else None)
    if spec.scope == "resource":
        return ResourceValidationPolicy(spec.name, validate=resource_policy(spec), **common)
    return StackValidationPolicy(spec.name, validate=stack_policy(spec), **common)


PolicyPack(name=PACK_NAME, policies=[policy(spec) for spec in POLICIES], enforcement_level=EnforcementLevel.ADVISORY,
           description=DESCRIPTION)
