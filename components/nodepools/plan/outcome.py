"""The plan's outcome as its JSON report states it: error rows, the report of a plan that
stopped before the program ran, and the status and exit code (``report.schema.json``).

Error kinds: the input is wrong (usage, project, config: status ``invalid``), something could
not run or finish (program, policy, timeout, output, internal: ``failed``), or a signal stopped
the plan (interrupted: ``interrupted``). Exit status: 0 ok; 1 a mandatory policy is violated;
2 invalid or failed; 128 + the signal's number when interrupted (130 SIGINT, 143 SIGTERM).
"""
from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_POLICY, EXIT_ERROR = 0, 1, 2
INVALID_KINDS = ("usage", "project", "config")
RESULTS = {"ok": "ok", "violations": "mandatory policy violated", "invalid": "error", "failed": "error",
           "interrupted": "interrupted"}


def error(kind: str, message: str, file: Path | str | None = None, line: int | None = None,
          config_path: str | None = None) -> dict[str, Any]:
    """One row of the report's ``errors``."""
    return {"kind": kind, "message": message, "config_path": config_path,
            "file": str(file) if file is not None else None, "line": line}


def empty(project_name: str | None, project_dir: Path | None, stack: str,
          errors: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of a plan that stopped before the program ran."""
    return {"project": project_name, "stack": stack, "program": None,
            "engine": "pulumi mock engine (preview)", "python": None,
            "error": {"kind": errors[0]["kind"], "lines": [e["message"] for e in errors]}, "errors": errors,
            "resources": [], "counts": {}, "pools": [], "layout": None, "cluster": None, "alerts": None,
            "addons": [], "notes": [], "policy": None, "placement": None, "outputs": {},
            "workload_projects": [], "project_dir": str(project_dir) if project_dir else None, "today": None}


def status_of(plan: dict[str, Any]) -> tuple[str, int]:
    """(status, exit code) of a plan report."""
    kinds = [e["kind"] for e in plan.get("errors") or []]
    if "interrupted" in kinds:  # the report's ``signal`` names the signal
        return "interrupted", 128 + signal.Signals[plan.get("signal") or "SIGINT"].value
    if kinds:
        return ("invalid" if all(k in INVALID_KINDS for k in kinds) else "failed"), EXIT_ERROR
    policy = plan.get("policy") or {}
    if any(v.get("enforcement") == "mandatory" for v in policy.get("violations", [])):
        return "violations", EXIT_POLICY
    return "ok", EXIT_OK
