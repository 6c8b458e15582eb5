"""``python -m nodepools.plan.annotations PLAN.json ...``: a plan's report as GitHub Actions
annotations, one per error and per policy finding, each on the file and line to change.

Works on a report of any status (ok, violations, invalid, failed): each error and each
finding already carries its ``file``, ``line`` and, for config, its ``config_path``
(``nodepools plan`` computed them: the stack file's line for config, the project line
that registered a resource otherwise). Mandatory findings and errors are ``::error``,
advisory findings ``::warning``; what preview cannot decide stays in the report (it is not a
finding to act on in review).
Format: docs.github.com "Workflow commands for GitHub Actions".
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator

EPILOG = """\
Run it after the plan, whatever the plan's result, from the repository root
(annotation paths are relative to the working directory):

  nodepools plan --stack prod --json-file plan-out/prod.json || status=$?
  python -m nodepools.plan.annotations plan-out/prod.json
  exit ${status:-0}

exit status: 0 the reports were read (whatever they found); 2 a report cannot be
read or is not a nodepools plan report.
"""


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _shown(path: str) -> str:
    """Relative to the working directory (the repository root in a workflow) when inside it."""
    try:
        resolved = Path(path).resolve()
        return os.path.relpath(resolved, Path.cwd()) if resolved.is_relative_to(Path.cwd()) else str(resolved)
    except (OSError, ValueError):
        return path


def annotation(level: str, file: str | None, line: int | None, title: str, message: str) -> str:
    where = []
    if file:
        where.append(f"file={_escape_property(_shown(file))}")
        if line:
            where.append(f"line={line}")
    where.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(where)}::{_escape_data(message)}"


def github_annotations(plan: dict[str, Any]) -> Iterator[str]:
    for error in plan.get("errors") or []:
        message = error["message"]
        if error.get("config_path") and not message.startswith(error["config_path"]):
            message = f"{error['config_path']}: {message}"
        yield annotation("error", error.get("file"), error.get("line"), f"nodepools {error['kind']}", message)
    policy = plan.get("policy") or {}
    for row in policy.get("violations", []):
        level = "error" if row["enforcement"] == "mandatory" else "warning"
        finding = " ".join(row["message"].splitlines()[1:]) or row["message"]
        where = f"{row['config_path']}: " if row.get("config_path") else ""
        yield annotation(level, row.get("file"), row.get("line"), f"nodepools policy {row['policy']}",
                         f"{where}{row['resource']}: {finding}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nodepools.plan.annotations", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Print GitHub Actions annotations for nodepools plan JSON reports (--json-file).",
        epilog=EPILOG)
    parser.add_argument("reports", nargs="+", metavar="PLAN.json", help="a report written by nodepools plan")
    args = parser.parse_args(argv)
    status = 0
    for name in args.reports:
        try:
            plan = json.loads(Path(name).read_text())
            if not isinstance(plan, dict) or "schemaVersion" not in plan or "status" not in plan:
                raise ValueError("not a nodepools plan report (no schemaVersion/status)")
            lines = list(github_annotations(plan))
        except RecursionError:
            print(f"::error title=nodepools plan::cannot read the plan {_escape_data(name)}: nested too deeply to read")
            status = 2
            continue
        except (OSError, ValueError) as err:
            print(f"::error title=nodepools plan::cannot read the plan {_escape_data(name)}: "
                  f"{_escape_data(str(err))}")
            status = 2
            continue
        except Exception as err:  # noqa: BLE001 - a report of another shape is a message and exit 2, never a traceback
            print(f"::error title=nodepools plan::cannot read the plan {_escape_data(name)}: not a nodepools plan "
                  f"report ({type(err).__name__}: {_escape_data(str(err))})")
            status = 2
            continue
        for line in lines:
            print(line)
    return status


if __name__ == "__main__":
    sys.exit(main())
