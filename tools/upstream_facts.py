"""Pure readers of upstream files: each takes a file's text and returns the fact nodepools vendors.

``tools/refresh_upstream.py`` feeds them files read with ``git show TAG:path``
from fetched repositories; the tests feed them synthetic text. No I/O here.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import yaml

# kubernetes/autoscaler tags one release per patch as cluster-autoscaler-MAJOR.MINOR.PATCH
# (release candidates and charts carry suffixes / other prefixes and never match).
_RELEASE_TAG = re.compile(r"^cluster-autoscaler-(\d+)\.(\d+)\.(\d+)$")
# Flags are declared as flag.Bool("name", ...), pflag.StringSlice("name", ...) or
# multiStringFlag("name", ...) in cluster-autoscaler/config/flags/flags.go.
_FLAG = re.compile(r"\b(?:p?flag\.[A-Z]\w*|multiStringFlag)\(\s*\"([a-z0-9][a-z0-9-]*)\"")
# A flag's declaration ends where the next statement, comment or the var block's ")" starts.
_DECLARATION_END = re.compile(r"\n\s*(?:\w+\s*(?:=|:=)|//|\))")
_CHART_FLAG = re.compile(r"-\s+--([a-z0-9][a-z0-9-]*)")
# Kueue's feature table (pkg/features/kube_features.go): one ``Name: {`` block of
# ``{Version: version.MustParse("0.9"), Default: false, PreRelease: featuregate.Alpha},`` lines per gate.
_GATE_TABLE = re.compile(r"defaultVersionedFeatureGates = map\[[^\]]+\][\w.]+\{\n(.*?)\n\}", re.S)
_GATE = re.compile(r"^\t(\w+): \{\n((?:\t\t\{[^\n]*\n)+)\t\},?$", re.M)
_GATE_STAGE = re.compile(r'Version: version\.MustParse\("([\d.]+)"\), Default: (true|false), '
                         r"PreRelease: featuregate\.(\w+)")
_JSON_BLOCK = re.compile(r"```json\n(.*?)```", re.S)


def latest_releases(tags: list[str], minors: list[str]) -> dict[str, str]:
    """The highest cluster-autoscaler release tag of every minor that has one."""
    best: dict[str, tuple[int, str]] = {}
    for tag in tags:
        m = _RELEASE_TAG.match(tag)
        if not m:
            continue
        minor, patch = f"{m[1]}.{m[2]}", int(m[3])
        if minor in minors and patch >= best.get(minor, (-1, ""))[0]:
            best[minor] = (patch, tag)
    return {minor: best[minor][1] for minor in minors if minor in best}


def image_tag(release_tag: str) -> str:
    """cluster-autoscaler-1.36.1 -> v1.36.1 (the registry.k8s.io image tag)."""
    return "v" + release_tag.removeprefix("cluster-autoscaler-")


def autoscaler_flags(go_source: str) -> dict[str, list[str]]:
    """Flag names declared in flags.go, and those whose usage says they are deprecated."""
    matches = list(_FLAG.finditer(go_source))
    names, deprecated = [], []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(go_source)
        declaration = go_source[m.start():end]
        if stop := _DECLARATION_END.search(declaration):
            declaration = declaration[:stop.start()]
        names.append(m[1])
        if "deprecated" in declaration.lower():
            deprecated.append(m[1])
    return {"flags": sorted(set(names)), "deprecated": sorted(set(deprecated))}


def value_shape(values: Any) -> Any:
    """The key tree of a chart's values.yaml: mapping -> {key: subtree}, anything else -> None.
    An empty mapping stays ``{}``: the chart takes any keys there (nodeSelector, affinity)."""
    if isinstance(values, dict):
        return {str(k): value_shape(v) for k, v in values.items()}
    return None


def chart_facts(chart_yaml: str, values_yaml: str) -> dict[str, Any]:
    chart = yaml.safe_load(chart_yaml)
    return {"version": str(chart["version"]), "app_version": str(chart.get("appVersion", "")),
            "keys": value_shape(yaml.safe_load(values_yaml) or {})}


def chart_template_flags(template: str) -> list[str]:
    """Flags a chart's Deployment template passes itself (``- --name``)."""
    return sorted(set(_CHART_FLAG.findall(template)))


