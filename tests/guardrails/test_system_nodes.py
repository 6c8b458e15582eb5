"""A platform over an attached cluster's own system nodes: no resident pool, every guardrail,
add-ons on those nodes (docs/design.md section 9)."""
import pytest
from pydantic import ValidationError

import pulumi_kubernetes as k8s

from nodepools.components.platform import Platform, PlatformArgs
from nodepools.config.layout import Layout, layout_verdict
from nodepools.offline.engine import run_program, run_program_capture
from nodepools.spec import describe
from nodepools.spec.system_nodes import SystemNodes
from nodepools import vocabulary as v

SYSTEM = {"node_selector": {"eks.amazonaws.com/nodegroup": "system"},
          "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}
ON_SYSTEM = {"nodeSelector": {"eks.amazonaws.com/nodegroup": "system"},
             "tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"}]}


def gpu_only(aws_pools):
    return [p for p in aws_pools if p.has_gpu]


def run_platform(cluster, args):
    return run_program(lambda: Platform("p", cluster, args, k8s.Provider("k8s", kubeconfig="fake")))


def releases(run):
    return {r.inputs["name"]: r.inputs["values"] for r in run.of_type(v.TYPE_HELM_RELEASE)}


def test_a_gpu_only_platform_gets_every_guardrail_and_its_addons_run_on_the_system_nodes(aws_pools, fake_cluster):
    run = run_platform(fake_cluster(), {"pools": gpu_only(aws_pools), "system_nodes": SYSTEM})
    values = releases(run)
    assert sorted(values) == ["cluster-autoscaler", "kueue", "nvidia-device-plugin"]
    assert {k: values["cluster-autoscaler"][k] for k in ("nodeSelector", "tolerations")} == ON_SYSTEM
    assert values["kueue"]["controllerManager"] == ON_SYSTEM
    namespaces = sorted(r.inputs["metadata"]["name"] for r in run.of_type("kubernetes:core/v1:Namespace"))
    assert namespaces == ["inference", "training"]  # no CPU pools: no resident or batch namespace
    quotas = {r.inputs["metadata"]["namespace"]: r.inputs["spec"]["hard"]
              for r in run.of_type("kubernetes:core/v1:ResourceQuota")}
    assert quotas == {"inference": {"requests.nvidia.com/gpu": "3"}, "training": {"requests.nvidia.com/gpu": "32"}}
    assert len(run.of_type("kubernetes:scheduling.k8s.io/v1:PriorityClass")) == 4
    (platform,) = run.of_type(v.COMPONENT_PLATFORM)
    assert run.component_outputs[platform.urn]["systemNodes"] == ON_SYSTEM


def test_system_nodes_that_select_a_resident_pool_tolerate_its_taints(aws_pools, fake_cluster):
    web = aws_pools[0].model_copy(update={"dedicated": True})
    run = run_platform(fake_cluster(), {"pools": [web, *aws_pools[1:]],
                                        "system_nodes": {"node_selector": {"nodepools.io/pool": "web"}}})
    assert {k: releases(run)["cluster-autoscaler"][k] for k in ("nodeSelector", "tolerations")} == {
        "nodeSelector": {"nodepools.io/pool": "web"},
        "tolerations": [{"key": "nodepools.io/pool-class", "operator": "Equal", "value": "resident",
                         "effect": "NoSchedule"}]}


def test_without_resident_pool_or_system_nodes_the_error_names_both_ways_out(aws_pools, fake_cluster):
    run, error = run_program_capture(lambda: Platform("p", fake_cluster(), {"pools": gpu_only(aws_pools)},
                                                      k8s.Provider("k8s", kubeconfig="fake")))
    assert isinstance(error, ValidationError)
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]  # the program's own provider only
    [line] = describe(error)
    assert line.startswith("pools: a cluster needs somewhere to run its add-ons (CoreDNS, cluster-autoscaler, "
                           "Kueue, Karpenter): add a pool with pool_class: resident, or, on a cluster that already "
                           "has system nodes, name them in system_nodes (")


@pytest.mark.parametrize("raw, line", [
    ({"node_selector": {}, "taints": []}, "system_nodes.taints: unknown field (allowed: node_selector, tolerations)"),
    ({"node_selector": {"role": "system"}, "tolerations": [{"key": "dedicated", "operator": "Exists", "value": "x"}]},
     "system_nodes.tolerations[0].value: operator 'Exists' takes no value (allowed operators: Equal, Exists)"),
])
def test_bad_system_nodes_are_refused_by_field(raw, line, aws_pools):
    with pytest.raises(ValidationError) as err:
        PlatformArgs(pools=gpu_only(aws_pools), system_nodes=raw)
    assert line in describe(err.value)


def test_the_layout_verdict_counts_the_system_nodes_as_unknown(aws_pools):
    batch = [p for p in aws_pools if p.pool_class is v.PoolClass.BATCH]
    owned = layout_verdict(Layout.FLAT, batch)
    attached = layout_verdict(Layout.FLAT, batch, unowned_nodes=True)
    assert (owned.recommended, owned.as_dict()["unowned_nodes"]) == ("flat", 0)
    assert (attached.recommended, attached.as_dict()["unowned_nodes"]) == ("either", "unknown")
    assert attached.reasons[0].startswith("at least 10 nodes (plus the cluster's own system nodes, number unknown) "
                                          "of uniform work (batch)")
    assert SystemNodes(**SYSTEM).selects({"eks.amazonaws.com/nodegroup": "system", "other": "x"})


@pytest.mark.parametrize("keep, namespaces, releases_", [
    ("batch", ["batch"], ["cluster-autoscaler"]),
    ("gpu-training", ["training"], ["cluster-autoscaler", "kueue", "nvidia-device-plugin"]),
])
def test_batch_only_and_training_only_platforms_are_valid_too(keep, namespaces, releases_, aws_pools, fake_cluster):
    pools = [p for p in aws_pools if p.pool_class.value == keep]
    run = run_platform(fake_cluster(), {"pools": pools, "system_nodes": SYSTEM})
    assert sorted(r.inputs["metadata"]["name"] for r in run.of_type("kubernetes:core/v1:Namespace")) == namespaces
    assert sorted(releases(run)) == releases_
    assert {k: releases(run)["cluster-autoscaler"][k] for k in ("nodeSelector", "tolerations")} == ON_SYSTEM
    assert len(run.of_type("kubernetes:core/v1:LimitRange")) == 1  # batch and training namespaces default requests
