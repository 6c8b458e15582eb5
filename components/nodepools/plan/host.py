"""``python -m nodepools.plan.host REQUEST``: run a project's program in this Python (the
project's own virtualenv) for ``nodepools plan``, and write the recorded run as JSON.

The request (JSON): ``protocol``, ``project`` (its root), ``stack``, ``preview``, ``out``
(the file to write). The result: the run (``nodepools.plan.run.encode_run``), the
failure if the program failed, or the project error that stopped it.
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import nodepools
from nodepools.plan.locate import internal_error_message
from nodepools.plan.project import ProjectError, load_project
from nodepools.plan.run import HOST_PROTOCOL, encode_run, run_here


def main(argv: list[str]) -> int:
    request = json.loads(argv[0])
    if request.get("protocol") != HOST_PROTOCOL:
        print(f"nodepools {nodepools.__version__} in {sys.prefix} speaks plan host protocol {HOST_PROTOCOL}, "
              f"not {request.get('protocol')}: install the same nodepools version there", file=sys.stderr)
        return 2
    out: dict = {"protocol": HOST_PROTOCOL, "nodepools": nodepools.__version__}
    try:
        done = run_here(load_project(Path(request["project"])), request["stack"], preview=request["preview"])
    except ProjectError as err:
        out["project_error"] = {"message": str(err), "file": str(err.file) if err.file else None, "line": err.line}
    except Exception as err:  # noqa: BLE001 - the plan shows a message, never this process's traceback
        out["project_error"] = {"message": internal_error_message(err), "file": None, "line": None}
    else:
        out.update(run=encode_run(done.run), error=asdict(done.error) if done.error else None,
                   secret_keys=done.secret_keys)
    Path(request["out"]).write_text(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
