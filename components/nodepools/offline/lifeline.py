"""Child processes that die with the process that started them: the policy pack, the plan's
program host.

``spawn`` starts a Python module (``python -u -c LAUNCHER MODULE ARGS``, which runs the module
as ``python -m`` does) in a process group of its own, so a Ctrl-C at the terminal reaches the
parent alone and the parent stops its children in order, writing its report first. The child
holds the read end of a pipe whose write end only the parent holds: when the parent ends, by
any path (an exception, SIGTERM, SIGKILL, a crash), the kernel closes the write end, the child
reads end-of-file and kills its process group. Nothing is left running, listening, with parent 1.
The launcher is the standard library alone, so it works with any Python (a pack's own
virtualenv need not hold nodepools). ``Child.stop`` ends the group: SIGTERM, a grace period,
then SIGKILL. That is POSIX; on Windows (no process groups by id, no inherited pipe by number)
the child is started plainly and stopped on every path the parent controls, SIGKILL aside.
"""
from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from typing import IO, Any, Mapping, Sequence

# The child's end of the lifeline, by number.
LIFELINE_ENV = "NODEPOOLS_LIFELINE_FD"

# Runs in the child before the module: a daemon thread that waits for the lifeline to close,
# then kills the child's process group (its own: spawn starts a new session). Reading end-of-file
# means every copy of the write end is closed, i.e. the parent has ended.
LAUNCHER = """\
import os, runpy, signal, sys, threading
_fd = os.environ.pop("NODEPOOLS_LIFELINE_FD", None)
if _fd is not None:
    _fd = int(_fd)
    os.set_inheritable(_fd, False)
    def _wait(fd=_fd):
        try:
            while os.read(fd, 4096):
                pass
        except OSError:
            pass
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpgrp(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=_wait, name="nodepools-lifeline", daemon=True).start()
_module, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_module(_module, run_name="__main__", alter_sys=True)
"""

STOP_GRACE_SECONDS = 5.0
_POSIX = os.name == "posix"


@dataclass
class Child:
    """A spawned child: its ``process`` and the parent's end of its lifeline."""

    process: subprocess.Popen
    _lifeline: int | None = field(default=None, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait(self, timeout: float | None = None) -> int:
        """The exit status; ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
        return self.process.wait(timeout)

    def stop(self, grace_seconds: float = STOP_GRACE_SECONDS) -> None:
        """End the child's process group (SIGTERM, then SIGKILL after ``grace_seconds``), reap
        the child and let go of the lifeline. Safe to call twice, and on a child that has ended."""
        try:
            if self.process.poll() is None:
                self._signal(signal.SIGTERM)
                try:
                    self.process.wait(grace_seconds)
                except subprocess.TimeoutExpired:
                    pass
            # Whatever the child left in its group (a program's own subprocesses) goes too.
            self._signal(signal.SIGKILL if _POSIX else signal.SIGTERM)
            self.process.wait()
        finally:
            self._let_go()

    def _signal(self, signum: int) -> None:
        try:
            if _POSIX:
                os.killpg(self.process.pid, signum)  # the child leads its own group (start_new_session)
            elif self.process.poll() is None:
                self.process.send_signal(signum)
        except (ProcessLookupError, PermissionError):
            pass

    def _let_go(self) -> None:
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None


def spawn(python: str, module: str, args: Sequence[str] = (), *, cwd: str | os.PathLike | None = None,
          env: Mapping[str, str] | None = None, stdout: int | IO[Any] | None = None,
          stderr: int | IO[Any] | None = None, text: bool = False) -> Child:
    """``python -u -m module args`` as a child that dies with this process (see the module's doc)."""
    argv = [python, "-u", "-c", LAUNCHER, module, *args]
    environment = dict(os.environ if env is None else env)
    if not _POSIX:
        return Child(subprocess.Popen(argv, cwd=cwd, env=environment, stdout=stdout, stderr=stderr, text=text))
    read, write = os.pipe()  # both ends non-inheritable (PEP 446): only ``read`` is passed on
    try:
        process = subprocess.Popen(argv, cwd=cwd, env={**environment, LIFELINE_ENV: str(read)}, pass_fds=(read,),
                                   start_new_session=True, stdout=stdout, stderr=stderr, text=text)
    except BaseException:
        os.close(write)
        raise
    finally:
        os.close(read)
    return Child(process, write)
