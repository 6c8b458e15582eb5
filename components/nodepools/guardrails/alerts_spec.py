"""Where and when the CPU contention alerts fire: ``AlertsSpec`` (part of ``GuardrailsSpec``).

Cloud-neutral: which backends exist on which cloud, and what the default is on
each, are in ``nodepools.guardrails.alert_delivery``; the rules (the options each backend
takes, the ARNs and labels) are in ``nodepools.guardrails.checks``, run by ``GuardrailsSpec``.
"""
from __future__ import annotations

from enum import Enum

from pydantic import Field

from nodepools.spec.model import RealNumber, StrictModel, WholeNumber


class AlertBackend(str, Enum):
    """Where the CPU throttling / steal alerts are evaluated (``nodepools plan`` says which).

    - ``prometheus-operator``: a ``monitoring.coreos.com/v1`` PrometheusRule, loaded only
      by a Prometheus whose ``ruleSelector`` matches ``rule_labels`` and whose
      ``ruleNamespaceSelector`` covers ``namespace`` (both required: a null
      ruleSelector selects no rule, a null namespace selector only its own namespace).
    - ``google-managed-prometheus`` (GKE): a ``monitoring.googleapis.com/v1``
      ClusterRules evaluated by GKE's managed rule evaluator.
    - ``cloudwatch`` (EKS): CloudWatch PromQL alarms over the metrics the CloudWatch
      Observability add-on ingests (OTel Container Insights).
    """

    PROMETHEUS_OPERATOR = "prometheus-operator"
    GOOGLE_MANAGED_PROMETHEUS = "google-managed-prometheus"
    CLOUDWATCH = "cloudwatch"



class AlertsSpec(StrictModel):
    """The CPU throttling / CPU steal alerts. Defaults: enabled; ``backend`` None
    takes the cloud's managed backend (GKE ``google-managed-prometheus``, EKS
    ``cloudwatch``): it needs no CRD the cluster may lack and no Prometheus whose
    rule selection we cannot see, so the alert is never silently dropped. Fire when
    a container is throttled in > 25% of its CFS periods or a node's steal is > 10%
    of its CPU time, for 15 minutes.

    - ``namespace``, ``rule_labels``: ``prometheus-operator`` only, and required
      there: the namespace and labels your Prometheus's ``ruleNamespaceSelector``
      and ``ruleSelector`` select (kube-prometheus-stack: ``release: <its release>``).
    - ``alarm_actions``: ``cloudwatch`` only: ARNs (e.g. SNS topics) notified when
      an alarm fires; default none (the alarm's state is still in CloudWatch).
    """

    enabled: bool = True
    backend: AlertBackend | None = None
    namespace: str | None = None
    rule_labels: dict[str, str] = Field(default_factory=dict)
    alarm_actions: list[str] = Field(default_factory=list, max_length=5)
    cpu_throttling_ratio: RealNumber = Field(0.25, gt=0, lt=1)
    cpu_steal_ratio: RealNumber = Field(0.10, gt=0, lt=1)
    for_minutes: WholeNumber = Field(15, ge=1, le=1440)
