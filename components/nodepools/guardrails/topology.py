"""Kueue's topology-aware scheduling from the pools: one ``Topology`` per family of topology
labels the training pools carry, and the training flavors pointing at it (docs/design.md
section 9.3).

- A ``Topology`` (``kueue.x-k8s.io/v1beta2``) lists node labels broadest first with
  ``kubernetes.io/hostname`` last: Kueue then assigns pods to nodes and honours node taints
  (kubernetes-sigs/kueue: site/content/en/docs/concepts/topology_aware_scheduling.md and
  site/static/examples/tas/sample-gpu-queues.yaml @v0.19.2). Its levels are immutable, so
  each family of labels has its own Topology, named after it (``nodepools.clouds.topology``).
- A training pool's flavor gets ``spec.topologyName`` only where the cloud labels every node
  of the pool (``pool_topology``): Kueue ignores nodes missing a level, and a flavor whose
  nodes all miss one admits nothing.
- Once ``topologyName`` is set, the flavor's ``nodeLabels``, ``tolerations`` and
  ``topologyName`` are immutable (the ResourceFlavor CRD's CEL rules @v0.19.2), and Kueue
  keeps a flavor a ClusterQueue uses from being deleted. So a topology flavor is named
  ``<pool>-<digest of those three fields>``: when one changes, the new flavor is created, the
  ClusterQueue moves to it, and the old one is deleted after, instead of an update the API
  server refuses.
- Every Kueue object nodepools builds is ``v1beta2``, served from Kueue 0.15.0
  (kubernetes-sigs/kueue: apis/kueue/v1beta2 first tagged v0.15.0), where topology-aware
  scheduling is on by default (gate TopologyAwareScheduling beta since 0.14) and the
  ProvisioningRequest admission check GA (gate removed): the pinned 0.19.2 needs no feature
  gate (``upstream/kueue_features.json``).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

from nodepools.clouds.topology import TopologyFamily, pool_topology
from nodepools.guardrails import derive
from nodepools.guardrails.spec_fields import ChartVersions, GuardrailsFields
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import KUEUE_API_VERSION

MIN_KUEUE = "0.15.0"
DIGEST_LENGTH = 8


def families(cluster: ClusterPools, pools: Sequence[PoolSpec]) -> list[TopologyFamily]:
    """The topology families of ``pools`` (the queued ones), each once, in pool order."""
    out: list[TopologyFamily] = []
    for pool in pools:
        family = pool_topology(pool, cluster.cloud)
        if family is not None and family not in out:
            out.append(family)
    return out


def topology_object(family: TopologyFamily) -> dict[str, Any]:
    return {"apiVersion": KUEUE_API_VERSION, "kind": "Topology", "metadata": {"name": family.name},
            "spec": {"levels": [{"nodeLabel": label} for label in family.levels]}}


def with_topology(flavor: dict[str, Any], family: TopologyFamily | None) -> dict[str, Any]:
    """``flavor`` pointing at ``family``'s Topology and renamed after its immutable fields."""
    if family is None:
        return flavor
    spec = {**flavor["spec"], "topologyName": family.name}
    fixed = {k: spec.get(k) for k in ("nodeLabels", "tolerations", "topologyName")}
    digest = hashlib.sha256(json.dumps(fixed, sort_keys=True).encode()).hexdigest()[:DIGEST_LENGTH]
    name = f"{flavor['metadata']['name']}-{digest}"
    return {**flavor, "metadata": {**flavor["metadata"], "name": name}, "spec": spec}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def kueue_version_problems(spec: GuardrailsFields, cluster: ClusterPools, problems: Problems,
                           spec_root: tuple[str | int, ...]) -> None:
    """A Kueue older than the API nodepools writes is refused, naming what is configured."""
    if _version(spec.charts.kueue) >= _version(MIN_KUEUE):
        return
    if not (derive.kueue_enabled(spec, cluster.pools) and spec.addons.kueue.enabled):
        return
    uses = ["the kueue.x-k8s.io/v1beta2 queues and flavors"]
    queued = [p for c in derive.queued_classes(cluster.pools) for p in derive.of_class(cluster.pools, c)]
    named = families(cluster, queued)
    if named:
        uses.append(f"the Topology {', '.join(f.name for f in named)}")
    problems.add(spec_root + ("charts", "kueue"), f"Kueue {spec.charts.kueue} is too old for what nodepools "
                 f"configures here ({', '.join(uses)}), which needs Kueue {MIN_KUEUE} or newer (allowed: "
                 f"{MIN_KUEUE} and newer; the pinned default is {ChartVersions().kueue})",
                 spec.charts.kueue)
