"""The provider's schema, read over GetSchema as the CLI reads it for ``pulumi package add``."""
import asyncio
import dataclasses
import json
import typing
from enum import Enum

import pytest
from pulumi.provider.experimental.util import camel_case
from pulumi.provider.server import ProviderServicer
from pulumi.runtime.proto import provider_pb2 as proto

from nodepools.backends.aws.tables import PARTITIONS
from nodepools.backends.gcp.tables import GpuDriverVersion
from nodepools.guardrails.spec import AlertsSpec, ChartVersions, GuardrailsSpec, KueueMode, LimitRangeSpec
from nodepools.multilang import guardrails_args, pool_args
from nodepools.multilang.defaults import ARGS_MODELS, DERIVED, bounds_text, plain
from nodepools.multilang.provider import NodepoolsProvider
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.instances import GpuModel
from nodepools.guardrails.addon_modes import AddonMode, AddonsSpec
from nodepools.spec.karpenter import KarpenterOptions
from nodepools.spec.outputs import PoolOutputs, camel
from nodepools.spec.sharing import GpuSharing, GpuSharingMode
from nodepools.spec.pool import CustomCapacity, GpuSpec, PoolSpec, Taint
from nodepools.spec.presets import PRESET_FIELDS, PRESETS, PlacementStrategy
from nodepools.vocabulary import Architecture, CapacityType, PoolClass, Provisioner, TaintEffect

EKS, GKE = "nodepools:index:EksPlatform", "nodepools:index:GkePlatform"
K8S_PROVIDER_REF = "/kubernetes/v{}/schema.json#/resources/pulumi:providers:kubernetes"


@pytest.fixture(scope="module")
def schema() -> dict:
    servicer = ProviderServicer(NodepoolsProvider(), [], "")
    response = asyncio.run(servicer.GetSchema(proto.GetSchemaRequest(version=0), None))
    return json.loads(response.schema)


def ref(name: str) -> str:
    return f"#/types/nodepools:index:{name}"


def properties(schema: dict):
    """(where, name, property) of every input, output and type property (array items and map values too)."""
    for token, res in schema["resources"].items():
        for kind in ("inputProperties", "properties"):
            for name, prop in res[kind].items():
                yield f"{token}.{kind}", name, prop
    for token, typ in schema["types"].items():
        for name, prop in typ["properties"].items():
            yield token, name, prop


def test_the_package_has_the_two_platforms_and_depends_only_on_kubernetes(schema):
    import pulumi_kubernetes
    assert schema["name"] == "nodepools"
    assert sorted(schema["resources"]) == [EKS, GKE]
    assert all(r["isComponent"] for r in schema["resources"].values())
    (dep,) = schema["dependencies"]
    assert dep["name"] == "kubernetes" and dep["version"] == pulumi_kubernetes._utilities.get_version()


def test_every_component_type_and_property_is_documented(schema):
    undocumented = [f"{where}.{name}" for where, name, prop in properties(schema)
                    if not prop.get("description", "").strip()]
    undocumented += [t for t, typ in {**schema["types"], **schema["resources"]}.items()
                     if not typ.get("description", "").strip()]
    assert undocumented == []
    # One line each: descriptions come from docstrings wrapped in the source.
    assert not [n for _, n, p in properties(schema) if "\n" in p["description"]]


def test_eks_inputs(schema):
    eks = schema["resources"][EKS]
    inputs = eks["inputProperties"]
    assert eks["requiredInputs"] == ["clusterName", "kubernetesProvider", "pools"]
    # Ids may be other resources' outputs; the specs must be plain values (validated before anything registers).
    assert inputs["clusterName"] == {"type": "string", "description": inputs["clusterName"]["description"]}
    assert inputs["kubernetesProvider"]["$ref"] == K8S_PROVIDER_REF.format(schema["dependencies"][0]["version"])
    assert inputs["pools"]["type"] == "array" and inputs["pools"]["plain"] is True
    assert inputs["pools"]["items"]["$ref"] == ref("Pool")
    assert inputs["subnetIds"]["plain"] is True and "plain" not in inputs["subnetIds"]["items"]
    assert inputs["guardrails"]["$ref"] == ref("Guardrails") and inputs["guardrails"]["plain"] is True
    assert inputs["tags"]["additionalProperties"]["type"] == "string"
    assert sorted(inputs) == sorted([
        "clusterName", "kubernetesProvider", "pools", "region", "subnetIds", "clusterSecurityGroupId",
        "nodeSecurityGroupIds", "nodeRoleArn", "attachCniPolicy", "oidcProviderArn", "oidcIssuerUrl", "ebsKmsKeyArn",
        "partition", "tags", "guardrails"])


