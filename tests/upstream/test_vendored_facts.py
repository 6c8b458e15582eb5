"""What nodepools renders, held to the vendored facts of the exact pinned upstream releases
(components/nodepools/guardrails/upstream/README.md): a refresh that moves a chart key,
removes or deprecates a flag, or leaves a supported Kubernetes minor without an
autoscaler release fails here."""
from __future__ import annotations

from typing import Any

import pytest

from nodepools.backends.aws.iam import AUTOSCALER_DESCRIBE_ACTIONS, AUTOSCALER_MUTATING_ACTIONS
from nodepools.guardrails import GuardrailsSpec, upstream
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.autoscaler import EXTRA_ARGS, autoscaler_values
from nodepools.guardrails.device_plugin import device_plugin_values
from nodepools.guardrails.dra_driver import dra_driver_values
from nodepools.guardrails.kueue import kueue_values
from nodepools.guardrails.spec import AUTOSCALER_IMAGE_BY_KUBERNETES, ChartVersions
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud

# Values the chart passes through without a schema: any key is allowed below them.
FREE_FORM = {"cluster-autoscaler": {("extraArgs",)}, "kueue": set(), "nvidia-device-plugin": set(),
             "dra-driver-nvidia-gpu": set()}


def unknown_keys(values: Any, shape: Any, free_form: set[tuple[str, ...]], path: tuple[str, ...] = ()) -> list[str]:
    """Dotted paths of ``values`` that are not keys of the chart's values.yaml."""
    if not isinstance(values, dict) or not shape or path in free_form:
        return []
    out = []
    for key, value in values.items():
        if key not in shape:
            out.append(".".join(path + (key,)))
        else:
            out += unknown_keys(value, shape[key], free_form, path + (key,))
    return out


def test_unknown_keys_sees_a_misspelt_nested_key():
    shape = upstream.chart("cluster-autoscaler")["keys"]
    assert unknown_keys({"image": {"tags": "v1"}, "extraArgs": {"anything": "1"}, "nodeSelector": {"a": "b"}},
                        shape, FREE_FORM["cluster-autoscaler"]) == ["image.tags"]


@pytest.fixture
def cluster() -> ClusterPools:
    return ClusterPools(cloud=Cloud.AWS, pools=[
        PoolSpec(name="web", pool_class="resident", instance_types=["m6i.xlarge"], min_nodes=2, max_nodes=6),
        PoolSpec(name="jobs", pool_class="batch", instance_types=["c6i.2xlarge"], max_nodes=10, capacity="spot"),
        PoolSpec(name="train", pool_class="gpu-training", instance_types=["p4d.24xlarge"], max_nodes=4)])


def test_pinned_chart_versions_are_the_vendored_ones():
    charts = ChartVersions()
    assert {name: upstream.chart(name)["version"] for name in upstream.CHARTS} == {
        "cluster-autoscaler": charts.cluster_autoscaler, "kueue": charts.kueue,
        "nvidia-device-plugin": charts.nvidia_device_plugin, "dra-driver-nvidia-gpu": charts.nvidia_dra_driver}


def test_every_value_we_set_is_a_key_of_the_pinned_chart(cluster):
    spec = GuardrailsSpec()
    rendered = {
        "cluster-autoscaler": autoscaler_values(cluster, spec, CLOUD_ADDONS[Cloud.AWS], "demo", "us-west-2",
                                                "arn:aws:iam::123456789012:role/ca"),
        "kueue": kueue_values(spec, cluster),
        "nvidia-device-plugin": device_plugin_values(cluster),
        "dra-driver-nvidia-gpu": dra_driver_values(cluster),
    }
    for name, values in rendered.items():
        assert unknown_keys(values, upstream.chart(name)["keys"], FREE_FORM[name]) == [], name


def test_every_supported_kubernetes_minor_has_an_autoscaler_release():
    assert {m: AUTOSCALER_IMAGE_BY_KUBERNETES.get(m, "")[:len(m) + 2] for m in SUPPORTED_KUBERNETES_VERSIONS} == {
        m: f"v{m}." for m in SUPPORTED_KUBERNETES_VERSIONS}


@pytest.mark.parametrize("minor", SUPPORTED_KUBERNETES_VERSIONS)
def test_every_flag_we_pass_exists_and_is_not_deprecated_in_the_release_we_run(minor):
    flags = upstream.autoscaler_flags(AUTOSCALER_IMAGE_BY_KUBERNETES[minor])
    ours = set(EXTRA_ARGS) | set(upstream.chart("cluster-autoscaler")["template_flags"])
    assert sorted(ours - set(flags["flags"])) == []
    assert sorted(set(EXTRA_ARGS) & set(flags["deprecated"])) == []


def test_scale_down_enabled_is_deprecated_upstream_and_not_passed():
    for image in ("v1.35.2", "v1.36.1"):
        assert "scale-down-enabled" in upstream.autoscaler_flags(image)["deprecated"]
    assert "scale-down-enabled" not in EXTRA_ARGS


def test_autoscaler_iam_is_the_upstream_auto_discovery_policy_without_describe_tags():
    upstream_actions = set(upstream.load("autoscaler_iam.json")["actions"])
    ours = set(AUTOSCALER_DESCRIBE_ACTIONS) | set(AUTOSCALER_MUTATING_ACTIONS)
    assert ours == upstream_actions
    # The flag that needs the most: ASG auto-discovery by tags, which the chart passes
    # (--node-group-auto-discovery) because we set autoDiscovery; upstream's policy for
    # it has no DescribeTags, so neither do we.
    assert "node-group-auto-discovery" in upstream.chart("cluster-autoscaler")["template_flags"]
    assert "autoscaling:DescribeTags" not in ours


def test_sources_are_cited_with_tag_commit_and_license():
    for name in ("autoscaler_iam.json", *(f"chart_{c}.json" for c in upstream.CHARTS)):
        source = upstream.load(name)["_source"]
        assert len(source["commit"]) == 40 and source["license"] == "Apache-2.0" and source["ref"], name
    releases = upstream.load("autoscaler_releases.json")["releases"]
    assert all(len(r["commit"]) == 40 and r["tag"] == "cluster-autoscaler-" + r["image"][1:]
               for r in releases.values())
