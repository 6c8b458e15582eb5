"""cluster-version and the clouds' standard support (docs/design.md section 8, "Facts that age").

The table's answers are pinned on fixed days; over gRPC the pack judges on the suite's date (its
``today`` config, tests/suite_dates.py), at every calendar boundary for the ``dated`` tests: those
use minors whose end has passed on every such date and name the fix from the table for that date.
"""
from datetime import date

import pytest
import yaml

from nodepools.guardrails.spec import AUTOSCALER_IMAGE_BY_KUBERNETES
from nodepools.inventory.resource import Resource
from nodepools.policies.rules_versions import check_minimum
from nodepools.policies.settings import Settings
from nodepools.spec.kube_versions import (DEFAULT_KUBERNETES_VERSION, STANDARD_SUPPORT_END, in_standard_support,
                                          oldest_in_standard_support, standard_support_end)
from nodepools.vocabulary import Cloud

from policy_builders import fired, golden
from suite_dates import PINNED

GKE_CLUSTER = "gcp:container/cluster:Cluster"
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def messages(diags) -> list[str]:
    return sorted(d.message.split("\n", 1)[1] for d in diags if d.policy == "cluster-version")


@pytest.mark.parametrize("cloud, version, day, inside", [
    (Cloud.AWS, "1.34", date(2026, 12, 1), True), (Cloud.AWS, "1.34", date(2026, 12, 2), False),
    (Cloud.AWS, "1.35", date(2027, 3, 26), True), (Cloud.AWS, "1.35", date(2027, 3, 27), False),
    (Cloud.GCP, "1.34", date(2026, 8, 29), True), (Cloud.GCP, "1.34", date(2026, 8, 30), False),
    (Cloud.GCP, "1.35", date(2027, 2, 27), True), (Cloud.GCP, "1.35", date(2027, 2, 28), False),
    (Cloud.AWS, "1.36", date(2028, 1, 1), True), (Cloud.GCP, "1.33.5-gke.1080000", date(2026, 6, 30), False),
    (Cloud.AWS, "1.27", date(2025, 3, 23), False),
])
def test_a_minor_leaves_standard_support_on_its_calendar_date(cloud, version, day, inside):
    assert in_standard_support(cloud, version, day) is inside


def test_the_calendars_as_read_on_2026_12_02():
    eks = {m: d and d.isoformat() for m, d in STANDARD_SUPPORT_END[Cloud.AWS].items()}
    gke = {m: d and d.isoformat() for m, d in STANDARD_SUPPORT_END[Cloud.GCP].items()}
    assert eks == {"1.29": "2025-03-23", "1.30": "2025-07-23", "1.31": "2025-11-26", "1.32": "2026-03-23",
                   "1.33": "2026-07-29", "1.34": "2026-12-02", "1.35": "2027-03-27", "1.36": None}
    assert gke == {"1.29": "2025-02-28", "1.30": "2025-07-31", "1.31": "2025-11-30", "1.32": "2026-02-28",
                   "1.33": "2026-06-30", "1.34": "2026-08-30", "1.35": "2027-02-28", "1.36": None}
    day = date(2026, 12, 2)
    assert (oldest_in_standard_support(Cloud.AWS, day), oldest_in_standard_support(Cloud.GCP, day)) == ("1.35", "1.35")
    assert standard_support_end(Cloud.AWS, "1.28") == (date(2025, 3, 23), False)  # older than the table


def test_the_message_on_the_day_1_34_leaves_eks():
    cluster = Resource("aws:eks/cluster:Cluster", "urn:prod", "prod", {"name": "prod", "version": "1.34"})
    [finding] = check_minimum(cluster, Settings(), date(2026, 12, 2))
    assert (finding.field, finding.problem, finding.fix) == (
        "version", "version 1.34 left EKS standard support on 2026-12-02: EKS extended support is billed per "
        "cluster-hour", "set version to 1.35 or newer (upgrade one minor version at a time)")
    assert list(check_minimum(cluster, Settings(), date(2026, 12, 1))) == []


