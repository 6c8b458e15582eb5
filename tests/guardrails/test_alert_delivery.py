"""Where the throttling alerts go: the backend per cloud, its validation, and each backend's objects."""
from __future__ import annotations

import pulumi_kubernetes as k8s
import pytest
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform
from nodepools.guardrails import GuardrailsSpec, alert_delivery
from nodepools.guardrails.alerts import GMP_API_VERSION, RULE_NAME
from nodepools.offline.engine import run_program, run_program_capture
from nodepools.spec import describe
from nodepools.spec.errors import Problems
from nodepools import vocabulary as v
from nodepools.vocabulary import Cloud

OPERATOR = {"backend": "prometheus-operator", "namespace": "monitoring", "rule_labels": {"release": "kps"}}
TOPIC = "arn:aws:sns:us-west-2:123456789012:oncall"


def rejected_alerts(alerts: dict) -> list[str]:
    with pytest.raises(ValidationError) as err:
        GuardrailsSpec(alerts=alerts)
    return describe(err.value)


@pytest.mark.parametrize("alerts, expected", [
    ({"backend": "prometheus-operator"}, [
        "alerts.rule_labels: backend prometheus-operator needs rule_labels: the labels your Prometheus's ruleSelector "
        "matches (a null ruleSelector selects no rule; kube-prometheus-stack selects release: <its Helm release name>)",
        "alerts.namespace: backend prometheus-operator needs namespace: one your Prometheus's ruleNamespaceSelector "
        "selects (a null selector means only the Prometheus's own namespace)"]),
    ({"rule_labels": {"release": "kps"}}, [
        "alerts.rule_labels: rule_labels applies to backend prometheus-operator only, not the cloud's managed backend "
        "(backend unset) (allowed backends: prometheus-operator, google-managed-prometheus, cloudwatch)"]),
    ({"backend": "google-managed-prometheus", "alarm_actions": [TOPIC]}, [
        "alerts.alarm_actions: alarm_actions applies to backend cloudwatch only, not google-managed-prometheus"]),
    ({"backend": "cloudwatch", "alarm_actions": ["oncall"]}, [
        "alerts.alarm_actions[0]: alarm action 'oncall' must be an ARN (arn:aws:sns:REGION:ACCOUNT:TOPIC)"]),
    ({"backend": "grafana"}, None),
])
def test_bad_alert_delivery_names_the_field_and_what_is_allowed(alerts, expected):
    problems = rejected_alerts(alerts)
    if expected is None:  # pydantic's enum error lists the allowed values
        assert problems == ["alerts.backend: Input should be 'prometheus-operator', 'google-managed-prometheus' or "
                            "'cloudwatch'"]
    else:
        assert problems == expected


def test_alerts_off_need_no_backend_options():
    assert GuardrailsSpec(alerts={"enabled": False, "backend": "prometheus-operator"}).alerts.enabled is False


@pytest.mark.parametrize("cloud, backend, allowed", [
    (Cloud.AWS, "google-managed-prometheus", "cloudwatch, prometheus-operator"),
    (Cloud.GCP, "cloudwatch", "google-managed-prometheus, prometheus-operator"),
])
def test_a_backend_of_another_cloud_is_refused(cloud, backend, allowed):
    problems = Problems()
    alert_delivery.alert_problems(GuardrailsSpec(alerts={"backend": backend}), cloud, problems)
    with pytest.raises(ValidationError) as err:
        problems.raise_if_any("Guardrails")
    assert describe(err.value) == [f"spec.alerts.backend: alert backend {backend!r} does not exist on "
                                   f"{cloud.value} (allowed on {cloud.value}: {allowed})"]


def test_alarm_actions_with_the_default_backend_on_gke_are_refused():
    problems = Problems()
    alert_delivery.alert_problems(GuardrailsSpec(alerts={"alarm_actions": [TOPIC]}), Cloud.GCP, problems)
    with pytest.raises(ValidationError) as err:
        problems.raise_if_any("Guardrails")
    assert describe(err.value) == ["spec.alerts.alarm_actions: alarm_actions applies to backend cloudwatch only; "
                                   "this cluster's alerts go to google-managed-prometheus"]


def test_the_default_is_the_clouds_managed_backend():
    spec = GuardrailsSpec()
    assert alert_delivery.backend(spec, Cloud.AWS).value == "cloudwatch"
    assert alert_delivery.backend(spec, Cloud.GCP).value == "google-managed-prometheus"
    assert alert_delivery.backend(GuardrailsSpec(alerts={"enabled": False}), Cloud.AWS) is None


