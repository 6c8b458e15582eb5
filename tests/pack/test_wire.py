"""One read of the wire gives the rules exactly what pulumi_policy's reading did, in the same order."""
from __future__ import annotations

import math

import pytest
from google.protobuf import json_format, struct_pb2
from hypothesis import given, settings, strategies as st
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

import pulumi
from nodepools.inventory.values import UNKNOWN, UNKNOWN_STRINGS, plain
from nodepools.inventory.resource import Resource
from nodepools.offline.analyzer_wire import UNKNOWN_WIRE, exact, stack_request
from nodepools.pack.wire import (ARCHIVE_SIG, ASSET_SIG, SECRET_SIG, SIG_KEY, Decoded, WireError, properties,
                                 stack_resources)

KEYS = st.one_of(st.sampled_from(["metadata", "spec", "", "a.b", "ünï", "0", SECRET_SIG]), st.text(max_size=6))
LEAVES = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                   st.integers(-(2 ** 53), 2 ** 53).map(float), st.text(max_size=8),
                   st.sampled_from(sorted(UNKNOWN_STRINGS)))


def secret(value):
    return {SIG_KEY: SECRET_SIG, "value": value}


VALUES = st.recursive(LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4), inner.map(secret)), max_leaves=25)


def struct_of(props: dict) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    json_format.ParseDict(props, message)
    return message


def as_pulumi_policy_read_it(message: struct_pb2.Struct):
    """The old path: pulumi_policy's deserialisation and proxy, then the rules' ``plain``."""
    return plain(unknown_checking_proxy(deserialize_properties(json_format.MessageToDict(message))))


def ordered(value):
    """``value`` with every dict as its item list, so equality also compares key order."""
    if isinstance(value, dict):
        return [(k, ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(st.dictionaries(st.one_of(KEYS, st.just(SIG_KEY)), VALUES, max_size=6))
def test_one_read_equals_pulumi_policys_read_key_order_included(props):
    message = struct_of(props)
    assert ordered(properties(message, Decoded())) == ordered(as_pulumi_policy_read_it(message))


def test_unknowns_of_every_type_and_secrets_inside_out():
    props = {"a": "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "b": ["1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", 2.0],
             "c": secret({"token": secret("hunter22"), "n": 3.0}), "d": secret("dd056dcd-154b-4c76-9bd3-c8f88648b5ff")}
    decoded = Decoded()
    assert properties(struct_of(props), decoded) == {"a": UNKNOWN, "b": [UNKNOWN, 2.0],
                                                     "c": {"token": "hunter22", "n": 3.0}, "d": UNKNOWN}
    assert decoded.secrets == {"hunter22"}


def test_assets_and_archives_are_the_sdks_objects():
    props = {"file": {SIG_KEY: ASSET_SIG, "path": "a.txt"}, "text": {SIG_KEY: ASSET_SIG, "text": "hi"},
             "zip": {SIG_KEY: ARCHIVE_SIG, "assets": {"x": {SIG_KEY: ASSET_SIG, "uri": "https://e.example/x"}}}}
    read = properties(struct_of(props), Decoded())
    assert isinstance(read["file"], pulumi.FileAsset) and read["file"].path == "a.txt"
    assert isinstance(read["text"], pulumi.StringAsset) and read["text"].text == "hi"
    assert isinstance(read["zip"], pulumi.AssetArchive)
    assert isinstance(read["zip"].assets["x"], pulumi.RemoteAsset) and read["zip"].assets["x"].uri == "https://e.example/x"


@pytest.mark.parametrize("props, where, problem", [
    ({"spec": {"replicas": float("nan")}}, ".spec.replicas", "nan is not a JSON number (the engine sends none)"),
    ({"spec": {"x": [1.0, float("inf")]}}, ".spec.x[1]", "inf is not a JSON number (the engine sends none)"),
    ({"k": {SIG_KEY: "not-a-signature"}}, ".k", "unrecognized signature 'not-a-signature'"),
    ({"k": {SIG_KEY: 7.0}}, ".k", "unrecognized signature None"),
    ({"k": [{SIG_KEY: SECRET_SIG}]}, ".k[0]", "a secret without a value"),
    ({"k": {SIG_KEY: ASSET_SIG, "path": 3.0}}, ".k", "the path of an asset or archive is not a string"),
])
def test_what_the_engine_never_sends_is_refused_naming_the_property(props, where, problem):
    message = struct_pb2.Struct()
    message.update(props)  # ParseDict refuses NaN; the wire does not
    resource = Resource.of("kubernetes:apps/v1:Deployment", "api", {})
    with pytest.raises(WireError) as error:
        stack_resources(stack_request([exact(resource, message)]), Decoded())
    assert str(error.value) == f"{resource.urn}: properties{where}: {problem}"


def test_a_hand_built_resource_goes_on_the_wire_as_the_engine_marshals_it():
    """Plain props: ``UNKNOWN`` as the engine's sentinel, a signed secret as it is, any float (the pack
    refuses a NaN by name); an exact ``Struct`` goes untouched (``exact``). The pack reads back what was built."""
    props = {"a": UNKNOWN, "b": [UNKNOWN, 2.0, None, True], "c": secret("hunter22")}
    [message] = stack_request([Resource.of("kubernetes:apps/v1:Deployment", "api", props)]).resources
    fields = message.properties.fields
    assert fields["a"].string_value == UNKNOWN_WIRE and fields["b"].list_value.values[0].string_value == UNKNOWN_WIRE
    assert fields["c"] == struct_of({"c": secret("hunter22")}).fields["c"]
    decoded = Decoded()
    assert properties(message.properties, decoded) == {"a": UNKNOWN, "b": [UNKNOWN, 2.0, None, True], "c": "hunter22"}
    assert decoded.secrets == {"hunter22"}
    [nan] = stack_request([Resource.of("kubernetes:apps/v1:Deployment", "api", {"n": float("nan")})]).resources
    assert math.isnan(nan.properties.fields["n"].number_value)
    wire = struct_of({"x": "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"})  # the engine's unknown bool, exactly
    [sent] = stack_request([exact(Resource.of("kubernetes:apps/v1:Deployment", "api", {}), wire)]).resources
    assert sent.properties == wire


def test_links_count_only_resources_of_the_request():
    """A parent, dependency or property dependency outside the request is dropped, as
    pulumi_policy links resources; a provider is named by its URN wherever it is."""
    provider = Resource.of("pulumi:providers:kubernetes", "k8s", {})
    ns = Resource.of("kubernetes:core/v1:Namespace", "ns", {})
    outside = "urn:pulumi:dev::nodepools::kubernetes:core/v1:Namespace::elsewhere"
    deployment = Resource.of("kubernetes:apps/v1:Deployment", "api", {"metadata": {}}, parent=outside,
                             dependencies=(ns.urn, outside), property_dependencies={"metadata": (outside, ns.urn)},
                             provider=provider.urn)
    [read_ns, read] = stack_resources(stack_request([ns, deployment]), Decoded())
    assert (read.parent, read.dependencies, read.property_dependencies, read.provider) == (
        "", (ns.urn,), {"metadata": (ns.urn,)}, "")  # the provider is not among the resources: not sent
    [_, _, read] = stack_resources(stack_request([provider, ns, deployment]), Decoded())
    assert read.provider == provider.urn and read_ns.parent == ""