def iam_actions(readme: str) -> list[str]:
    """Every action of the first IAM policy in the AWS provider README: the
    "Full Cluster Autoscaler Features Policy" (auto-discovery plus dynamic instance types)."""
    block = _JSON_BLOCK.search(readme)
    if block is None:
        raise ValueError("no ```json policy block in the README")
    policy = json.loads(block[1])
    return sorted({a for s in policy["Statement"] for a in ([s["Action"]] if isinstance(s["Action"], str)
                                                            else s["Action"])})


def _drop(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _drop(v) for k, v in schema.items() if k not in ("description", "x-kubernetes-validations")}
    if isinstance(schema, list):
        return [_drop(v) for v in schema]
    return schema


def trim_crd(crd_yaml: str, version: str, source: str) -> dict[str, Any]:
    """The CRD reduced to what offline validation needs (schemas/README.md): the one
    served version, apiVersion/kind/metadata/spec only, no descriptions, no CEL rules."""
    crd = yaml.safe_load(crd_yaml)
    served = [v for v in crd["spec"]["versions"] if v["name"] == version]
    if not served:
        raise ValueError(f"{crd['metadata']['name']} has no version {version!r} "
                         f"(has: {', '.join(v['name'] for v in crd['spec']['versions'])})")
    root = served[0]["schema"]["openAPIV3Schema"]
    properties = root.get("properties", {})
    kept = {k: _drop(properties[k]) for k in ("apiVersion", "kind", "spec") if k in properties}
    kept["metadata"] = {"type": "object"}
    schema = {"type": "object", "properties": {k: kept[k] for k in ("apiVersion", "kind", "metadata", "spec")
                                               if k in kept}}
    if "spec" in root.get("required", []):
        schema["required"] = ["spec"]
    names = crd["spec"]["names"]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": crd["metadata"]["name"], "annotations": {"nodepools.io/source": source}},
            "spec": {"group": crd["spec"]["group"], "names": {"kind": names["kind"], "plural": names["plural"]},
                     "scope": crd["spec"]["scope"],
                     "versions": [{"name": version, "served": True, "storage": bool(served[0].get("storage")),
                                   "schema": {"openAPIV3Schema": schema}}]}}


def kueue_feature_gates(go_source: str) -> dict[str, list[dict[str, Any]]]:
    """Every gate of Kueue's feature table with its stages: ``{version, default, stage}``, oldest first."""
    table = _GATE_TABLE.search(go_source)
    if table is None:
        raise ValueError("no defaultVersionedFeatureGates table in the feature source")
    gates = {}
    for gate in _GATE.finditer(table[1] + "\n"):
        gates[gate[1]] = [{"version": m[1], "default": m[2] == "true", "stage": m[3]}
                          for m in _GATE_STAGE.finditer(gate[2])]
    return dict(sorted(gates.items()))


def crd_schema_digest(crd_yaml: str) -> str:
    """What an API server validates against: each version's name, served/storage flags and
    schema, descriptions dropped (sha256 of their canonical JSON)."""
    crd = yaml.safe_load(crd_yaml)
    key = [(ver["name"], ver.get("served"), ver.get("storage"), _drop(ver.get("schema")))
           for ver in crd["spec"]["versions"]]
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def served_versions(crd_yaml: str) -> list[str]:
    """The versions a CRD serves, storage version last-but-listed as upstream orders them."""
    crd = yaml.safe_load(crd_yaml)
    return [v["name"] for v in crd["spec"]["versions"] if v.get("served")]


