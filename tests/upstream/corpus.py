"""Upstream manifests (docs/design.md section 6 was settled on them), placed on the aws-dev platform.

``index.yaml`` lists each manifest by repository, pinned commit and path, with the
pack's expected verdicts. Every manifest is vendored, unmodified, under
``vendored/<owner>/<repo>/<path>`` (licenses and attribution: NOTICE.md), so the corpus
runs on any machine; ``vendor.py`` copies a new entry in from a git clone of its
repository (``make vendor-upstream``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from nodepools.offline.analyzer import Diagnostic
from nodepools.inventory.resource import Resource

HERE = Path(__file__).resolve().parent
VENDORED = HERE / "vendored"
# Kinds the pack reads as workloads (docs/design.md section 3), and the GPU Operator's ClusterPolicy.
WORKLOAD_KINDS = {("apps/v1", k) for k in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet")} | {
    ("batch/v1", "Job"), ("batch/v1", "CronJob"), ("v1", "Pod"), ("jobset.x-k8s.io/v1alpha2", "JobSet"),
    ("kubeflow.org/v1", "PyTorchJob"), ("nvidia.com/v1", "ClusterPolicy")}


@dataclass(frozen=True)
class Entry:
    repo: str
    commit: str
    path: str
    category: str
    verdicts: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.repo}:{self.path}"


def entries() -> list[Entry]:
    raw = yaml.safe_load((HERE / "index.yaml").read_text())
    return [Entry(e["repo"], e["commit"], e["path"], e["category"], tuple(e.get("verdicts") or ()))
            for e in raw["manifests"]]


def vendored_path(entry: Entry) -> Path:
    return VENDORED / entry.repo / entry.path


def read(entry: Entry) -> str:
    """The vendored manifest (a missing file is an error, never a skipped case)."""
    return vendored_path(entry).read_text()


def resources(text: str) -> list[Resource]:
    """Each workload document as pulumi-kubernetes would register it (its manifest as inputs)."""
    out = []
    for doc in yaml.safe_load_all(text):
        if not isinstance(doc, dict) or (doc.get("apiVersion"), doc.get("kind")) not in WORKLOAD_KINDS:
            continue
        group = doc["apiVersion"] if "/" in doc["apiVersion"] else f"core/{doc['apiVersion']}"
        meta = doc.get("metadata") or {}
        name = meta.get("name") or meta.get("generateName", "").rstrip("-") or doc["kind"].lower()
        out.append(Resource.of(f"kubernetes:{group}:{doc['kind']}", name, doc))
    return out


def verdicts(diagnostics: list[Diagnostic], names: dict[str, str]) -> list[str]:
    """``<policy> <violation|cannot-judge> <resource name or 'stack'>`` per diagnostic, sorted."""
    out = []
    for d in diagnostics:
        kind = "cannot-judge" if d.cannot_judge else "violation"
        out.append(f"{d.policy} {kind} {names.get(d.urn, 'stack') if d.urn else 'stack'}")
    return sorted(out)


def judge(pack: Any, platform: list, entry_resources: list[Resource], config: Any = None) -> list[Diagnostic]:
    return pack.check(list(platform) + entry_resources, config)
