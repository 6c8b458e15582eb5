"""The shipped JSON Schema of plan reports (nodepools/plan/report.schema.json), as the tests read it."""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jsonschema


def schema() -> dict[str, Any]:
    return json.loads(resources.files("nodepools.plan").joinpath("report.schema.json").read_text())


def schema_errors(document: Any) -> list[str]:
    """Where ``document`` breaks the schema (empty when it is a valid report)."""
    validator = jsonschema.Draft202012Validator(schema())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
