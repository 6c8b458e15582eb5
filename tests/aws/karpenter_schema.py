"""Validate Karpenter objects against the vendored v1.14.1 CRD schemas, plus the CEL
rules of those CRDs that our objects could break (jsonschema cannot run CEL)."""
from __future__ import annotations

import re
from typing import Any

import jsonschema

from nodepools.guardrails.schemas import crd_schema

RESTRICTED_TAG_PREFIXES = ("kubernetes.io/cluster",)
RESTRICTED_TAGS = ("eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
                   "karpenter.k8s.aws/ec2nodeclass")
ALLOWED_KARPENTER_LABELS = ("karpenter.sh/capacity-type", "karpenter.sh/nodepool")


def strict(schema: Any) -> Any:
    """Unknown fields fail, as the API server's strict field validation does."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


def _cel_problems(obj: dict[str, Any]) -> list[str]:
    problems = []
    spec = obj["spec"]
    if obj["kind"] == "NodePool":
        template = spec["template"]
        keys = list(template.get("metadata", {}).get("labels", {}))
        keys += [r["key"] for r in template["spec"]["requirements"]]
        for key in keys:
            domain = key.split("/")[0] if "/" in key else ""
            if domain.endswith("karpenter.sh") and key not in ALLOWED_KARPENTER_LABELS:
                problems.append(f"label domain karpenter.sh is restricted: {key}")
        for r in template["spec"]["requirements"]:
            if r["operator"] == "In" and not r.get("values"):
                problems.append(f"In requirement without values: {r['key']}")
            if r["operator"] in ("Gt", "Lt", "Gte", "Lte") and not (
                    len(r.get("values", [])) == 1 and re.fullmatch(r"\d+", r["values"][0])):
                problems.append(f"{r['operator']} needs one positive integer: {r['key']}")
    else:
        for key in spec.get("tags", {}):
            if key in RESTRICTED_TAGS or key.startswith(RESTRICTED_TAG_PREFIXES) or not key:
                problems.append(f"restricted tag {key}")
        if ("role" in spec) == ("instanceProfile" in spec):
            problems.append("exactly one of role and instanceProfile")
        aliases = [t for t in spec["amiSelectorTerms"] if "alias" in t]
        if aliases and (len(spec["amiSelectorTerms"]) != 1 or set(aliases[0]) != {"alias"}):
            problems.append("alias is mutually exclusive with other AMI terms")
        for field in ("subnetSelectorTerms", "securityGroupSelectorTerms"):
            for term in spec[field]:
                if "id" in term and len(term) != 1:
                    problems.append(f"{field}: id is mutually exclusive")
    return problems


def validate_karpenter(obj: dict[str, Any]) -> None:
    jsonschema.validate(obj, strict(crd_schema(obj["apiVersion"], obj["kind"])), cls=jsonschema.Draft7Validator)
    assert _cel_problems(obj) == []
