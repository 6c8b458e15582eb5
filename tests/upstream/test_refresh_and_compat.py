"""tools/refresh_upstream.py on a tiny synthetic upstream repository (no network), and
the README's compatibility table against the generator."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nodepools.guardrails.upstream import compat

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location("refresh_upstream", ROOT / "tools" / "refresh_upstream.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FLAGS_GO = '''var (
\tclusterName = flag.String("cluster-name", "", "Autoscaled cluster name")
\tscaleDownDelay = flag.Duration("scale-down-delay-after-add", 10*time.Minute,
\t\t"How long after scale up that scale down evaluation resumes")
\tnodeGroupAutoDiscoveryFlag = multiStringFlag(
\t\t"node-group-auto-discovery", "One or more definition(s) of node group auto-discovery.")
\tbypassed = pflag.StringSlice("bypassed-scheduler-names", []string{}, "Names of schedulers to bypass.")

\t// Deprecated flags
\tscaleDownEnabled = flag.Bool("scale-down-enabled", true, "[Deprecated] Should CA scale down the cluster")
)

func init() {
\tif pflag.CommandLine.Changed("scale-down-enabled") {
\t\tklog.Warningf("--scale-down-enabled flag is deprecated")
\t}
}
'''
README = '''# AWS
```json
{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Action": ["autoscaling:DescribeAutoScalingGroups", "ec2:DescribeImages"], "Resource": ["*"]},
  {"Effect": "Allow", "Action": "autoscaling:SetDesiredCapacity", "Resource": ["*"]}]}
```
```json
{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["autoscaling:DescribeTags"], "Resource": ["*"]}]}
```
'''
CHART = "cluster-autoscaler/charts/cluster-autoscaler"
CLUSTERROLE = """{{- if and .Values.rbac.create .Values.rbac.clusterScoped -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ template "cluster-autoscaler.fullname" . }}
rules:
{{- if (eq .Values.cloudProvider "coreweave") }}
  - apiGroups: ["compute.coreweave.com"]
    resources: ["nodepools"]
    verbs: ["get"]
{{- end }}
  - apiGroups: [""]
    resources: ["nodes"]
    verbs:
    - get
{{- if (eq .Values.cloudProvider "kwok") }}
    - create
{{- end }}
  - apiGroups: ["autoscaling.x-k8s.io"]
    resources: ["capacitybuffers"]
    verbs: ["get", "list", "watch"]
{{- if .Values.rbac.additionalRules }}
{{ toYaml .Values.rbac.additionalRules | indent 2 }}
{{- end }}
{{- end -}}
"""
BUFFER_CRD_PATH = "cluster-autoscaler/apis/config/crd/autoscaling.x-k8s.io_capacitybuffers.yaml"
BUFFER_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: capacitybuffers.autoscaling.x-k8s.io}
spec:
  group: autoscaling.x-k8s.io
  names: {kind: CapacityBuffer, plural: capacitybuffers}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, description: old}}}}
  - name: v1beta1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {replicas: {type: integer}}},
                                                          status: {type: object}}}}
"""
PROVREQ_CRD = "cluster-autoscaler/apis/config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml"
PROVREQ_CRD_YAML = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: provisioningrequests.autoscaling.x-k8s.io}
spec:
  group: autoscaling.x-k8s.io
  names: {kind: ProvisioningRequest, plural: provisioningrequests}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: DESCRIPTION
        properties: {spec: {type: object}}