def test_gke_inputs(schema):
    gke = schema["resources"][GKE]
    assert gke["requiredInputs"] == ["clusterName", "kubernetesProvider", "location", "pools", "project"]
    assert sorted(gke["inputProperties"]) == sorted([
        "clusterName", "project", "location", "kubernetesProvider", "pools", "defaultZones", "nodeServiceAccount",
        "extraNodeRoles", "resourceLabels", "gpuDriverVersion", "privateNodes", "bootDiskKmsKey", "guardrails"])
    assert gke["inputProperties"]["privateNodes"]["type"] == "boolean"


@pytest.mark.parametrize("token", [EKS, GKE])
def test_outputs_are_typed(schema, token):
    outputs = schema["resources"][token]["properties"]
    assert schema["resources"][token]["required"] == ["localQueues", "namespaces", "pools"]
    assert outputs["pools"]["additionalProperties"]["$ref"] == ref("PoolOutputs")
    assert outputs["namespaces"]["additionalProperties"]["type"] == "string"
    assert outputs["localQueues"]["additionalProperties"]["type"] == "string"
    types = schema["types"]
    pool = types["nodepools:index:PoolOutputs"]
    # One spelling: the schema's properties are the keys PoolOutputs writes (and the stack exports).
    assert sorted(pool["properties"]) == sorted(camel(f.name) for f in dataclasses.fields(PoolOutputs))
    assert pool["required"] == ["capacity", "contract", "instanceTypes", "maxNodes", "nodeLabels", "nodeTaints",
                                "poolClass", "poolName", "provisioner"]
    assert pool["properties"]["nodeTaints"]["items"]["$ref"] == ref("NodeTaint")
    gpu = types["nodepools:index:PoolGpu"]
    assert sorted(gpu["properties"]) == ["countPerNode", "memoryGibPerRequest", "model", "resource", "sharing"]
    contract = types["nodepools:index:PoolContract"]["properties"]
    assert contract["tolerations"]["items"]["$ref"] == ref("Toleration")
    assert contract["nodeSelector"]["additionalProperties"]["type"] == "string"
    assert contract["affinity"]["$ref"] == "pulumi.json#/Any"
    # A toleration of a taint without value has none: value is optional, the rest required.
    assert types["nodepools:index:Toleration"]["required"] == ["effect", "key", "operator"]


@pytest.mark.parametrize("args_type, spec", ARGS_MODELS)
def test_args_carry_every_spec_field_by_its_python_name(args_type, spec):
    """Arguments convert into the specs by name: a field the spec gains must be added to its args type
    (or the other languages silently cannot set it)."""
    assert list(typing.get_type_hints(args_type)) == list(spec.model_fields)


def test_every_args_type_is_paired_with_its_model():
    """Every argument type the schema has is in ARGS_MODELS, so each one's defaults are the model's."""
    paired = {args.__name__ for args, _ in ARGS_MODELS}
    assert {t.__name__ for t in [*vars(pool_args).values(), *vars(guardrails_args).values()]
            if isinstance(t, type) and typing.is_typeddict(t)} == paired


