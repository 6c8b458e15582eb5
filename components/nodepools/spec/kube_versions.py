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
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

END_OF_SUPPORT: dict[str, date] = {
    "1.32": date(2026, 2, 28),
    "1.33": date(2026, 6, 28),
    "1.34": date(2026, 10, 27),
    "1.35": date(2027, 2, 28),
    "1.36": date(2027, 6, 28),
}


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