"""


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          check=True, capture_output=True, text=True).stdout


def _commit(repo: Path, files: dict[str, str], *tags: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "c")
    for tag in tags:
        _git(repo, "tag", tag)


@pytest.fixture
def autoscaler_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "autoscaler"
    repo.mkdir()
    _git(repo, "init", "-q")
    old = FLAGS_GO.replace('\tscaleDownEnabled = flag.Bool("scale-down-enabled", true, "[Deprecated] Should CA scale '
                           'down the cluster")\n', '\tscaleDownEnabled = flag.Bool("scale-down-enabled", true, '
                           '"Should CA scale down the cluster")\n')
    _commit(repo, {"cluster-autoscaler/main.go": old, "cluster-autoscaler/cloudprovider/aws/README.md": README,
                   f"{CHART}/Chart.yaml": "version: 9.59.0\nappVersion: 1.35.0\n",
                   f"{CHART}/values.yaml": "image:\n  tag: v1\nextraArgs:\n  v: 4\nnodeSelector: {}\ntolerations: []\n",
                   f"{CHART}/templates/deployment.yaml": "  - --cloud-provider={{ .Values.cloudProvider }}\n"
                   "  - --node-group-auto-discovery=asg:tag=x\n", PROVREQ_CRD: PROVREQ_CRD_YAML,
                   f"{CHART}/templates/clusterrole.yaml": CLUSTERROLE},
            "cluster-autoscaler-1.35.0", "cluster-autoscaler-1.35.1", "cluster-autoscaler-chart-9.59.0")
    (repo / "cluster-autoscaler/main.go").unlink()
    # A reworded description only: the schema the API server validates against is the same.
    _commit(repo, {"cluster-autoscaler/config/flags/flags.go": FLAGS_GO, BUFFER_CRD_PATH: BUFFER_CRD,
                   PROVREQ_CRD: PROVREQ_CRD_YAML.replace("DESCRIPTION", "Reworded.")},
            "cluster-autoscaler-1.36.0", "cluster-autoscaler-1.36.2", "cluster-autoscaler-1.37.0-rc.0")
    return repo / ".git"


def test_refresh_rewrites_the_vendored_autoscaler_facts_from_a_git_directory(autoscaler_repo, tmp_path):
    tool = _tool()
    package = tmp_path / "pkg"
    (package / "upstream").mkdir(parents=True)
    pins = {"minors": ["1.34", "1.35", "1.36"], "autoscaler_chart": "9.59.0"}
    written = tool.refresh({"autoscaler": autoscaler_repo}, package=package, readme=None, pins=pins)
    assert sorted(p.relative_to(package).as_posix() for p in written) == [
        "schemas/autoscaling.x-k8s.io_capacitybuffers_v1alpha1.json",
        "schemas/autoscaling.x-k8s.io_capacitybuffers_v1beta1.json", "upstream/autoscaler_flags.json",
        "upstream/autoscaler_iam.json", "upstream/autoscaler_releases.json", "upstream/capacitybuffers_crd_v1.36.2.json",
        "upstream/chart_cluster-autoscaler.json", "upstream/crd_provisioningrequests.json"]
    read = {p.name: json.loads(p.read_text()) for p in written}
    releases = read["autoscaler_releases.json"]["releases"]
    # The highest patch per minor; a minor without a release is absent (the test on
    # the real files then fails); release candidates never count.
    assert {m: r["image"] for m, r in releases.items()} == {"1.35": "v1.35.1", "1.36": "v1.36.2"}
    assert releases["1.36"]["commit"] == _git(autoscaler_repo.parent, "rev-parse", "HEAD").strip()
    flags = read["autoscaler_flags.json"]["flags"]
    assert flags["v1.36.2"] == {"path": "cluster-autoscaler/config/flags/flags.go", "deprecated": ["scale-down-enabled"],
                                "flags": ["bypassed-scheduler-names", "cluster-name", "node-group-auto-discovery",
                                          "scale-down-delay-after-add", "scale-down-enabled"]}
    assert (flags["v1.35.1"]["path"], flags["v1.35.1"]["deprecated"]) == ("cluster-autoscaler/main.go", [])
    # The first policy of the README, at the newest release; string actions count too.
    assert read["autoscaler_iam.json"]["actions"] == ["autoscaling:DescribeAutoScalingGroups",
                                                      "autoscaling:SetDesiredCapacity", "ec2:DescribeImages"]
    assert read["autoscaler_iam.json"]["_source"]["ref"] == "cluster-autoscaler-1.36.2"
    chart = read["chart_cluster-autoscaler.json"]
    assert (chart["version"], chart["app_version"], chart["template_flags"]) == (
        "9.59.0", "1.35.0", ["cloud-provider", "node-group-auto-discovery"])
    assert chart["keys"] == {"image": {"tag": None}, "extraArgs": {"v": None}, "nodeSelector": {},
                             "tolerations": None}
    # What the chart's ClusterRole grants whatever the values: conditional rules and verbs dropped.
    assert chart["clusterrole_rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]},
        {"apiGroups": ["autoscaling.x-k8s.io"], "resources": ["capacitybuffers"], "verbs": ["get", "list", "watch"]}]
    # The CapacityBuffer CRD of the release that ships one, whole (the guardrails install it), and
    # one trimmed schema per served version.
    crd = read["capacitybuffers_crd_v1.36.2.json"]
    assert crd["_source"]["ref"] == "cluster-autoscaler-1.36.2" and crd["crd"]["spec"]["versions"][1]["subresources"]
    beta = json.loads((package / "schemas/autoscaling.x-k8s.io_capacitybuffers_v1beta1.json").read_text())
    assert beta["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"] == {
        "metadata": {"type": "object"}, "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}
    # The CRD of the newest release, and each release's schema digest (descriptions left out).
    crd = read["crd_provisioningrequests.json"]
    assert crd["crd"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] == "Reworded."
    assert crd["_source"]["ref"] == "cluster-autoscaler-1.36.2"
    assert sorted(crd["schema_digests"]) == ["v1.35.1", "v1.36.2"] and len(set(crd["schema_digests"].values())) == 1


KUEUE_FEATURES_GO = """var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
\tTopologyAwareScheduling: {
\t\t{Version: version.MustParse("0.9"), Default: false, PreRelease: featuregate.Alpha},
\t\t{Version: version.MustParse("0.14"), Default: true, PreRelease: featuregate.Beta},
\t},
\tLocalQueueMetrics: {
\t\t{Version: version.MustParse("0.10"), Default: false, PreRelease: featuregate.Alpha},
\t},
}
"""


def test_kueue_feature_gates_are_read_with_every_stage():
    sys.path.insert(0, str(ROOT / "tools"))
    import upstream_facts
    assert upstream_facts.kueue_feature_gates(KUEUE_FEATURES_GO) == {
        "LocalQueueMetrics": [{"version": "0.10", "default": False, "stage": "Alpha"}],
        "TopologyAwareScheduling": [{"version": "0.9", "default": False, "stage": "Alpha"},
                                    {"version": "0.14", "default": True, "stage": "Beta"}]}


def test_refresh_names_the_missing_chart_tag(autoscaler_repo, tmp_path):
    tool = _tool()
    (tmp_path / "upstream").mkdir()
    with pytest.raises(Exception, match="cluster-autoscaler-chart-9.99.0"):
        tool.refresh({"autoscaler": autoscaler_repo}, package=tmp_path, readme=None,
                     pins={"minors": ["1.36"], "autoscaler_chart": "9.99.0"})


DRA_CHART = "deployments/helm/dra-driver-nvidia-gpu"
DRA_GPU_CLASS = """{{- if .Values.resources.gpus.enabled }}
{{- $resourceApiVersion := (include "dra-driver-nvidia-gpu.resourceApiVersion" . | trim) }}
---
apiVersion: {{ $resourceApiVersion }}
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
  {{- if eq $resourceApiVersion "resource.k8s.io/v1" }}
  extendedResourceName: nvidia.com/gpu
  {{- end }}
{{- end }}
"""
DRA_MIG_CLASS = """{{- if .Values.resources.gpus.enabled }}
---
apiVersion: {{ include "dra-driver-nvidia-gpu.resourceApiVersion" . }}
kind: DeviceClass
metadata:
  name: mig.nvidia.com
