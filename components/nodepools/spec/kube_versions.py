"""Kubernetes minors the library supports, their end of support, and the features
a stack may use with the minor that made each usable on EKS and GKE.

"Usable" means on by default on a managed cluster: GA, or beta and enabled by
default (managed control planes never enable alpha gates). Read by the
``cluster-version`` policy; tests check the table against these sources:

- End of life per minor: kubernetes.io/releases/<minor> ("End Of Life Date"):
  1.32 2026-02-28, 1.33 2026-06-28, 1.34 2026-10-27, 1.35 2027-02-28, 1.36 2027-06-28.
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
- End of standard support per cloud (``STANDARD_SUPPORT_END``): see the comment on the table.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from nodepools.vocabulary import Cloud

END_OF_SUPPORT: dict[str, date] = {
    "1.32": date(2026, 2, 28),
    "1.33": date(2026, 6, 28),
    "1.34": date(2026, 10, 27),
    "1.35": date(2027, 2, 28),
    "1.36": date(2027, 6, 28),
}

# Each minor's end of standard support on each managed service, read on 2026-12-02
# (the dates as the calendars state them; endoflife.date's copies of both pages agree):
# - EKS: "Amazon EKS Kubernetes release calendar",
#   https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html#kubernetes-release-calendar
#   ("End of standard support": 1.29 March 23, 2025; 1.30 July 23, 2025; 1.31 November 26, 2025;
#   1.32 March 23, 2026; 1.33 July 29, 2026; 1.34 December 2, 2026; 1.35 March 27, 2027).
#   Past it a cluster enters extended support, billed per cluster-hour.
# - GKE: "GKE release schedule", https://cloud.google.com/kubernetes-engine/docs/release-schedule
#   ("End of standard support": 1.29 2025-02-28; 1.30 2025-07-31; 1.31 2025-11-30; 1.32 2026-02-28;
#   1.33 2026-06-30; 1.34 2026-08-30; 1.35 2027-02-28).
#   Past it Google upgrades the cluster (outside the Extended channel).
# 1.36 had no end of standard support on either calendar yet: None, judged as in support.
# A minor has left standard support on its end date (the day extended support, or Google's
# upgrade, begins; issue 23's "1.34 leaves EKS standard support on 2026-12-02" reads the same).
STANDARD_SUPPORT_END: dict[Cloud, dict[str, date | None]] = {
    Cloud.AWS: {"1.29": date(2025, 3, 23), "1.30": date(2025, 7, 23), "1.31": date(2025, 11, 26),
                "1.32": date(2026, 3, 23), "1.33": date(2026, 7, 29), "1.34": date(2026, 12, 2),
                "1.35": date(2027, 3, 27), "1.36": None},
    Cloud.GCP: {"1.29": date(2025, 2, 28), "1.30": date(2025, 7, 31), "1.31": date(2025, 11, 30),
                "1.32": date(2026, 2, 28), "1.33": date(2026, 6, 30), "1.34": date(2026, 8, 30),
                "1.35": date(2027, 2, 28), "1.36": None},
}
# What a cluster past standard support costs, per cloud (the same two pages).
PAST_STANDARD_SUPPORT = {
    Cloud.AWS: "EKS extended support is billed per cluster-hour",
    Cloud.GCP: "GKE upgrades a cluster past its end of standard support automatically",
}


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


def minor(version: str) -> tuple[int, int]:
    major, _, rest = version.partition(".")
    return int(major), int(rest.partition(".")[0])
