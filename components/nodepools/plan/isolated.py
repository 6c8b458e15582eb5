"""Programs run in child processes of their own, as ``nodepools plan`` runs them.

As the engine runs a program apart from itself, each (project, stack)'s program runs in a
child process (``python -m nodepools.plan.host``, with the project's Python, which needs
nodepools installed there, as a program that uses nodepools has it), all at once. The gate
fails closed: a program that ends its process before the run finished (``os._exit``, a fatal
signal, a crash) is a failure, never a run that registered nothing; one that runs past the
timeout is stopped and is a failure naming it. The children run in process groups of their
own and die with the plan, whatever ends it (``nodepools.offline.lifeline``). What a program
prints goes to the plan's stderr (fd 2; stdout carries the plan).
"""
from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nodepools.offline.engine import Run
from nodepools.offline.lifeline import Child, spawn
from nodepools.plan.project import Project, ProjectError
from nodepools.plan.stack_run import HOST_PROTOCOL, Failure, StackRun, decode_run
from nodepools.plan.toolchain import project_python


def run_isolated(targets: list[tuple[Project, str]], *, timeout_seconds: float | None = None,
                 preview: bool = True) -> list[StackRun]:
    """Each (project, stack)'s program in a child process of its own, all at once, with the
    project's Python; each gets ``timeout_seconds`` from now. Results in ``targets``' order;
    never raises for a failing, early-ending or late program (``StackRun.error``); raises
    ProjectError (the first in order) when a project or its environment cannot be used."""
    pythons = [project_python(project) or Path(sys.executable) for project, _ in targets]
    deadline = None if timeout_seconds is None else time.monotonic() + timeout_seconds
    with contextlib.ExitStack() as hosts:
        started = []
        for (project, stack), python in zip(targets, pythons):
            host = _Host(project, stack, python, preview, timeout_seconds)
            hosts.callback(host.close)
            host.start()
            started.append(host)
        return [host.result(deadline) for host in started]


@dataclass
class _Host:
    """One program run by ``nodepools.plan.host`` in a child process."""

    project: Project
    stack: str
    python: Path
    preview: bool
    timeout_seconds: float | None
    _tmp: tempfile.TemporaryDirectory | None = None
    _child: Child | None = None
    _stderr: deque = field(default_factory=lambda: deque(maxlen=40))
    _reader: threading.Thread | None = None

    @property
    def out(self) -> Path:
        assert self._tmp is not None
        return Path(self._tmp.name) / "run.json"

    def start(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="nodepools-plan-")
        request = {"protocol": HOST_PROTOCOL, "project": str(self.project.root), "stack": self.stack,
                   "preview": self.preview, "out": str(self.out)}
        # The program's stdout goes to the plan's stderr (fd 2: stdout carries the plan); its
        # stderr passes through too, its last lines kept for an error that needs them.
        self._child = spawn(str(self.python), "nodepools.plan.host", [json.dumps(request)],
                            stdout=2, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._relay, args=(self._child.process.stderr,), daemon=True)
        self._reader.start()

    def _relay(self, stream: Any) -> None:
        for line in iter(stream.readline, ""):
            self._stderr.append(line)
            try:
                sys.stderr.write(line)
            except (OSError, ValueError):  # the plan's stderr is gone: keep draining the pipe
                pass

    def close(self) -> None:
        if self._child is not None:
            self._child.stop()
        if self._reader is not None:
            self._reader.join(5.0)
        if self._tmp is not None:
            self._tmp.cleanup()

    def result(self, deadline: float | None) -> StackRun:
        assert self._child is not None
        try:
            status = self._child.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._child.stop()
            return self._failed("timeout", f"the program {self.project.program()} did not finish within "
                                           f"{self.timeout_seconds:g} s (--timeout) and was stopped; nothing it "
                                           "registered was judged")
        if self._reader is not None:
            self._reader.join(5.0)
        document = json.loads(self.out.read_text()) if self.out.is_file() else None
        if document is None:
            raise ProjectError(self._could_not_start(), self.project.file)
        if document.get("running"):
            return self._failed("program", f"the program {self.project.program()} ended before its run finished "
                                           f"({_exit_status(status)}), so what it would register was never all "
                                           "recorded: a program must return to the Pulumi runtime (os._exit, a fatal "
                                           "signal or a crash stop it early); nothing it registered was judged")
        if document.get("project_error"):
            err = document["project_error"]
            raise ProjectError(err["message"], Path(err["file"]) if err.get("file") else None, err.get("line"))
        run = decode_run(document["run"])
        failure = Failure(**document["error"]) if document.get("error") else None
        return StackRun(self.project, self.stack, self.project.program(), run, failure,
                        document.get("secret_keys", []), str(self.python))

    def _failed(self, kind: str, message: str) -> StackRun:
        where = {"config_path": None, "file": str(self.project.program()), "line": None}
        return StackRun(self.project, self.stack, self.project.program(), Run(), Failure(kind, [message], [where]),
                        [], str(self.python))

    def _could_not_start(self) -> str:
        # The last lines the host printed, without the frames of a traceback.
        text = "".join(self._stderr)
        detail = [line for line in text.strip().splitlines() if not line.startswith((" ", "Traceback"))][-3:]
        hint = " (is nodepools installed there? the plan runs the program with it)" \
            if "No module named 'nodepools" in text else ""
        return f"the program could not run with the Python {self.python}{hint}: " + " | ".join(detail)


def _exit_status(status: int) -> str:
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"
