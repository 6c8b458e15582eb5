"""The Kubernetes minors, in one table (``MINORS``): for each, whether nodepools builds for it,
its upstream end of life, and on EKS and on GKE its end of standard support and whether the
cloud serves it, each cell citing the calendar it was read from and the day it was read.

Everything else is derived from the table and imported from here, never written again:
``SUPPORTED_KUBERNETES_VERSIONS`` (the minors a cluster's ``kubernetes_version`` and the
guardrails' may take), ``DEFAULT_KUBERNETES_VERSION`` (the newest supported minor every cloud
serves: the cluster settings', the guardrails' and the offline EKS's default),
``MINIMUM_KUBERNETES_VERSION`` (the oldest supported minor: the pack's ``minClusterVersion``
default), ``END_OF_SUPPORT`` and ``STANDARD_SUPPORT_END`` (what ``cluster-version`` judges).
A new minor, or a calendar read again, is a row (or a cell) here and nothing else; a row
that every cloud serves moves the default, which upgrades the clusters that rely on it: say
so in the CHANGELOG.

Also the features a stack may use, with the minor that made each usable on EKS and GKE.
"Usable" means on by default on a managed cluster: GA, or beta and enabled by
default (managed control planes never enable alpha gates). Read by the
``cluster-version`` policy; tests check the table against these sources:

- End of life per minor: kubernetes.io/releases/<minor> ("End Of Life Date").
- DRA ``resource.k8s.io/v1``: GA in 1.34 (kubernetes/enhancements:
  keps/sig-node/4381-dra-structured-parameters; docs/kubernetes-facts.md section 6.4).
- DRA extended resource (``DeviceClass.spec.extendedResourceName``): beta, on by
  default, in 1.36 (kubernetes/enhancements: keps/sig-scheduling/5004-dra-extended-resource;
  docs/kubernetes-facts.md section 6.4).
- Native sidecar containers (an init container with ``restartPolicy: Always``):
  beta and on by default in 1.29, GA in 1.33 (kubernetes/enhancements:
  keps/sig-node/753-sidecar-containers/kep.yaml).
- Native gang scheduling (pods naming a ``scheduling.k8s.io`` PodGroup in
  ``spec.schedulingGroup``): the minor that serves the API is 1.36 (``v1alpha2``;
  kubernetes/enhancements: keps/sig-scheduling/4671-gang-scheduling/kep.yaml, alpha v1.35 with
  ``spec.workloadRef``, beta v1.37; keps/sig-scheduling/5832-decouple-podgroup-api, alpha
  v1.36). The one exception to "usable": at 1.36 it is alpha behind the ``GenericWorkload``
  gate, which EKS and GKE standard clusters do not turn on; that is a note in the plan, not
  a verdict (docs/design.md section 9.3).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from types import MappingProxyType
from typing import Mapping

from nodepools.spec.errors import Problems
from nodepools.vocabulary import Cloud


@dataclass(frozen=True)
class Reading:
    """One reading of a cloud's release calendar: where, and on which day."""

    cloud: Cloud
    source: str
    read_on: date


@dataclass(frozen=True)
class CloudSupport:
    """A minor on one cloud, as ``reading`` found it. ``standard_support_end``: the day it leaves
    standard support (None: not on the calendar yet); ``served``: the cloud creates clusters at
    it in standard support (GKE: the Regular channel) on the day read."""

    reading: Reading
    standard_support_end: date | None
    served: bool


@dataclass(frozen=True)
class Minor:
    """One Kubernetes minor. ``supported``: nodepools builds clusters and guardrails for it (its
    cluster-autoscaler release is vendored and its schemas validate; tests check both).
    ``end_of_life``: upstream's (kubernetes.io/releases), where recorded."""

    minor: str
    supported: bool
    end_of_life: date | None
    eks: CloudSupport
    gke: CloudSupport

    def on(self, cloud: Cloud) -> CloudSupport:
        return {Cloud.AWS: self.eks, Cloud.GCP: self.gke}[cloud]


# Past its end of standard support an EKS cluster enters extended support, billed per
# cluster-hour; Google upgrades a GKE cluster (outside the Extended channel). The dates are
# as the calendars state them; endoflife.date's copies of both pages agreed on the day read.
# A minor has left standard support on its end date (the day extended support, or Google's
# upgrade, begins; issue 23's "1.34 leaves EKS standard support on 2026-12-02" reads the same).
EKS_2026_12_02 = Reading(Cloud.AWS, "Amazon EKS Kubernetes release calendar, https://docs.aws.amazon.com/eks/latest/"
                         "userguide/kubernetes-versions.html#kubernetes-release-calendar", date(2026, 12, 2))
GKE_2026_12_02 = Reading(Cloud.GCP, "GKE release schedule, https://cloud.google.com/kubernetes-engine/docs/"
                         "release-schedule", date(2026, 12, 2))


