"""The PrometheusRule watching CPU contention (design.md throttling-monitoring).

Two signals a shared cluster needs: a container throttled by its CFS quota
(``container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total``,
cAdvisor) and a node losing CPU to its hypervisor (``node_cpu_seconds_total``
with ``mode="steal"``, node-exporter), each as a ratio over 5 minutes.
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails import derive
from nodepools.guardrails.spec import GuardrailsSpec

API_VERSION = "monitoring.coreos.com/v1"
RULE_NAME = "nodepools-cpu-contention"
THROTTLING_ALERT = "NodepoolsContainerCpuThrottled"
STEAL_ALERT = "NodepoolsNodeCpuSteal"

_THROTTLING = ('sum by (namespace, pod, container) (rate(container_cpu_cfs_throttled_periods_total{{container!=""}}[5m]))'
               '\n  / sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total{{container!=""}}[5m]))'
               '\n  > {ratio}')
_STEAL = ('sum by (instance) (rate(node_cpu_seconds_total{{mode="steal"}}[5m]))'
          '\n  / sum by (instance) (rate(node_cpu_seconds_total[5m]))'
          '\n  > {ratio}')


def prometheus_rule(spec: GuardrailsSpec) -> dict[str, Any] | None:
    alerts = spec.alerts
    if not alerts.enabled:
        return None
    metadata: dict[str, Any] = {"name": RULE_NAME, "namespace": derive.alerts_namespace(spec)}
    if alerts.rule_labels:
        metadata["labels"] = dict(alerts.rule_labels)
    wait = f"{alerts.for_minutes}m"
    return {"apiVersion": API_VERSION, "kind": "PrometheusRule", "metadata": metadata, "spec": {"groups": [{
        "name": "nodepools.cpu-contention",
        "rules": [
            {"alert": THROTTLING_ALERT, "expr": _THROTTLING.format(ratio=alerts.cpu_throttling_ratio), "for": wait,
             "labels": {"severity": "warning"},
             "annotations": {"summary": "Container {{ $labels.namespace }}/{{ $labels.pod }}/{{ $labels.container }} "
                             "is CPU throttled",
                             "description": f"More than {alerts.cpu_throttling_ratio:.0%} of its CFS periods were "
                             f"throttled for {wait}: raise its cpu limit or move it off a contended pool."}},
            {"alert": STEAL_ALERT, "expr": _STEAL.format(ratio=alerts.cpu_steal_ratio), "for": wait,
             "labels": {"severity": "warning"},
             "annotations": {"summary": "Node {{ $labels.instance }} loses CPU to steal",
                             "description": f"More than {alerts.cpu_steal_ratio:.0%} of its CPU time was stolen by "
                             f"the hypervisor for {wait}: a noisy neighbour or an undersized burstable type."}},
        ],
    }]}}
