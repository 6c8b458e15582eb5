"""Where and when the CPU contention alerts fire: ``AlertsSpec`` (part of ``GuardrailsSpec``).

Cloud-neutral: which backends exist on which cloud, and what the default is on
each, are in ``nodepools.guardrails.alert_delivery``.
"""
from __future__ import annotations

import re
from enum import Enum

from pydantic import Field, model_validator

from nodepools.spec.errors import Problems
from nodepools.spec.model import RealNumber, StrictModel, WholeNumber
from nodepools.spec.syntax import dns_label_error, label_key_error, label_value_error


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


_ARN = re.compile(r"^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:\d{12}:.+\Z")


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

    @model_validator(mode="after")
    def _check(self) -> "AlertsSpec":
        problems = Problems()
        if self.namespace is not None and (err := dns_label_error(self.namespace)):
            problems.add("namespace", f"namespace {err}", self.namespace)
        for key, value in self.rule_labels.items():
            if err := label_key_error(key) or label_value_error(value):
                problems.add(("rule_labels", key), err, value)
        for i, arn in enumerate(self.alarm_actions):
            if not _ARN.match(arn):
                problems.add(("alarm_actions", i), f"alarm action {arn!r} must be an ARN "
                             "(arn:aws:sns:REGION:ACCOUNT:TOPIC)", arn)
        self._backend_problems(problems)
        problems.raise_if_any("AlertsSpec")
        return self

    def _backend_problems(self, problems: Problems) -> None:
        if not self.enabled:
            return
        operator = AlertBackend.PROMETHEUS_OPERATOR
        chosen = self.backend.value if self.backend else "the cloud's managed backend (backend unset)"
        if self.backend is operator:
            if not self.rule_labels:
                problems.add("rule_labels", "backend prometheus-operator needs rule_labels: the labels your "
                             "Prometheus's ruleSelector matches (a null ruleSelector selects no rule; "
                             "kube-prometheus-stack selects release: <its Helm release name>)", None)
            if self.namespace is None:
                problems.add("namespace", "backend prometheus-operator needs namespace: one your Prometheus's "
                             "ruleNamespaceSelector selects (a null selector means only the Prometheus's own "
                             "namespace)", None)
        else:
            for name in ("namespace", "rule_labels"):
                if getattr(self, name):
                    problems.add(name, f"{name} applies to backend prometheus-operator only, not {chosen} "
                                 f"(allowed backends: {', '.join(b.value for b in AlertBackend)})", getattr(self, name))
        if self.alarm_actions and self.backend is not None and self.backend is not AlertBackend.CLOUDWATCH:
            problems.add("alarm_actions", f"alarm_actions applies to backend cloudwatch only, not {chosen}",
                         self.alarm_actions)
