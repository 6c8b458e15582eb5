"""The section 8 corpus (``section8.yaml``): upstream files, their twins and the contract's verdicts.

A case is a vendored upstream file (plus the files it names in ``with``) on a shipped platform;
a twin is the same documents with dotted-path edits. Both are turned into the resources
pulumi-kubernetes would register (``kubernetes:<group>/<version>:<Kind>``, the manifest as inputs).
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from corpus import HERE, VENDORED
from nodepools.inventory.resource import Resource

# The documents a stack of these projects registers that the pack reads (section 8's header).
KINDS = {
    ("apps/v1", k) for k in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")} | {
    ("batch/v1", "Job"), ("batch/v1", "CronJob"), ("v1", "Pod"),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
    ("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob"), ("ray.io/v1", "RayService"),
    ("kubeflow.org/v2beta1", "MPIJob"), ("kubeflow.org/v1", "PyTorchJob"), ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"), ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"),
    ("batch.volcano.sh/v1alpha1", "Job"), ("serving.kserve.io/v1beta1", "InferenceService"),
    ("resource.k8s.io/v1", "DeviceClass"), ("resource.k8s.io/v1", "ResourceClaim"),
    ("resource.k8s.io/v1", "ResourceClaimTemplate"), ("nvidia.com/v1", "ClusterPolicy"),
    ("karpenter.sh/v1", "NodePool")}
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True)
class Case:
    id: str
    repo: str
    commit: str
    path: str
    category: str
    platform: str
    verdicts: tuple[str, ...]
    also: tuple[str, ...] = ()
    config: dict = field(default_factory=dict)
    without: tuple[str, ...] = ()
    edits: tuple[dict, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        return (self.path, *self.also)


def _raw() -> list[dict]:
    return yaml.safe_load((HERE / "section8.yaml").read_text())["cases"]


def cases() -> list[Case]:
    """Every upstream case and every twin (``<case>#<twin>``)."""
    out = []
    for c in _raw():
        base = Case(c.get("name") or f"{c['repo']}:{c['path']}", c["repo"], c["commit"], c["path"], c["category"],
                    c.get("platform", "aws-dev"), tuple(c["verdicts"]), tuple(c.get("with", ())),
                    c.get("config") or {}, tuple(c.get("without", ())))
        out.append(base)
        for t in c.get("twins", ()):
            out.append(Case(f"{base.id}#{t['name']}", base.repo, base.commit, base.path, base.category, base.platform,
                            tuple(t["verdicts"]), base.also, base.config, base.without, tuple(t["edits"])))
    return out


def vendored_files() -> set[str]:
    return {f"{c.repo}/{p}" for c in cases() for p in c.files}


def _steps(path: str) -> list[str | int]:
    return [int(i) if i else k for k, i in _STEP.findall(path)]


def _set(doc: Any, path: str, value: Any) -> None:
    *parents, last = _steps(path)
    for step in parents:
        doc = doc.setdefault(step, {}) if isinstance(step, str) else doc[step]
    doc[last] = copy.deepcopy(value)


def _address(doc: dict) -> str:
    meta = doc.get("metadata") or {}
    return f"{doc.get('kind')}/{meta.get('name') or meta.get('generateName', '').rstrip('-')}"


def documents(case: Case) -> list[dict]:
    """The case's documents, twins' edits applied (an edit naming no document is an error)."""
    docs = [d for p in case.files for d in yaml.safe_load_all((VENDORED / case.repo / p).read_text())
            if isinstance(d, dict)]
    for edit in case.edits:
        [doc] = [d for d in docs if _address(d) == edit["doc"]] or [None]
        if doc is None:
            raise LookupError(f"{case.id}: no document {edit['doc']}")
        for path, value in (edit.get("set") or {}).items():
            _set(doc, path, value)
    return docs


def resources(case: Case) -> list[Resource]:
    out = []
    for doc in documents(case):
        if (doc.get("apiVersion"), doc.get("kind")) not in KINDS:
            continue
        group = doc["apiVersion"] if "/" in doc["apiVersion"] else f"core/{doc['apiVersion']}"
        name = _address(doc).split("/", 1)[1] or doc["kind"].lower()
        out.append(Resource.of(f"kubernetes:{group}:{doc['kind']}", name, doc))
    return out
