"""Rewrite nodepools' vendored upstream facts from fetched upstream git repositories.

Bumping a pin is one command plus a diff: change the pin (``ChartVersions``
defaults, ``nodepools.spec.kube_versions.MINORS``, ``upstream.GMP_RELEASE``), fetch
the repositories (any clone or bare mirror with tags), then

    make refresh-upstream AUTOSCALER_GIT=... KUEUE_GIT=... NVIDIA_GIT=... GMP_GIT=... DRA_GIT=...
    (or: python tools/refresh_upstream.py --autoscaler-git DIR ...; env NODEPOOLS_<NAME>_GIT)

and read ``git diff``: new patch releases, removed or deprecated flags, chart
keys that moved, CRD fields that changed, and the README compatibility table.
A repository left out is skipped; its vendored files stay as they are.
Fetching is not done here (no network): the paths are git directories.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import upstream_facts as facts  # noqa: E402
import yaml  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "components" / "nodepools" / "guardrails"
LICENSE = "Apache-2.0"
REPOS = {"autoscaler": "kubernetes/autoscaler", "kueue": "kubernetes-sigs/kueue",
         "nvidia": "NVIDIA/k8s-device-plugin", "gmp": "GoogleCloudPlatform/prometheus-engine",
         "karpenter": "aws/karpenter-provider-aws", "dra": "kubernetes-sigs/dra-driver-nvidia-gpu"}
KUEUE_CRDS = ("resourceflavors", "clusterqueues", "localqueues", "topologies", "admissionchecks",
              "provisioningrequestconfigs")
KUEUE_FEATURES = "pkg/features/kube_features.go"
# The ProvisioningRequest CRD cluster-autoscaler serves (it does not install it; its chart neither).
PROVISIONING_CRD = "cluster-autoscaler/apis/config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml"
GMP_CRDS = ("clusterrules",)
# The autoscaler's flags moved from main.go to config/flags/flags.go in 1.35.
AUTOSCALER_FLAG_FILES = ("cluster-autoscaler/config/flags/flags.go", "cluster-autoscaler/main.go")
# The CapacityBuffer CRD (warm capacity, docs/design.md section 9): from 1.34 (v1alpha1; v1beta1 from 1.35).
CAPACITY_BUFFER_CRD = "cluster-autoscaler/apis/config/crd/autoscaling.x-k8s.io_capacitybuffers.yaml"


class Git:
    def __init__(self, git_dir: str | Path) -> None:
        self.git_dir = str(git_dir)

    def _run(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", self.git_dir, *args], check=True, capture_output=True,
                              text=True).stdout

    def tags(self) -> list[str]:
        return self._run("tag", "--list").split()

    def show(self, ref: str, path: str) -> str:
        return self._run("show", f"{ref}:{path}")

    def show_first(self, ref: str, paths: tuple[str, ...]) -> tuple[str, str]:
        """The first of ``paths`` that exists at ``ref``, and its text."""
        listed = set(self._run("ls-tree", "-r", "--name-only", ref, "--", *paths).split())
        for path in paths:
            if path in listed:
                return path, self.show(ref, path)
        raise FileNotFoundError(f"none of {', '.join(paths)} at {ref} in {self.git_dir}")

    def ls(self, ref: str, directory: str) -> list[str]:
        """The paths of the entries of ``directory`` at ``ref``."""
        return [f"{directory}/{name}" for name in sorted(self._run("ls-tree", "--name-only", f"{ref}:{directory}").split())]

    def has(self, ref: str, path: str) -> bool:
        return bool(self._run("ls-tree", "--name-only", ref, "--", path).strip())

    def commit(self, ref: str) -> str:
        return self._run("rev-parse", f"{ref}^{{commit}}").strip()


def _source(repo: str, path: str, ref: str, commit: str) -> dict[str, str]:
    return {"repository": repo, "path": path, "ref": ref, "commit": commit, "license": LICENSE}


def _pins() -> dict[str, Any]:
    from nodepools.guardrails import upstream
    from nodepools.guardrails.spec import ChartVersions
    from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
    charts = ChartVersions()
    return {"minors": list(SUPPORTED_KUBERNETES_VERSIONS), "autoscaler_chart": charts.cluster_autoscaler,
            "kueue": charts.kueue, "nvidia": charts.nvidia_device_plugin, "gmp": upstream.GMP_RELEASE,
            "karpenter": charts.karpenter, "dra": charts.nvidia_dra_driver}


def autoscaler_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    repo = REPOS["autoscaler"]
    releases = facts.latest_releases(git.tags(), pins["minors"])
    readme_path = "cluster-autoscaler/cloudprovider/aws/README.md"
    flags = {}
    for tag in releases.values():
        path, source = git.show_first(tag, AUTOSCALER_FLAG_FILES)
        flags[facts.image_tag(tag)] = {"path": path, **facts.autoscaler_flags(source)}
    newest = releases[max(releases, key=lambda m: tuple(map(int, m.split("."))))]
    chart_ref = f"cluster-autoscaler-chart-{pins['autoscaler_chart']}"
    chart_dir = "cluster-autoscaler/charts/cluster-autoscaler"
    chart = facts.chart_facts(git.show(chart_ref, f"{chart_dir}/Chart.yaml"), git.show(chart_ref, f"{chart_dir}/values.yaml"))
    chart["template_flags"] = facts.chart_template_flags(git.show(chart_ref, f"{chart_dir}/templates/deployment.yaml"))
    chart["clusterrole_rules"] = facts.clusterrole_rules(git.show(chart_ref, f"{chart_dir}/templates/clusterrole.yaml"))
    return {
        **capacity_buffer_files(git, releases),
        "autoscaler_releases.json": {
            "_source": {"repository": repo, "ref": "tags cluster-autoscaler-MAJOR.MINOR.PATCH (highest patch per "
                        "supported minor)", "license": LICENSE},
            "releases": {m: {"image": facts.image_tag(t), "tag": t, "commit": git.commit(t)} for m, t in releases.items()}},
        "autoscaler_flags.json": {
            "_source": {"repository": repo, "path": " or ".join(AUTOSCALER_FLAG_FILES),
                        "ref": "each release of autoscaler_releases.json", "license": LICENSE},
            "flags": flags},
        "autoscaler_iam.json": {
            "_source": _source(repo, readme_path + " (Full Cluster Autoscaler Features Policy)", newest,
                               git.commit(newest)),
            "actions": facts.iam_actions(git.show(newest, readme_path))},
        "chart_cluster-autoscaler.json": {"_source": _source(repo, chart_dir, chart_ref, git.commit(chart_ref)), **chart},
        "crd_provisioningrequests.json": {
            "_source": _source(repo, PROVISIONING_CRD, newest, git.commit(newest)),
            # The schema each supported release serves: a test holds them all to the one installed.
            "schema_digests": {facts.image_tag(t): facts.crd_schema_digest(git.show(t, PROVISIONING_CRD))
                               for t in releases.values()},
            "crd": yaml.safe_load(git.show(newest, PROVISIONING_CRD))},
    }


def capacity_buffer_files(git: Git, releases: dict[str, str]) -> dict[str, Any]:
    """Per release that has it, the whole CapacityBuffer CRD (the guardrails install it where
    cluster-autoscaler serves the buffers: its chart ships no CRDs), and the trimmed schema of
    each served version for offline validation: v1alpha1 from the oldest release serving it
    (the one whose controller speaks it), v1beta1 from the newest."""
    repo, out, serving = REPOS["autoscaler"], {}, {}
    ordered = sorted(releases.values(), key=lambda t: tuple(map(int, facts.image_tag(t)[1:].split("."))))
    for tag in ordered:
        if not git.has(tag, CAPACITY_BUFFER_CRD):
            continue
        text, commit = git.show(tag, CAPACITY_BUFFER_CRD), git.commit(tag)
        out[f"capacitybuffers_crd_{facts.image_tag(tag)}.json"] = {
            "_source": _source(repo, CAPACITY_BUFFER_CRD, tag, commit), "crd": yaml.safe_load(text)}
        for version in facts.served_versions(text):
            serving.setdefault(version, []).append((tag, text, commit))
    for version, found in serving.items():
        tag, text, commit = found[0] if version == "v1alpha1" else found[-1]
        out[f"schemas/autoscaling.x-k8s.io_capacitybuffers_{version}.json"] = facts.trim_crd(
            text, version, f"{repo}: {CAPACITY_BUFFER_CRD} @ {tag} ({commit})")
    return out


def karpenter_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    """The pinned Karpenter chart: version, values key tree, its FEATURE_GATES (gate -> value key)
    and the CRDs it ships with the versions each serves (charts/karpenter/crds are links into
    pkg/apis/crds)."""
    ref, repo, chart_dir = f"v{pins['karpenter']}", REPOS["karpenter"], "charts/karpenter"
    chart = facts.chart_facts(git.show(ref, f"{chart_dir}/Chart.yaml"), git.show(ref, f"{chart_dir}/values.yaml"))
    chart["feature_gates"] = facts.feature_gates(git.show(ref, f"{chart_dir}/templates/deployment.yaml"))
    crds = {}
    for name in git.ls(ref, f"{chart_dir}/crds"):
        text = git.show(ref, name)
        if "\n" not in text.strip() and text.strip().endswith(".yaml"):  # a symbolic link: its target path
            text = git.show(ref, _resolve(name, text.strip()))
        crd = yaml.safe_load(text)
        crds[crd["metadata"]["name"]] = facts.served_versions(text)
    chart["crds"] = dict(sorted(crds.items()))
    # The tag's Chart.yaml still names the previous release: Karpenter's release job sets the
    # published chart's version (and the image) after tagging, in a "Stable Release updates"
    # commit that changes nothing else in the chart. The published version is the tag's.
    chart["published_version"] = pins["karpenter"]
    return {"chart_karpenter.json": {"_source": _source(repo, chart_dir, ref, git.commit(ref)), **chart}}


def _resolve(link: str, target: str) -> str:
    """The repository path a relative symbolic link at ``link`` points to."""
    parts = list(Path(link).parent.parts)
    for piece in Path(target).parts:
        if piece == "..":
            parts.pop()
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)


def kueue_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    ref, repo = f"v{pins['kueue']}", REPOS["kueue"]
    commit = git.commit(ref)
    chart = facts.chart_facts(git.show(ref, "charts/kueue/Chart.yaml"), git.show(ref, "charts/kueue/values.yaml"))
    out: dict[str, Any] = {
        "chart_kueue.json": {"_source": _source(repo, "charts/kueue", ref, commit), **chart},
        "kueue_features.json": {"_source": _source(repo, KUEUE_FEATURES, ref, commit),
                                "gates": facts.kueue_feature_gates(git.show(ref, KUEUE_FEATURES))}}
    for name in KUEUE_CRDS:
        path = f"config/components/crd/bases/kueue.x-k8s.io_{name}.yaml"
        out[f"schemas/kueue.x-k8s.io_{name}.json"] = facts.trim_crd(git.show(ref, path), "v1beta2",
                                                                   f"{repo}: {path} @ {ref} ({commit})")
    return out


def nvidia_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    ref, repo, chart_dir = f"v{pins['nvidia']}", REPOS["nvidia"], "deployments/helm/nvidia-device-plugin"
    chart = facts.chart_facts(git.show(ref, f"{chart_dir}/Chart.yaml"), git.show(ref, f"{chart_dir}/values.yaml"))
    return {"chart_nvidia-device-plugin.json": {"_source": _source(repo, chart_dir, ref, git.commit(ref)), **chart}}


def dra_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    """NVIDIA's DRA driver chart at the pin: version, values key tree, the OCI reference its install
    guide uses, and the DeviceClasses its templates publish (docs/design.md section 11.4)."""
    ref, repo, chart_dir = f"v{pins['dra']}", REPOS["dra"], "deployments/helm/dra-driver-nvidia-gpu"
    chart = facts.chart_facts(git.show(ref, f"{chart_dir}/Chart.yaml"), git.show(ref, f"{chart_dir}/values.yaml"))
    chart["oci_reference"] = facts.oci_chart_reference(git.show(ref, "docs/install.md"))
    classes = [facts.dra_device_class(git.show(ref, path)) for path in git.ls(ref, f"{chart_dir}/templates")
               if path.rsplit("/", 1)[-1].startswith("deviceclass-")]
    chart["device_classes"] = sorted((c for c in classes if c is not None), key=lambda c: c["name"])
    return {"chart_dra-driver-nvidia-gpu.json": {"_source": _source(repo, chart_dir, ref, git.commit(ref)), **chart}}


def gmp_files(git: Git, pins: dict[str, Any]) -> dict[str, Any]:
    ref, repo = pins["gmp"], REPOS["gmp"]
    commit = git.commit(ref)
    out = {}
    for name in GMP_CRDS:
        path = f"charts/operator/crds/monitoring.googleapis.com_{name}.yaml"
        out[f"schemas/monitoring.googleapis.com_{name}.json"] = facts.trim_crd(
            git.show(ref, path), "v1", f"{repo}: {path} @ {ref} ({commit})")
    return out


READERS = {"autoscaler": autoscaler_files, "kueue": kueue_files, "nvidia": nvidia_files, "gmp": gmp_files,
           "karpenter": karpenter_files, "dra": dra_files}


def refresh(git_dirs: dict[str, str | Path], package: Path = PACKAGE, readme: Path | None = ROOT / "README.md",
            pins: dict[str, Any] | None = None) -> list[Path]:
    """Rewrite the vendored files of every repository given; returns the paths written.
    JSON goes under ``package/upstream`` (``schemas/...`` under ``package``)."""
    pins = pins or _pins()
    written = []
    for name, git_dir in git_dirs.items():
        for rel, data in READERS[name](Git(git_dir), pins).items():
            path = package / rel if rel.startswith("schemas/") else package / "upstream" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=1) + "\n")
            written.append(path)
    if readme is not None and readme.exists():
        from nodepools.guardrails.upstream import compat
        compat.reload()
        text = readme.read_text()
        new = compat.replace_table(text)
        if new != text:
            readme.write_text(new)
            written.append(readme)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in READERS:
        parser.add_argument(f"--{name}-git", default=os.environ.get(f"NODEPOOLS_{name.upper()}_GIT") or None,
                            help=f"git directory of {REPOS[name]} with its tags (env NODEPOOLS_{name.upper()}_GIT)")
    args = parser.parse_args(argv)
    dirs = {name: getattr(args, f"{name}_git") for name in READERS if getattr(args, f"{name}_git")}
    if not dirs:
        parser.error("give at least one --<repo>-git directory (" + ", ".join(f"--{n}-git" for n in READERS) + ")")
    for path in refresh(dirs):
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