# A template line that opens or closes a Helm block ({{- if ...}}, {{- with ...}}, {{- range ...}}, {{- end }}).
_BLOCK_OPEN = re.compile(r"^\s*\{\{-?\s*(if|with|range)\b")
_BLOCK_END = re.compile(r"^\s*\{\{-?\s*end\b")


def clusterrole_rules(template: str) -> list[dict[str, Any]]:
    """The rules a chart's ClusterRole grants whatever the values: the template's body
    with every conditional block inside its outer ``if`` dropped (cloud-specific rules,
    PSP, ``rbac.additionalRules``), parsed as YAML."""
    depth, kept = 0, []
    for line in template.splitlines():
        if _BLOCK_OPEN.match(line):
            depth += 1
            continue
        if _BLOCK_END.match(line):
            depth -= 1
            continue
        if depth == 1 and "{{" not in line:
            kept.append(line)
    body = yaml.safe_load("\n".join(kept)) or {}
    return [{"apiGroups": list(r.get("apiGroups", [])), "resources": list(r.get("resources", [])),
             "verbs": list(r.get("verbs", [])), **({"resourceNames": r["resourceNames"]} if "resourceNames" in r else {})}
            for r in body.get("rules", [])]


_FEATURE_GATE = re.compile(r"([A-Z][A-Za-z]+)=\{\{\s*\.Values\.settings\.featureGates\.([A-Za-z]+)\s*\}\}")


def feature_gates(deployment_template: str) -> dict[str, str]:
    """Karpenter's FEATURE_GATES as its chart builds them: gate name -> ``settings.featureGates`` key."""
    return dict(_FEATURE_GATE.findall(deployment_template))


# NVIDIA's DRA driver chart (kubernetes-sigs/dra-driver-nvidia-gpu: deployments/helm/dra-driver-nvidia-gpu/
# templates/deviceclass-*.yaml): each template publishes one DeviceClass behind a values switch, with one
# CEL selector and, on resource.k8s.io/v1 only, an extendedResourceName.
_CLASS_SWITCH = re.compile(r"\{\{-?\s*if\s+\.Values\.([\w.]+)\s*-?\}\}")
_CLASS_NAME = re.compile(r"^kind: DeviceClass\s*\nmetadata:\s*\n\s+name:\s*(\S+)", re.M)
_CLASS_EXPRESSION = re.compile(r"^\s+expression:\s*\"(.*)\"\s*$", re.M)
_CLASS_EXTENDED = re.compile(r'if eq \$resourceApiVersion "(resource\.k8s\.io/\w+)"\s*\}\}\s*\n'
                             r"\s*extendedResourceName:\s*(\S+)")


def dra_device_class(template: str) -> dict[str, Any] | None:
    """The DeviceClass one chart template publishes: ``name``, ``expression``, the values key that
    switches it on (``enabled_by``) and, where the template sets one, ``extended_resource_name`` with
    the only API version it is written on (``extended_resource_api``); None for another template."""
    name = _CLASS_NAME.search(template)
    if name is None:
        return None
    switch, expressions = _CLASS_SWITCH.search(template), _CLASS_EXPRESSION.findall(template)
    if switch is None or len(expressions) != 1:
        raise ValueError(f"DeviceClass {name[1]}: expected one values switch and one CEL selector")
    out: dict[str, Any] = {"name": name[1], "expression": expressions[0], "enabled_by": switch[1]}
    if extended := _CLASS_EXTENDED.search(template):
        out.update(extended_resource_api=extended[1], extended_resource_name=extended[2])
    return out


_OCI_CHART = re.compile(r"helm install \S+ (oci://\S+)")


def oci_chart_reference(install_doc: str) -> str:
    """The OCI reference the install guide installs the chart from."""
    found = _OCI_CHART.search(install_doc)
    if found is None:
        raise ValueError("no `helm install NAME oci://...` line in the install guide")
    return found[1]