@pytest.mark.parametrize("args_type, spec", ARGS_MODELS)
def test_each_default_and_bound_is_stated_once_from_the_model(schema, args_type, spec):
    """A field whose model has a plain default or bounds: the schema states them (read from the model, not
    written in the argument's docstring); no description states two defaults."""
    properties = schema["types"][f"nodepools:index:{args_type.__name__}"]["properties"]
    for field, info in spec.model_fields.items():
        description = properties[camel_case(field)]["description"]
        assert description.count("Default:") + description.count("Default from") <= 1, description
        bounds = bounds_text(spec, field)
        assert bounds is None or description.count(bounds) == 1, (field, description)
        value = info.default
        if isinstance(value, (str, int, float, Enum)) and (spec, field) not in DERIVED:
            assert description.endswith(f"Default: {plain(value)}."), (field, description)


def test_the_class_presets_reach_the_schema(schema):
    """The preset-filled properties state each class's default from PRESETS, as it is when the schema is built."""
    pool = schema["types"]["nodepools:index:Pool"]["properties"]
    assert pool["maxNodes"]["description"] == (
        "Most nodes. 1 to 1000. Default from the class preset: resident 6, batch 10, gpu-inference 4, gpu-training 4.")
    for field, attribute in PRESET_FIELDS.items():
        for pool_class, preset in PRESETS.items():
            value = getattr(preset, attribute)
            assert f"{pool_class.value} {getattr(value, 'value', value)}" in pool[camel_case(field)]["description"]


def test_the_number_types(schema):
    pool = schema["types"]["nodepools:index:Pool"]["properties"]
    assert pool["minNodes"]["type"] == pool["diskSizeGib"]["type"] == "integer"
    capacity = schema["types"]["nodepools:index:CustomCapacity"]["properties"]
    assert capacity["memoryGib"]["type"] == "number" and capacity["vcpu"]["type"] == "integer"
    assert schema["types"]["nodepools:index:Guardrails"]["properties"]["batchQuotaShare"]["type"] == "number"


def values(enum: type[Enum]) -> list[str]:
    return [m.value for m in enum]


@pytest.mark.parametrize("where, name, allowed", [
    ("Pool", "poolClass", values(PoolClass)), ("Pool", "capacity", values(CapacityType)),
    ("Pool", "placement", values(PlacementStrategy)), ("Taint", "effect", values(TaintEffect)),
    ("Gpu", "model", values(GpuModel)), ("CustomCapacity", "architecture", values(Architecture)),
    ("CustomCapacity", "gpuModel", values(GpuModel)), ("Guardrails", "kueue", values(KueueMode)),
    ("Guardrails", "namespaces", values(PoolClass)), ("Pool", "provisioner", values(Provisioner)),
    ("GpuSharing", "mode", values(GpuSharingMode)),
    ("Guardrails", "kubernetesVersion", list(SUPPORTED_KUBERNETES_VERSIONS)),
])
def test_string_choices_are_listed_in_their_description(schema, where, name, allowed):
    """Choices are strings validated by the spec (so errors match Python's); the schema says which."""
    description = schema["types"][f"nodepools:index:{where}"]["properties"][name]["description"]
    assert [v for v in allowed if v not in description] == []


@pytest.mark.parametrize("token, name, allowed", [
    (EKS, "partition", list(PARTITIONS)), (GKE, "gpuDriverVersion", values(GpuDriverVersion))])
def test_cluster_choices_are_listed_in_their_description(schema, token, name, allowed):
    description = schema["resources"][token]["inputProperties"][name]["description"]
    assert [v for v in allowed if v not in description] == []


def test_the_schema_is_a_valid_pulumi_package_schema(schema):
    """Checked against Pulumi's own package metaschema (vendored, see vendor/README.md)."""
    from pathlib import Path

    import jsonschema
    text = (Path(__file__).parent / "vendor" / "pulumi-package-metaschema.json").read_text()
    metaschema = json.loads(text.replace("(?<", "(?P<"))  # Go/ECMA named groups in Python's spelling
    validator = jsonschema.Draft202012Validator(metaschema)
    assert [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(schema)] == []
    # The check has teeth: a property that is neither a type nor a reference is refused.
    broken = json.loads(json.dumps(schema))
    broken["resources"][EKS]["inputProperties"]["region"] = {"description": "no type"}
    assert list(validator.iter_errors(broken))
