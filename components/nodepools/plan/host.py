"""``python -m nodepools.plan.host REQUEST``: run a project's program in this Python (the
project's own virtualenv, or the plan's) for ``nodepools plan``, and write the recorded run
as JSON.

The request (JSON): ``protocol``, ``project`` (its root), ``stack``, ``preview``, ``out``
(the file to write). Before the program starts, ``out`` says ``running``; once it has
returned, ``out`` is replaced (atomically) by the result: the run
(``nodepools.plan.stack_run.encode_run``), the failure if the program failed, or the project
error that stopped it. A file that still says ``running`` when this process has ended means
the program ended the process before the run finished (``nodepools.plan.isolated``). The
process then ends at once, whatever threads the program left running.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import nodepools
from nodepools.plan.locate import internal_error_message
from nodepools.plan.project import ProjectError, load_project
from nodepools.plan.run import run_here
from nodepools.plan.stack_run import HOST_PROTOCOL, encode_run


def main(argv: list[str]) -> int:
    request = json.loads(argv[0])
    if request.get("protocol") != HOST_PROTOCOL:
        print(f"nodepools {nodepools.__version__} in {sys.prefix} speaks plan host protocol {HOST_PROTOCOL}, "
              f"not {request.get('protocol')}: install the same nodepools version there", file=sys.stderr)
        return 2
    out_file = Path(request["out"])
    out: dict[str, Any] = {"protocol": HOST_PROTOCOL, "nodepools": nodepools.__version__}
    _write(out_file, {**out, "running": True})
    try:
        done = run_here(load_project(Path(request["project"])), request["stack"], preview=request["preview"])
    except ProjectError as err:
        out["project_error"] = {"message": str(err), "file": str(err.file) if err.file else None, "line": err.line}
    except Exception as err:  # noqa: BLE001 - the plan shows a message, never this process's traceback
        out["project_error"] = {"message": internal_error_message(err), "file": None, "line": None}
    else:
        out.update(run=encode_run(done.run), error=asdict(done.error) if done.error else None,
                   secret_keys=done.secret_keys)
    _write(out_file, out)
    return 0


def _write(path: Path, document: dict[str, Any]) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, default=str))
    os.replace(partial, path)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    # Threads the program started must not keep this process, or the plan, waiting.
    os._exit(code)
