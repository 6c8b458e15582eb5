"""Which alert backend a cluster uses, whether it exists on the cluster's cloud, and
where the alerts are evaluated (the sentence ``nodepools plan`` prints).

Default (``AlertsSpec.backend`` unset): the cloud's managed backend. It is the one
choice that cannot silently drop the alert: a PrometheusRule is loaded only by a
Prometheus whose rule selectors we cannot see (a null ``ruleSelector`` selects no
rule; kube-prometheus-stack selects by its ``release`` label) and fails to apply
where the prometheus-operator CRDs are absent, while GKE ships Managed Prometheus
with the cluster and CloudWatch alarms are AWS objects that need nothing in it.
"""
from __future__ import annotations

from nodepools.guardrails.alerts_spec import AlertBackend
from nodepools.guardrails.spec_fields import GuardrailsFields
from nodepools.spec.errors import Problems
from nodepools.vocabulary import Cloud

MANAGED_BACKEND: dict[Cloud, AlertBackend] = {
    Cloud.AWS: AlertBackend.CLOUDWATCH,
    Cloud.GCP: AlertBackend.GOOGLE_MANAGED_PROMETHEUS,
}
# Backends that exist on each cloud; prometheus-operator is wherever the user runs it.
BACKENDS_ON: dict[Cloud, tuple[AlertBackend, ...]] = {
    Cloud.AWS: (AlertBackend.CLOUDWATCH, AlertBackend.PROMETHEUS_OPERATOR),
    Cloud.GCP: (AlertBackend.GOOGLE_MANAGED_PROMETHEUS, AlertBackend.PROMETHEUS_OPERATOR),
}


def backend(spec: GuardrailsFields, cloud: Cloud) -> AlertBackend | None:
    """The backend the alerts go to; None when alerts are off."""
    if not spec.alerts.enabled:
        return None
    return spec.alerts.backend or MANAGED_BACKEND[cloud]


def alert_problems(spec: GuardrailsFields, cloud: Cloud, problems: Problems,
                   root: tuple[str | int, ...] = ("spec",)) -> None:
    """A backend that does not exist on the cluster's cloud, or options of another backend."""
    alerts = spec.alerts
    chosen = backend(spec, cloud)
    if chosen is None:
        return
    allowed = BACKENDS_ON[cloud]
    if chosen not in allowed:
        problems.add(root + ("alerts", "backend"), f"alert backend {chosen.value!r} does not exist on "
                     f"{cloud.value} (allowed on {cloud.value}: {', '.join(b.value for b in allowed)})", chosen.value)
    if alerts.alarm_actions and chosen is not AlertBackend.CLOUDWATCH:
        problems.add(root + ("alerts", "alarm_actions"), f"alarm_actions applies to backend cloudwatch only; "
                     f"this cluster's alerts go to {chosen.value}", alerts.alarm_actions)


def where(spec: GuardrailsFields, cloud: Cloud, namespace: str | None = None) -> str:
    """Where the alerts will be evaluated, and what that needs, in one sentence."""
    chosen = backend(spec, cloud)
    if chosen is None:
        return "off (alerts.enabled is false): nothing watches CPU throttling or steal"
    default = " (the cloud's managed backend: alerts.backend unset)" if spec.alerts.backend is None else ""
    if chosen is AlertBackend.PROMETHEUS_OPERATOR:
        labels = ", ".join(f"{k}={v}" for k, v in sorted(spec.alerts.rule_labels.items()))
        return (f"prometheus-operator: PrometheusRule in namespace {namespace}, labels {labels}; evaluated by the "
                "Prometheus whose ruleSelector matches these labels and whose ruleNamespaceSelector covers the "
                "namespace (needs the prometheus-operator CRDs, cAdvisor and node-exporter metrics)")
    if chosen is AlertBackend.GOOGLE_MANAGED_PROMETHEUS:
        return (f"Google Managed Prometheus{default}: ClusterRules evaluated by GKE's managed rule evaluator "
                "(needs managed collection, on by default on GKE 1.27+, kubelet/cAdvisor scraping "
                "in OperatorConfig collection.kubeletScraping, and a node-exporter for the steal alert)")
    actions = f"notifying {len(spec.alerts.alarm_actions)} action(s)" if spec.alerts.alarm_actions else \
        "with no alarm actions (set alerts.alarm_actions to be notified)"
    return (f"CloudWatch{default}: two PromQL alarms {actions}, evaluated by CloudWatch over the metrics of the "
            "Amazon CloudWatch Observability add-on with OTel Container Insights (cAdvisor and node-exporter "
            "names; add-on v6.0.1-eksbuild.1+)")