spec:
  selectors:
  - cel:
      expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"
{{- end }}
"""


def test_refresh_reads_the_dra_driver_chart_and_the_device_classes_it_publishes(tmp_path):
    """The templates as kubernetes-sigs/dra-driver-nvidia-gpu writes them at v0.4.1 (abridged)."""
    repo = tmp_path / "dra"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit(repo, {f"{DRA_CHART}/Chart.yaml": 'version: "0.4.1"\nappVersion: "0.4.1"\n',
                   f"{DRA_CHART}/values.yaml": "resourceApiVersion: ''\nresources:\n  gpus:\n    enabled: true\n",
                   f"{DRA_CHART}/templates/deviceclass-gpu.yaml": DRA_GPU_CLASS,
                   f"{DRA_CHART}/templates/deviceclass-mig.yaml": DRA_MIG_CLASS,
                   f"{DRA_CHART}/templates/kubeletplugin.yaml": "kind: DaemonSet\n",
                   "docs/install.md": "helm install dra-driver-nvidia-gpu oci://registry.k8s.io/dra/charts/x \\\n"},
            "v0.4.1")
    (tmp_path / "pkg" / "upstream").mkdir(parents=True)
    [written] = _tool().refresh({"dra": repo / ".git"}, package=tmp_path / "pkg", readme=None, pins={"dra": "0.4.1"})
    chart = json.loads(written.read_text())
    assert (written.name, chart["version"], chart["oci_reference"]) == (
        "chart_dra-driver-nvidia-gpu.json", "0.4.1", "oci://registry.k8s.io/dra/charts/x")
    assert chart["keys"] == {"resourceApiVersion": None, "resources": {"gpus": {"enabled": None}}}
    assert chart["device_classes"] == [
        {"name": "gpu.nvidia.com", "expression": "device.driver == 'gpu.nvidia.com' && "
         "device.attributes['gpu.nvidia.com'].type == 'gpu'", "enabled_by": "resources.gpus.enabled",
         "extended_resource_api": "resource.k8s.io/v1", "extended_resource_name": "nvidia.com/gpu"},
        {"name": "mig.nvidia.com", "expression": "device.driver == 'gpu.nvidia.com' && "
         "device.attributes['gpu.nvidia.com'].type == 'mig'", "enabled_by": "resources.gpus.enabled"}]


def test_the_readme_compatibility_table_is_the_generated_one():
    readme = (ROOT / "README.md").read_text()
    assert compat.BEGIN in readme, "README.md has no generated compatibility table"
    assert compat.replace_table(readme) == readme, (
        "README.md's compatibility table is stale: run python tools/refresh_upstream.py or paste\n" + compat.table())


def test_the_compatibility_table_lists_every_supported_minor_with_its_autoscaler_image():
    rows = [r.split(" | ") for r in compat.table().splitlines()[2:]]
    assert [(r[0].strip("| "), r[1]) for r in rows] == [
        ("1.32", "v1.32.7"), ("1.33", "v1.33.6"), ("1.34", "v1.34.5"), ("1.35", "v1.35.2"), ("1.36", "v1.36.1")]


CRD = '''apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: A widget.
        required: [spec]
        properties:
          apiVersion: {type: string, description: v}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            x-kubernetes-validations: [{rule: "true"}]
            properties:
              size: {type: integer, minimum: 1, description: how big}
          status: {type: object}
  - name: v1alpha1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object}}
'''


def test_trim_crd_keeps_one_version_without_descriptions_cel_or_status():
    sys.path.insert(0, str(ROOT / "tools"))
    import upstream_facts
    trimmed = upstream_facts.trim_crd(CRD, "v1", "example/widgets: crd.yaml @ v1.0.0")
    assert trimmed["metadata"] == {"name": "widgets.example.com",
                                   "annotations": {"nodepools.io/source": "example/widgets: crd.yaml @ v1.0.0"}}
    (version,) = trimmed["spec"]["versions"]
    assert version["schema"]["openAPIV3Schema"] == {"type": "object", "required": ["spec"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 1}}}}}
    with pytest.raises(ValueError, match=r"widgets.example.com has no version 'v2' \(has: v1, v1alpha1\)"):
        upstream_facts.trim_crd(CRD, "v2", "x")
