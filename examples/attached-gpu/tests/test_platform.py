"""The project's own unit tests: `venv/bin/python -m pytest tests` (Pulumi's mocks, no cloud).

The first group runs the whole program under ``NodepoolsMocks`` (outputs a cloud would
compute are filled in); the last test uses plain Pulumi mocks that echo inputs, as in
Pulumi's unit-testing guide."""
import json
import sys
from pathlib import Path

import pulumi
import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))  # `import infra`, as the Pulumi language host allows it
CONFIG = yaml.safe_load((PROJECT / "Pulumi.dev.yaml").read_text())["config"]
DEFAULTS = {"nodepools-example-attached-gpu:systemNodeGroup": "system",
            "nodepools-example-attached-gpu:maxInferenceNodes": "4"}


def set_config() -> None:
    pulumi.runtime.set_all_config({k: v if isinstance(v, str) else json.dumps(v)
                                   for k, v in {**DEFAULTS, **CONFIG}.items()}, [])


@pytest.fixture
def mocked():
    from nodepools.testing import NodepoolsMocks
    set_config()
    pulumi.runtime.set_mocks(NodepoolsMocks(), project="nodepools-example-attached-gpu", stack="dev", preview=False)


@pulumi.runtime.test
def test_the_addons_run_on_the_cluster_s_own_system_nodes(mocked):
    from infra import platform_for
    platform = platform_for(pulumi.Config("nodepools-example-attached-gpu"))
    releases = platform.guardrails.releases
    assert sorted(releases) == ["cluster-autoscaler", "kueue", "nvidia-device-plugin"]
    assert platform.guardrails.namespaces == {"gpu-inference": "inference", "gpu-training": "training"}

    def check(values):
        autoscaler, kueue = values
        system = {"eks.amazonaws.com/nodegroup": "system"}
        assert autoscaler["nodeSelector"] == system
        assert kueue["controllerManager"]["nodeSelector"] == system
        assert autoscaler["tolerations"] == [{"key": "CriticalAddonsOnly", "operator": "Exists"}]
    return pulumi.Output.all(releases["cluster-autoscaler"].values, releases["kueue"].values).apply(check)


@pulumi.runtime.test
def test_the_gpu_pools_scale_as_their_class_says(mocked):
    from infra import platform_for
    platform = platform_for(pulumi.Config("nodepools-example-attached-gpu"))
    serving = platform.pools["serving"].registered.resource
    training = platform.pools["training"].registered.resource

    def check(args):
        (serving_scaling, serving_capacity, training_scaling, training_capacity) = args
        assert (serving_scaling["min_size"], serving_scaling["max_size"], serving_capacity) == (1, 4, "ON_DEMAND")
        assert (training_scaling["min_size"], training_capacity) == (0, "SPOT")
    return pulumi.Output.all(serving.scaling_config, serving.capacity_type, training.scaling_config,
                             training.capacity_type).apply(check)


class EchoMocks(pulumi.runtime.Mocks):
    """Pulumi's unit-testing guide's mocks: outputs are the inputs."""

    def new_resource(self, args):
        return [args.name + "_id", args.inputs]

    def call(self, args):
        return {}


@pulumi.runtime.test
def test_the_program_registers_under_plain_pulumi_mocks():
    set_config()
    pulumi.runtime.set_mocks(EchoMocks(), project="nodepools-example-attached-gpu", stack="dev", preview=False)
    from infra import platform_for
    platform = platform_for(pulumi.Config("nodepools-example-attached-gpu"))
    return platform.pools["training"].registered.resource.urn.apply(lambda urn: urn.endswith("::ml-training"))
