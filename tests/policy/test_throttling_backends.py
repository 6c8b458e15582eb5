"""throttling-monitoring accepts every alert backend nodepools can deliver to."""
from __future__ import annotations

import pytest
from policy_builders import Resource, fired, golden

from nodepools.guardrails.alerts import CLOUDWATCH_SCOPE, steal_expr, throttling_expr
from nodepools.offline.analyzer import UNKNOWN_WIRE

THROTTLED = throttling_expr(0.25)
STEAL = steal_expr(0.1)


def gmp(kind: str, exprs: list[str]) -> Resource:
    rules = [{"alert": f"A{i}", "expr": e} for i, e in enumerate(exprs)]
    return Resource.of(f"kubernetes:monitoring.googleapis.com/v1:{kind}", "gmp-rules", {
        "metadata": {"name": "gmp-rules"}, "spec": {"groups": [{"name": "cpu", "rules": rules}]}})


def alarm(name: str, query: str) -> Resource:
    return Resource.of("aws:cloudwatch/metricAlarm:MetricAlarm", name, {
        "name": name, "evaluationInterval": 60.0,
        "evaluationCriteria": {"promqlCriteria": {"query": query, "pendingPeriod": 900.0}}})


@pytest.mark.parametrize("kind", ["Rules", "ClusterRules", "GlobalRules"])
def test_google_managed_prometheus_rules_satisfy_it(check, kind):
    fx = golden().drop("cpu-contention").add(gmp(kind, [THROTTLED, STEAL]))
    assert ("throttling-monitoring", "") not in fired(check(fx))


def test_cloudwatch_promql_alarms_satisfy_it(check):
    fx = golden().drop("cpu-contention").add(alarm("throttled", throttling_expr(0.25, CLOUDWATCH_SCOPE)),
                                             alarm("steal", steal_expr(0.1, CLOUDWATCH_SCOPE)))
    assert ("throttling-monitoring", "") not in fired(check(fx))


def test_a_cloudwatch_alarm_on_throttling_alone_still_misses_steal(check):
    fx = golden().drop("cpu-contention").add(alarm("throttled", THROTTLED))
    diags = check(fx)
    assert fired(diags) == {("throttling-monitoring", "")}
    assert "nothing alerts on node CPU steal" in diags[0].message


def test_an_unrelated_gmp_rule_kind_does_not_count(check):
    fx = golden().drop("cpu-contention").add(
        Resource.of("kubernetes:monitoring.googleapis.com/v1:PodMonitoring", "pm", {"spec": {"groups": [
            {"name": "cpu", "rules": [{"alert": "A", "expr": THROTTLED}, {"alert": "B", "expr": STEAL}]}]}}))
    assert fired(check(fx)) == {("throttling-monitoring", "")}



def unknown_query_alarm(name: str, signal: str | None) -> Resource:
    tags = {"nodepools.io/alert": signal} if signal else {}
    return Resource.of("aws:cloudwatch/metricAlarm:MetricAlarm", name, {
        "evaluationInterval": 60.0, "tags": tags,
        "evaluationCriteria": {"promqlCriteria": {"query": UNKNOWN_WIRE, "pendingPeriod": 900.0}}})


def test_nodepools_alarms_whose_query_waits_on_the_cluster_name_are_read_by_their_tag(check):
    fx = golden().drop("cpu-contention").add(unknown_query_alarm("t", "cpu-throttling"),
                                             unknown_query_alarm("s", "cpu-steal"))
    assert ("throttling-monitoring", "") not in fired(check(fx))


def test_an_unknown_query_without_the_tag_cannot_be_judged(check):
    fx = golden().drop("cpu-contention").add(unknown_query_alarm("t", None))
    diags = [d for d in check(fx) if d.policy == "throttling-monitoring"]
    assert len(diags) == 1 and "cannot judge alerts" in diags[0].message
