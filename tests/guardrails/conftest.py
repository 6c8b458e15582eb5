"""Shared fixtures for the guardrails tests: pool sets, a fake cluster target, schema validators."""
from __future__ import annotations

import copy
from typing import Any

import jsonschema
import kubernetes_validate
import pulumi
import pulumi_kubernetes as k8s
import pytest

from nodepools.backends.base import RegisteredPool
from nodepools.components.guardrails import Guardrails
from nodepools.guardrails import GuardrailsSpec
from nodepools.guardrails.schemas import crd_schema
from nodepools.offline.engine import Registration, Run, run_program
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import TYPE_HELM_RELEASE, Cloud

FAKE_ROLE_ARN = "arn:aws:iam::123456789012:role/fake-cluster-autoscaler"
REJECTED_LABEL = "fake.example/reject"


class FakeCluster:
    """A real ClusterTarget whose pools are ConfigMaps (no cloud SDK), recording its calls."""

    ROLE_ARN = FAKE_ROLE_ARN
    REJECTED_LABEL = REJECTED_LABEL

    def __init__(self, cloud: Cloud = Cloud.AWS, name: str = "demo", region: str | None = "us-west-2") -> None:
        self.cloud = cloud
        self._name = name
        self.region = region
        self.identity_calls: list[tuple[str, str]] = []
        self.alarm_calls: list[list[dict[str, Any]]] = []

    @property
    def cluster_name(self) -> pulumi.Input[str]:
        return self._name

    def check_pool(self, spec: PoolSpec) -> None:
        problems = Problems()
        if REJECTED_LABEL in spec.labels:
            problems.add(("labels", REJECTED_LABEL), "the fake cloud rejects this label", spec.labels[REJECTED_LABEL])
        problems.raise_if_any("FakeCluster")

    def register_pool(self, spec: PoolSpec, parent: pulumi.Resource) -> RegisteredPool:
        pool = k8s.core.v1.ConfigMap(f"{parent.pulumi_resource_name}-fake", data=spec.node_labels,
                                     opts=pulumi.ResourceOptions(parent=parent))
        return RegisteredPool(resource=pool, node_labels=spec.node_labels)

    def check_cluster_autoscaler_identity(self, namespace: str, service_account: str) -> None:
        pass

    def register_alarms(self, alarms: list[dict[str, Any]], parent: pulumi.Resource) -> None:
        self.alarm_calls.append(alarms)

    def register_cluster_autoscaler_identity(self, namespace: str, service_account: str,
                                             parent: pulumi.Resource) -> pulumi.Output[str] | None:
        self.identity_calls.append((namespace, service_account))
        pulumi.ComponentResource("fake:index:Identity", f"{parent.pulumi_resource_name}-identity",
                                 None, pulumi.ResourceOptions(parent=parent))
        return pulumi.Output.from_input(FAKE_ROLE_ARN)


def pool(name: str, pool_class: str, instance_types: list[str], **fields: Any) -> PoolSpec:
    return PoolSpec(name=name, pool_class=pool_class, instance_types=instance_types, **fields)


@pytest.fixture
def aws_pools() -> list[PoolSpec]:
    """resident 2-6 x m6i.xlarge (4 vCPU, 16 GiB), batch 0-10 x c6i.2xlarge (8, 16),
    inference 1-3 x g6.xlarge (1 L4), training 0-4 x p4d.24xlarge (8 A100)."""
    return [
        pool("web", "resident", ["m6i.xlarge"], min_nodes=2, max_nodes=6),
        pool("jobs", "batch", ["c6i.2xlarge"], max_nodes=10, capacity="spot"),
        pool("infer", "gpu-inference", ["g6.xlarge"], max_nodes=3),
        pool("train", "gpu-training", ["p4d.24xlarge"], max_nodes=4),
    ]


@pytest.fixture
def gcp_pools() -> list[PoolSpec]:
    return [
        pool("web", "resident", ["n2-standard-4"], max_nodes=4),
        pool("jobs", "batch", ["c3-standard-8"], max_nodes=5),
        pool("infer", "gpu-inference", ["g2-standard-8"], max_nodes=2),
        pool("train", "gpu-training", ["a2-highgpu-8g"], max_nodes=2),
    ]


def k8s_object(reg: Registration) -> dict[str, Any]:
    """The object a registration describes, numbers back to ints where whole (the
    wire carries every number as a double; the provider converts per schema)."""
    def ints(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, dict):
            return {k: ints(v) for k, v in value.items()}
        if isinstance(value, list):
            return [ints(v) for v in value]
        return value
    return ints({k: v for k, v in reg.inputs.items()})


def _strict(schema: Any) -> Any:
    """Reject unknown fields, as the API server's strict field validation does."""
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        if isinstance(out.get("pattern"), str) and out["pattern"].startswith("^(?i)"):
            # Go's RE2 takes inline flags anywhere; Python only at the very start.
            out["pattern"] = "(?i)^" + out["pattern"][len("^(?i)"):]
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


@pytest.fixture
def validate_builtin():
    def check(obj: dict[str, Any], version: str = "1.33") -> None:
        kubernetes_validate.validate(copy.deepcopy(obj), version, strict=True)
    return check


@pytest.fixture
def validate_crd():
    def check(obj: dict[str, Any]) -> None:
        schema = _strict(crd_schema(obj["apiVersion"], obj["kind"]))
        jsonschema.validate(obj, schema, cls=jsonschema.Draft7Validator)
    return check


@pytest.fixture
def fake_cluster():
    return FakeCluster


@pytest.fixture
def to_object():
    return k8s_object


@pytest.fixture
def guardrails_run():
    """Run a Guardrails component for ``pools`` (EKS by default, region and role ARN given)."""
    def run(pools, cloud=Cloud.AWS, spec=None, **kw) -> Run:
        def program():
            provider = k8s.Provider("k8s", kubeconfig="fake")
            Guardrails("g", ClusterPools(cloud=cloud, pools=pools), spec or GuardrailsSpec(), cloud, "demo",
                       provider, **{"region": "us-west-2", "autoscaler_role_arn": FAKE_ROLE_ARN,
                                    "register_alarms": lambda alarms, parent: None, **kw})
        return run_program(program)
    return run


@pytest.fixture
def objects():
    """Registered objects of a type, keyed ``namespace/name`` (or ``name``)."""
    def collect(run: Run, type_token: str, to_object=k8s_object) -> dict[str, dict]:
        out = {}
        for reg in run.of_type(type_token):
            obj = to_object(reg)
            meta = obj["metadata"]
            out[f"{meta['namespace']}/{meta['name']}" if "namespace" in meta else meta["name"]] = obj
        return out
    return collect


@pytest.fixture
def release():
    """The inputs of the Helm release named ``name``."""
    def find(run: Run, name: str) -> dict:
        (reg,) = [r for r in run.of_type(TYPE_HELM_RELEASE) if r.inputs["name"] == name]
        return reg.inputs
    return find
