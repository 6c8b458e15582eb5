"""Register the CloudWatch PromQL alarms of the ``cloudwatch`` alert backend.

The alarm arguments are built by ``nodepools.guardrails.alerts.cloudwatch_alarms``
(pure); here ``$CLUSTER`` in the alarm name and query becomes the cluster's name,
which may be an output (a cluster created in the same program).
"""
from __future__ import annotations

from typing import Any

import pulumi
import pulumi_aws as aws

from nodepools.vocabulary import ALARM_CLUSTER_PLACEHOLDER as CLUSTER_PLACEHOLDER


def register_alarms(alarms: list[dict[str, Any]], *, cluster_name: pulumi.Input[str], tags: dict[str, str],
                    parent: pulumi.Resource, provider: pulumi.ProviderResource | None = None
                    ) -> list[aws.cloudwatch.MetricAlarm]:
    name = pulumi.Output.from_input(cluster_name)

    def sub(text: str) -> pulumi.Output[str]:
        return name.apply(lambda n: text.replace(CLUSTER_PLACEHOLDER, n))

    out = []
    for alarm in alarms:
        criteria = alarm["evaluation_criteria"]["promql_criteria"]
        out.append(aws.cloudwatch.MetricAlarm(
            f"{parent.pulumi_resource_name}-{alarm['key']}", name=sub(alarm["name"]),
            alarm_description=alarm["alarm_description"], evaluation_interval=alarm["evaluation_interval"],
            evaluation_criteria=aws.cloudwatch.MetricAlarmEvaluationCriteriaArgs(
                promql_criteria=aws.cloudwatch.MetricAlarmEvaluationCriteriaPromqlCriteriaArgs(
                    query=sub(criteria["query"]), pending_period=criteria["pending_period"])),
            alarm_actions=alarm["alarm_actions"] or None, tags={**tags, **alarm["tags"]},
            opts=pulumi.ResourceOptions(parent=parent, provider=provider)))
    return out
