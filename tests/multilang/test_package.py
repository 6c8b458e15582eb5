"""The package as ``pulumi package add`` sees it, and the Pulumi YAML example that uses it."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import yaml
from pulumi.runtime.proto import provider_pb2 as proto
from pulumi.runtime.proto import provider_pb2_grpc

from nodepools.multilang.provider import NodepoolsProvider

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "yaml-consumer"


def test_the_plugin_manifest_names_the_python_runtime_and_its_dependencies():
    manifest = yaml.safe_load((ROOT / "PulumiPlugin.yaml").read_text())
    assert manifest["runtime"]["name"] == "python"
    requirements = [line for line in (ROOT / "requirements.txt").read_text().splitlines()
                    if line and not line.startswith("#")]
    assert requirements == ["."]  # this package (pyproject.toml), whose dependencies the provider needs


def test_the_entry_point_serves_the_schema_over_grpc():
    """Start the repository as the language host starts a plugin and ask for the schema, as
    ``pulumi package add`` does before it generates an SDK."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, str(ROOT), "127.0.0.1:1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        line = process.stdout.readline().decode().strip()  # type: ignore[union-attr]
        assert re.fullmatch(r"\d+", line), process.stderr.read().decode()  # type: ignore[union-attr]
        with grpc.insecure_channel(f"127.0.0.1:{line}") as channel:
            response = provider_pb2_grpc.ResourceProviderStub(channel).GetSchema(
                proto.GetSchemaRequest(version=0), timeout=30)
        assert json.loads(response.schema) == json.loads(NodepoolsProvider().schema)
    finally:
        process.terminate()
        process.wait(timeout=30)


def interpolate(value, config):
    """``${key}`` of the example's config (the only interpolations its properties use besides ``${k8s}``)."""
    if isinstance(value, str):
        match = re.fullmatch(r"\$\{(\w+)\}", value)
        return config[match.group(1)] if match else value
    if isinstance(value, list):
        return [interpolate(v, config) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, config) for k, v in value.items()}
    return value


@pytest.fixture(scope="module")
def example():
    program = yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text())
    stack = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())["config"]
    prefix = f"{program['name']}:"
    config = {k.removeprefix(prefix): v for k, v in stack.items() if k.startswith(prefix)}
    return program, config


def test_the_yaml_example_uses_the_package_as_its_schema_says(example):
    program, config = example
    schema = json.loads(NodepoolsProvider().schema)
    assert program["runtime"] == "yaml" and program["packages"] == {"nodepools": "../.."}
    assert (EXAMPLE / program["packages"]["nodepools"]).resolve() == ROOT
    assert sorted(config) == sorted(k for k in program["config"] if k != "kubeconfig")  # kubeconfig: secret
    platform = program["resources"]["ml"]
    resource = schema["resources"][platform["type"]]
    props = platform["properties"]
    assert set(resource["requiredInputs"]) <= set(props) <= set(resource["inputProperties"])
    pool_fields = schema["types"]["nodepools:index:Pool"]["properties"]
    assert all(set(pool) <= set(pool_fields) for pool in props["pools"])
    assert props["kubernetesProvider"] == "${k8s}"
    assert program["resources"]["k8s"]["type"] == "pulumi:providers:kubernetes"
    outputs = {re.match(r"\$\{ml\.(\w+)", v).group(1) for v in program["outputs"].values()}
    assert outputs <= set(resource["properties"])


def test_the_yaml_example_constructs(construct, example):
    program, config = example
    props = {k: v for k, v in program["resources"]["ml"]["properties"].items() if k != "kubernetesProvider"}
    got = construct("EksPlatform", interpolate(props, config), name="ml")
    assert got.error is None, got.error
    assert sorted(got.state["pools"]) == ["jobs", "services", "serving", "training"]
    assert got.state["pools"]["training"]["contract"]["nodeSelector"] == {"nodepools.io/pool": "training"}
    assert got.state["namespaces"] == {"resident": "services", "batch": "batch", "gpu-inference": "inference",
                                       "gpu-training": "training"}
