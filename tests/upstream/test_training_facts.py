"""What the training setup relies on, held to the vendored facts of the pinned releases
(docs/design.md section 9.3): the autoscaler flags, key by key; the ProvisioningRequest CRD;
Kueue's feature gates; the schemas of the new Kueue objects."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from nodepools.guardrails import upstream
from nodepools.guardrails.provisioning import AUTOSCALER_ARGS
from nodepools.guardrails.schemas import crd_schema
from nodepools.guardrails.spec import AUTOSCALER_IMAGE_BY_KUBERNETES, ChartVersions
from nodepools.guardrails.topology import MIN_KUEUE
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("minor", SUPPORTED_KUBERNETES_VERSIONS)
def test_every_provisioning_flag_exists_and_is_not_deprecated_in_the_release_we_run(minor):
    flags = upstream.autoscaler_flags(AUTOSCALER_IMAGE_BY_KUBERNETES[minor])
    assert [f for f in AUTOSCALER_ARGS if f not in flags["flags"]] == []
    assert [f for f in AUTOSCALER_ARGS if f in flags["deprecated"]] == []


def _digest(crd: dict) -> str:
    """The refresh tool's digest of what an API server validates against (tools/upstream_facts.py)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import upstream_facts
    return upstream_facts.crd_schema_digest(yaml.safe_dump(crd))


def test_the_installed_crd_is_the_one_every_supported_autoscaler_release_serves():
    facts = upstream.load("crd_provisioningrequests.json")
    assert set(facts["schema_digests"]) == set(AUTOSCALER_IMAGE_BY_KUBERNETES.values())
    assert set(facts["schema_digests"].values()) == {_digest(facts["crd"])}
    crd = upstream.provisioning_crd()
    assert (crd["spec"]["group"], crd["spec"]["names"]["kind"], crd["spec"]["scope"]) == (
        "autoscaling.x-k8s.io", "ProvisioningRequest", "Namespaced")
    # Kueue v0.19.2 creates autoscaling.x-k8s.io/v1 ProvisioningRequests: the storage version.
    assert [(v["name"], v["storage"]) for v in crd["spec"]["versions"]] == [("v1", True), ("v1beta1", False)]
    assert len(facts["_source"]["commit"]) == 40 and facts["_source"]["license"] == "Apache-2.0"


def test_the_pinned_kueue_serves_both_parts_without_a_feature_gate():
    gates = upstream.kueue_gates()
    assert gates["TopologyAwareScheduling"][-1] == {"version": "0.14", "default": True, "stage": "Beta"}
    assert "ProvisioningACC" not in gates  # GA in 0.14 and removed: the check is always on
    source = upstream.load("kueue_features.json")["_source"]
    assert source["ref"] == f"v{ChartVersions().kueue}"


def test_the_pinned_kueue_is_new_enough_and_serves_the_new_kinds():
    assert tuple(map(int, ChartVersions().kueue.split("."))) >= tuple(map(int, MIN_KUEUE.split(".")))
    for kind in ("Topology", "AdmissionCheck", "ProvisioningRequestConfig"):
        schema = crd_schema("kueue.x-k8s.io/v1beta2", kind)
        assert schema["properties"]["spec"]["type"] == "object", kind
    flavor = crd_schema("kueue.x-k8s.io/v1beta2", "ResourceFlavor")["properties"]["spec"]["properties"]
    queue = crd_schema("kueue.x-k8s.io/v1beta2", "ClusterQueue")["properties"]["spec"]["properties"]
    assert "topologyName" in flavor and "onFlavors" in queue["admissionChecksStrategy"]["properties"][
        "admissionChecks"]["items"]["properties"]
