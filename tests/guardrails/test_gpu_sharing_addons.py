"""Device plugin per-node configs for shared pools, checked against the chart at v0.20.0."""
import json
from pathlib import Path

import yaml

from nodepools.spec.pool import PoolSpec


def pool(name, pool_class, instance_types, **fields) -> PoolSpec:
    return PoolSpec(name=name, pool_class=pool_class, instance_types=instance_types, **fields)

CHART = json.loads((Path(__file__).parents[1] / "gpu" / "upstream" / "nvidia_device_plugin_v0.20.0.json").read_text())


def shared_pools():
    return [
        pool("web", "resident", ["m6i.xlarge"]),
        pool("small", "gpu-inference", ["g6.xlarge"], gpu_sharing={"mode": "time-slicing", "replicas": 4}),
        pool("sliced", "gpu-inference", ["p4de.24xlarge"], gpu_sharing={"mode": "mig", "profile": "1g.10gb"}),
        pool("whole", "gpu-inference", ["g6e.xlarge"]),
        pool("train", "gpu-training", ["p5.48xlarge"]),
    ]


def assert_config_file_keys(config: dict) -> None:
    v1 = CHART["config_v1"]
    assert set(config) <= set(v1["Config"])
    assert set(config.get("flags", {})) <= set(v1["Flags"])
    assert config["flags"]["migStrategy"] in CHART["mig_strategies"]
    sharing = config.get("sharing", {})
    assert set(sharing) <= set(v1["Sharing"])
    for replicated in sharing.values():
        assert set(replicated) <= set(v1["ReplicatedResources"])
        assert all(set(r) <= set(v1["ReplicatedResource"]) for r in replicated["resources"])


def test_each_shared_pool_gets_a_config_entry_the_chart_understands(guardrails_run, release):
    values = release(guardrails_run(shared_pools()), "nvidia-device-plugin")["values"]
    assert set(values) <= set(CHART["chart_values_keys"])
    assert set(values["config"]) <= set(CHART["chart_config_keys"])
    files = {name: yaml.safe_load(text) for name, text in values["config"]["map"].items()}
    assert values["config"]["default"] == "default"
    assert files == {
        "default": {"version": "v1", "flags": {"migStrategy": "none"}},
        "mig-1g.10gb": {"version": "v1", "flags": {"migStrategy": "mixed"}},
        "time-slicing-4": {"version": "v1", "flags": {"migStrategy": "none"}, "sharing": {"timeSlicing": {
            "renameByDefault": False, "failRequestsGreaterThanOne": True,
            "resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}}},
    }
    for config in files.values():
        assert_config_file_keys(config)


def test_a_misspelt_config_key_is_caught_by_the_chart_key_check():
    try:
        assert_config_file_keys({"version": "v1", "flags": {"migStrategy": "none"},
                                 "sharing": {"timeSlicing": {"renameByDefualt": False, "resources": []}}})
    except AssertionError:
        return
    raise AssertionError("the key check accepted an unknown key")


def test_without_shared_pools_the_chart_keeps_its_builtin_config(aws_pools, guardrails_run, release):
    assert "config" not in release(guardrails_run(aws_pools), "nvidia-device-plugin")["values"]


def test_quotas_cover_every_gpu_resource_name_the_pools_offer(guardrails_run, objects):
    from nodepools.guardrails import GuardrailsSpec
    from nodepools.vocabulary import TYPE_RESOURCE_QUOTA

    run = guardrails_run(shared_pools(), spec=GuardrailsSpec(quota_priority_class_scopes=True))
    quotas = {key: q["spec"]["hard"] for key, q in objects(run, TYPE_RESOURCE_QUOTA).items()}
    # inference: small 1 L4 x 4 replicas x 4 nodes + whole 1 L40S x 4 nodes; sliced 7 x 8 A100 80GB x 4 nodes.
    assert quotas["inference/nodepools-quota"] == {"requests.nvidia.com/gpu": "20",
                                                   "requests.nvidia.com/mig-1g.10gb": "224"}
    assert quotas["training/nodepools-quota"] == {"requests.nvidia.com/gpu": "32",
                                                  "requests.nvidia.com/mig-1g.10gb": "0"}
    assert quotas["services/nodepools-quota"] == {"requests.nvidia.com/gpu": "0",
                                                  "requests.nvidia.com/mig-1g.10gb": "0"}
    assert quotas["inference/nodepools-foreign-priority"] == {
        "pods": "0", "requests.nvidia.com/gpu": "0", "requests.nvidia.com/mig-1g.10gb": "0"}
