"""The CPU contention alerts (docs/design.md throttling-monitoring), for each alert backend.

Two signals a shared cluster needs: a container throttled by its CFS quota
(``container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total``,
cAdvisor) and a node losing CPU to its hypervisor (``node_cpu_seconds_total``
with ``mode="steal"``, node-exporter), each as a ratio over 5 minutes. The same
PromQL goes to every backend (``alert_delivery`` picks one):

- prometheus-operator: a PrometheusRule in the namespace, with the labels, the
  user's Prometheus selects;
- Google Managed Prometheus: a ClusterRules, not a Rules: a namespaced Rules only
  sees metrics of its own namespace (GoogleCloudPlatform/prometheus-engine:
  charts/operator/crds/monitoring.googleapis.com_rules.yaml@v0.17.2), and both
  signals span every namespace and node;
- CloudWatch: one PromQL alarm per signal, scoped to this cluster by the OTLP
  resource attribute ``k8s.cluster.name`` (CloudWatch's PromQL spells resource
  attributes ``@resource.<name>``, datapoint labels bare: "PromQL querying", Amazon
  CloudWatch User Guide). ``$CLUSTER`` in a query is replaced by the cluster's name
  at registration (it may be an output).
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails import alert_delivery, derive
from nodepools.guardrails.alerts_spec import AlertBackend, AlertsSpec
from nodepools.guardrails.spec import GuardrailsSpec
from nodepools.vocabulary import ALARM_CLUSTER_PLACEHOLDER, TAG_ALERT, Cloud

API_VERSION = "monitoring.coreos.com/v1"
GMP_API_VERSION = "monitoring.googleapis.com/v1"
RULE_NAME = "nodepools-cpu-contention"
THROTTLING_ALERT = "NodepoolsContainerCpuThrottled"
STEAL_ALERT = "NodepoolsNodeCpuSteal"
CLUSTER_PLACEHOLDER = ALARM_CLUSTER_PLACEHOLDER
CLOUDWATCH_SCOPE = f'"@resource.k8s.cluster.name"="{CLUSTER_PLACEHOLDER}"'
# CloudWatch evaluates PromQL alarms every 10, 20, 30 or a multiple of 60 seconds.
CLOUDWATCH_EVALUATION_SECONDS = 60


def throttling_expr(ratio: float, scope: str = "") -> str:
    sel = "{" + ", ".join(m for m in ('container!=""', scope) if m) + "}"
    return (f"sum by (namespace, pod, container) (rate(container_cpu_cfs_throttled_periods_total{sel}[5m]))"
            f"\n  / sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total{sel}[5m]))"
            f"\n  > {ratio}")


def steal_expr(ratio: float, scope: str = "") -> str:
    steal = "{" + ", ".join(m for m in ('mode="steal"', scope) if m) + "}"
    every = "{" + scope + "}" if scope else ""
    return (f"sum by (instance) (rate(node_cpu_seconds_total{steal}[5m]))"
            f"\n  / sum by (instance) (rate(node_cpu_seconds_total{every}[5m]))"
            f"\n  > {ratio}")


def _rules(alerts: AlertsSpec) -> list[dict[str, Any]]:
    wait = f"{alerts.for_minutes}m"
    return [
        {"alert": THROTTLING_ALERT, "expr": throttling_expr(alerts.cpu_throttling_ratio), "for": wait,
         "labels": {"severity": "warning"},
         "annotations": {"summary": "Container {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }} "
                         "is CPU throttled",
                         "description": f"More than {alerts.cpu_throttling_ratio:.0%} of its CFS periods were "
                         f"throttled for {wait}: raise its cpu limit or move it off a contended pool."}},
        {"alert": STEAL_ALERT, "expr": steal_expr(alerts.cpu_steal_ratio), "for": wait,
         "labels": {"severity": "warning"},
         "annotations": {"summary": "Node {{ $labels.instance }} loses CPU to steal",
                         "description": f"More than {alerts.cpu_steal_ratio:.0%} of its CPU time was stolen by "
                         f"the hypervisor for {wait}: a noisy neighbour or an undersized burstable type."}},
    ]


def prometheus_rule(spec: GuardrailsSpec, cloud: Cloud) -> dict[str, Any] | None:
    """The in-cluster rule object (PrometheusRule or GMP ClusterRules); None when the
    alerts are off or go to CloudWatch."""
    chosen = alert_delivery.backend(spec, cloud)
    groups = [{"name": "nodepools.cpu-contention", "rules": _rules(spec.alerts)}]
    if chosen is AlertBackend.PROMETHEUS_OPERATOR:
        metadata = {"name": RULE_NAME, "namespace": derive.alerts_namespace(spec),
                    "labels": dict(spec.alerts.rule_labels)}
        return {"apiVersion": API_VERSION, "kind": "PrometheusRule", "metadata": metadata, "spec": {"groups": groups}}
    if chosen is AlertBackend.GOOGLE_MANAGED_PROMETHEUS:
        return {"apiVersion": GMP_API_VERSION, "kind": "ClusterRules", "metadata": {"name": RULE_NAME},
                "spec": {"groups": groups}}
    return None


def cloudwatch_alarms(spec: GuardrailsSpec, cloud: Cloud) -> list[dict[str, Any]]:
    """``aws.cloudwatch.MetricAlarm`` arguments (snake_case), one per signal, with
    ``$CLUSTER`` in ``name`` and the query; empty unless the backend is CloudWatch."""
    if alert_delivery.backend(spec, cloud) is not AlertBackend.CLOUDWATCH:
        return []
    alerts = spec.alerts
    out = []
    for key, signal, alert, query, rule in (
            ("cpu-throttled", "cpu-throttling", THROTTLING_ALERT,
             throttling_expr(alerts.cpu_throttling_ratio, CLOUDWATCH_SCOPE), _rules(alerts)[0]),
            ("cpu-steal", "cpu-steal", STEAL_ALERT, steal_expr(alerts.cpu_steal_ratio, CLOUDWATCH_SCOPE),
             _rules(alerts)[1])):
        out.append({
            "key": key,
            "tags": {TAG_ALERT: signal},
            "name": f"{CLUSTER_PLACEHOLDER}-{alert}",
            "alarm_description": rule["annotations"]["description"],
            "evaluation_interval": CLOUDWATCH_EVALUATION_SECONDS,
            "evaluation_criteria": {"promql_criteria": {"query": query, "pending_period": alerts.for_minutes * 60}},
            "alarm_actions": list(alerts.alarm_actions),
        })
    return out