def test_below_the_minimum_and_out_of_support_is_one_finding():
    cluster = Resource(GKE_CLUSTER, "urn:g", "g", {"name": "g", "minMasterVersion": "1.31.4-gke.1"})
    [finding] = check_minimum(cluster, Settings(), date(2026, 12, 2))
    assert (finding.field, finding.problem, finding.fix) == (
        "minMasterVersion", "version 1.31.4-gke.1 is older than the minimum 1.32 and left GKE standard support on "
        "2025-11-30: GKE upgrades a cluster past its end of standard support automatically",
        "set minMasterVersion to 1.35 or newer (upgrade one minor version at a time)")


@pytest.mark.dated
def test_an_eks_cluster_past_standard_support_over_grpc(check, today):
    fx = golden().edit("prod", lambda p: p.update(version="1.33"))
    diags = check(fx)
    assert fired(diags) == {("cluster-version", fx.urn("prod"))}
    [diag] = diags
    assert diag.level == "advisory"
    assert messages(diags) == [
        "aws:eks/cluster:Cluster 'prod': version: version 1.33 left EKS standard support on 2026-07-29: EKS extended "
        f"support is billed per cluster-hour. Fix: set version to {oldest_in_standard_support(Cloud.AWS, today)} "
        "or newer (upgrade one minor version at a time)"]


@pytest.mark.dated
def test_a_gke_cluster_past_standard_support_over_grpc(check, today):
    gke = Resource.of(GKE_CLUSTER, "analytics", {"name": "analytics", "location": "us-central1",
                                                 "minMasterVersion": "1.34.1-gke.1829001"})
    diags = check(golden().add(gke))
    assert messages(diags) == [
        "gcp:container/cluster:Cluster 'analytics': minMasterVersion: version 1.34.1-gke.1829001 left GKE standard "
        "support on 2026-08-30: GKE upgrades a cluster past its end of standard support automatically. Fix: set "
        f"minMasterVersion to {oldest_in_standard_support(Cloud.GCP, today)} or newer (upgrade one minor version "
        "at a time)"]
    assert [d.urn for d in diags] == [gke.urn]


def test_a_minor_not_on_the_calendar_yet_and_a_channel_alias_are_not_reported(check):
    fx = golden().edit("prod", lambda p: p.update(version="1.36"))
    alias = Resource.of(GKE_CLUSTER, "analytics", {"name": "analytics", "minMasterVersion": "latest"})
    assert fired(check(fx.add(alias))) == set()


# The shipped stacks and the default are one minor, in standard support on both clouds on the day the
# calendars were read (the suite's pinned date): a release ships a current minor. From the day that minor
# leaves a cloud's standard support the pack says so (the next test), which is when the stacks and the
# table must move (CHANGELOG, issue 23). The default is one value (nodepools.spec.kube_versions;
# tests/architecture/test_one_home.py).
def test_every_shipped_stack_and_default_is_in_standard_support_on_both_clouds_when_the_calendars_were_read():
    versions = {p.name: yaml.safe_load(p.read_text())["config"]["nodepools:cluster"]["kubernetes_version"]
                for p in sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))}
    versions["DEFAULT_KUBERNETES_VERSION"] = DEFAULT_KUBERNETES_VERSION
    outside = {(name, cloud.value) for name, version in versions.items() for cloud in Cloud
               if not in_standard_support(cloud, version, PINNED)}
    assert outside == set(), f"{PINNED}: move the shipped stacks to a minor in standard support on both clouds"
    # cluster-autoscaler supports its own minor only: the default has its release.
    assert AUTOSCALER_IMAGE_BY_KUBERNETES[DEFAULT_KUBERNETES_VERSION].startswith(f"v{DEFAULT_KUBERNETES_VERSION}.")


@pytest.mark.dated
def test_the_shipped_minor_is_reported_from_the_day_it_leaves_eks_standard_support(check, today):
    fx = golden().edit("prod", lambda p: p.update(version=DEFAULT_KUBERNETES_VERSION))
    end, _ = standard_support_end(Cloud.AWS, DEFAULT_KUBERNETES_VERSION)
    assert end is not None
    expected = [] if today < end else [
        f"aws:eks/cluster:Cluster 'prod': version: version {DEFAULT_KUBERNETES_VERSION} left EKS standard support on "
        f"{end.isoformat()}: EKS extended support is billed per cluster-hour. Fix: set version to "
        f"{oldest_in_standard_support(Cloud.AWS, today)} or newer (upgrade one minor version at a time)"]
    assert messages(check(fx)) == expected