def test_the_plan_says_where_each_backend_evaluates_the_alerts():
    assert alert_delivery.where(GuardrailsSpec(alerts=OPERATOR), Cloud.AWS, "monitoring").startswith(
        "prometheus-operator: PrometheusRule in namespace monitoring, labels release=kps; evaluated by the "
        "Prometheus whose ruleSelector matches these labels")
    assert alert_delivery.where(GuardrailsSpec(), Cloud.GCP).startswith(
        "Google Managed Prometheus (the cloud's managed backend: alerts.backend unset): ClusterRules evaluated by "
        "GKE's managed rule evaluator")
    assert alert_delivery.where(GuardrailsSpec(alerts={"backend": "cloudwatch", "alarm_actions": [TOPIC]}),
                                Cloud.AWS).startswith("CloudWatch: two PromQL alarms notifying 1 action(s)")
    assert alert_delivery.where(GuardrailsSpec(alerts={"enabled": False}), Cloud.GCP).startswith("off")


def test_gke_gets_a_cluster_scoped_gmp_rule_valid_against_its_crd(gcp_pools, guardrails_run, objects, to_object,
                                                                  validate_crd):
    run = guardrails_run(gcp_pools, cloud=Cloud.GCP)
    assert run.of_type(v.TYPE_PROMETHEUS_RULE) == []
    (rule,) = objects(run, v.TYPE_GMP_CLUSTER_RULES, to_object).values()
    validate_crd(rule)
    # ClusterRules, not Rules: a namespaced Rules only sees its own namespace's metrics.
    assert (rule["apiVersion"], rule["kind"], rule["metadata"]) == (GMP_API_VERSION, "ClusterRules",
                                                                    {"name": RULE_NAME})
    throttled, steal = rule["spec"]["groups"][0]["rules"]
    assert throttled["expr"] == (
        'sum by (namespace, pod, container) (rate(container_cpu_cfs_throttled_periods_total{container!=""}[5m]))\n'
        '  / sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total{container!=""}[5m]))\n'
        '  > 0.25')
    assert (steal["alert"], steal["for"]) == ("NodepoolsNodeCpuSteal", "15m")


def test_a_gmp_rule_missing_its_groups_fails_the_vendored_schema(validate_crd):
    with pytest.raises(Exception, match="groups"):
        validate_crd({"apiVersion": GMP_API_VERSION, "kind": "ClusterRules", "metadata": {"name": "x"},
                      "spec": {"grups": []}})


def _eks() -> EksCluster:
    return EksCluster("prod", ["subnet-0000000a"], node_security_group_ids=["sg-0123456789abcdef0"], tags={"team": "ml"},
                      oidc_provider_arn="arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/X",
                      oidc_issuer_url="https://oidc.eks.us-west-2.amazonaws.com/id/X")


def _platform(cluster, args):
    def program():
        Platform("p", cluster, args, k8s.Provider("k8s", kubeconfig="fake"))
    return program


def test_eks_registers_two_cloudwatch_promql_alarms_scoped_to_the_cluster(aws_pools):
    args = {"pools": aws_pools, "region": "us-west-2",
            "guardrails": {"alerts": {"alarm_actions": [TOPIC], "for_minutes": 10}}}
    run = run_program(_platform(_eks(), args))
    assert run.of_type(v.TYPE_PROMETHEUS_RULE) == [] and run.of_type(v.TYPE_GMP_CLUSTER_RULES) == []
    alarms = {r.name: r.inputs for r in run.of_type(v.TYPE_CLOUDWATCH_METRIC_ALARM)}
    assert sorted(alarms) == ["p-guardrails-cpu-steal", "p-guardrails-cpu-throttled"]
    steal = alarms["p-guardrails-cpu-steal"]
    assert steal == {
        "name": "prod-NodepoolsNodeCpuSteal",
        "alarmDescription": "More than 10% of its CPU time was stolen by the hypervisor for 10m: a noisy neighbour "
                            "or an undersized burstable type.",
        "evaluationInterval": 60,
        "evaluationCriteria": {"promqlCriteria": {"pendingPeriod": 600, "query": (
            'sum by (instance) (rate(node_cpu_seconds_total{mode="steal", "@resource.k8s.cluster.name"="prod"}[5m]))\n'
            '  / sum by (instance) (rate(node_cpu_seconds_total{"@resource.k8s.cluster.name"="prod"}[5m]))\n'
            '  > 0.1')}},
        "alarmActions": [TOPIC],
        "tags": {"team": "ml", "nodepools.io/alert": "cpu-steal"},
    }
    assert 'container_cpu_cfs_throttled_periods_total{container!="", "@resource.k8s.cluster.name"="prod"}' in (
        alarms["p-guardrails-cpu-throttled"]["evaluationCriteria"]["promqlCriteria"]["query"])


def test_gke_refuses_cloudwatch_before_anything_registers(gcp_pools):
    cluster = GkeCluster("main", location="us-central1", project="my-project")
    run, error = run_program_capture(_platform(cluster, {"pools": gcp_pools,
                                                         "guardrails": {"alerts": {"backend": "cloudwatch"}}}))
    assert isinstance(error, ValidationError)
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]
    assert describe(error) == ["guardrails.alerts.backend: alert backend 'cloudwatch' does not exist on gcp "
                               "(allowed on gcp: google-managed-prometheus, prometheus-operator)"]