# Oldest first. The rows before the first supported minor are here for their end dates only
# (cluster-version names them for a cluster that still runs one). 1.36 was on neither
# calendar when read: no end date, not served, judged as in support.
MINORS: tuple[Minor, ...] = (
    Minor("1.29", supported=False, end_of_life=None,
          eks=CloudSupport(EKS_2026_12_02, date(2025, 3, 23), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2025, 2, 28), served=False)),
    Minor("1.30", supported=False, end_of_life=None,
          eks=CloudSupport(EKS_2026_12_02, date(2025, 7, 23), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2025, 7, 31), served=False)),
    Minor("1.31", supported=False, end_of_life=None,
          eks=CloudSupport(EKS_2026_12_02, date(2025, 11, 26), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2025, 11, 30), served=False)),
    Minor("1.32", supported=True, end_of_life=date(2026, 2, 28),
          eks=CloudSupport(EKS_2026_12_02, date(2026, 3, 23), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2026, 2, 28), served=False)),
    Minor("1.33", supported=True, end_of_life=date(2026, 6, 28),
          eks=CloudSupport(EKS_2026_12_02, date(2026, 7, 29), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2026, 6, 30), served=False)),
    Minor("1.34", supported=True, end_of_life=date(2026, 10, 27),
          eks=CloudSupport(EKS_2026_12_02, date(2026, 12, 2), served=False),
          gke=CloudSupport(GKE_2026_12_02, date(2026, 8, 30), served=False)),
    Minor("1.35", supported=True, end_of_life=date(2027, 2, 28),
          eks=CloudSupport(EKS_2026_12_02, date(2027, 3, 27), served=True),
          gke=CloudSupport(GKE_2026_12_02, date(2027, 2, 28), served=True)),
    Minor("1.36", supported=True, end_of_life=date(2027, 6, 28),
          eks=CloudSupport(EKS_2026_12_02, None, served=False),
          gke=CloudSupport(GKE_2026_12_02, None, served=False)),
)


def minor(version: str) -> tuple[int, int]:
    major, _, rest = version.partition(".")
    return int(major), int(rest.partition(".")[0])


SUPPORTED_KUBERNETES_VERSIONS: tuple[str, ...] = tuple(m.minor for m in MINORS if m.supported)
MINIMUM_KUBERNETES_VERSION: str = min(SUPPORTED_KUBERNETES_VERSIONS, key=minor)
DEFAULT_KUBERNETES_VERSION: str = max((m.minor for m in MINORS if m.supported and all(m.on(c).served for c in Cloud)),
                                      key=minor)
END_OF_SUPPORT: Mapping[str, date] = MappingProxyType({m.minor: m.end_of_life for m in MINORS
                                                       if m.end_of_life is not None})
STANDARD_SUPPORT_END: Mapping[Cloud, Mapping[str, date | None]] = MappingProxyType({
    cloud: MappingProxyType({m.minor: m.on(cloud).standard_support_end for m in MINORS}) for cloud in Cloud})
# What a cluster past standard support costs, per cloud (the same two calendars).
PAST_STANDARD_SUPPORT = MappingProxyType({
    Cloud.AWS: "EKS extended support is billed per cluster-hour",
    Cloud.GCP: "GKE upgrades a cluster past its end of standard support automatically",
})


def newest_served(cloud: Cloud) -> str:
    """The newest minor ``cloud`` serves: what it creates a cluster at when none is asked for
    (EKS: "the latest version available"; the offline engine's EKS answers the same)."""
    return max((m.minor for m in MINORS if m.on(cloud).served), key=minor)


def supported_minor_problem(version: str, problems: Problems, loc: str = "kubernetes_version") -> None:
    """The one check of a cluster's (or the guardrails') Kubernetes minor."""
    if version not in SUPPORTED_KUBERNETES_VERSIONS:
        problems.add(loc, f"kubernetes_version {version!r} is not supported "
                     f"(allowed: {', '.join(SUPPORTED_KUBERNETES_VERSIONS)})", version)


def standard_support_end(cloud: Cloud, version: str) -> tuple[date | None, bool]:
    """(the day ``version``'s minor leaves ``cloud``'s standard support, whether that day is exact).
    (None, True) for a minor not on the calendar yet; a minor older than every tabled one left
    before the oldest tabled end: (that end, False)."""
    table = STANDARD_SUPPORT_END[cloud]
    key = "%d.%d" % minor(version)
    if key in table:
        return table[key], True
    oldest = min(table, key=minor)
    return (table[oldest], False) if minor(version) < minor(oldest) else (None, True)


def in_standard_support(cloud: Cloud, version: str, today: date) -> bool:
    end, _ = standard_support_end(cloud, version)
    return end is None or today < end


def oldest_in_standard_support(cloud: Cloud, today: date) -> str | None:
    """The oldest tabled minor still in ``cloud``'s standard support on ``today``."""
    live = [m for m in STANDARD_SUPPORT_END[cloud] if in_standard_support(cloud, m, today)]
    return min(live, key=minor) if live else None


@dataclass(frozen=True)
class Feature:
    key: str
    title: str
    since: str  # the minor that made it usable
    source: str


DRA_V1 = Feature("dra-v1", "Dynamic Resource Allocation (resource.k8s.io/v1)", "1.34",
                 "kubernetes/enhancements: keps/sig-node/4381-dra-structured-parameters")
DRA_EXTENDED_RESOURCE = Feature("dra-extended-resource", "DRA extended resource (DeviceClass.spec.extendedResourceName)",
                                "1.36", "kubernetes/enhancements: keps/sig-scheduling/5004-dra-extended-resource")
NATIVE_SIDECARS = Feature("native-sidecars", "native sidecar containers (init container restartPolicy: Always)",
                          "1.29", "kubernetes/enhancements: keps/sig-node/753-sidecar-containers")
NATIVE_GANG = Feature("native-gang", "native gang scheduling (a scheduling.k8s.io PodGroup, pod spec.schedulingGroup)",
                      "1.36", "kubernetes/enhancements: keps/sig-scheduling/4671-gang-scheduling")
FEATURES: tuple[Feature, ...] = (DRA_V1, DRA_EXTENDED_RESOURCE, NATIVE_SIDECARS, NATIVE_GANG)
