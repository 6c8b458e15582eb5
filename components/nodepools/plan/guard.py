"""What keeps the plan's gate closed while it runs: signals, and stdout kept for the report.

``running()`` covers the plan while programs and the pack run. SIGINT (Ctrl-C) and SIGTERM
raise ``Interrupted`` in the main thread, so every ``finally`` on the way out runs (the
children are stopped: ``nodepools.offline.lifeline``) and the plan still writes its report,
status ``interrupted``, exit 128 + the signal's number (130, 143) as a shell reports a process
a signal ended; a second signal while it stops is ignored, never a traceback. File
descriptor 1 and ``sys.stdout`` point at stderr meanwhile: whatever anything in this process
writes to stdout lands on stderr, and stdout carries the report alone (``--json``). Outside
the main thread (a plan run by a test's worker) only stdout is redirected.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any, Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """The plan was stopped by a signal (a BaseException: no ``except Exception`` holds it)."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.name = signal.Signals(signum).name
        super().__init__(f"interrupted by {self.name}")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum: int, _frame: Any) -> None:
    for other in SIGNALS:  # the way out must not be interrupted again
        signal.signal(other, signal.SIG_IGN)
    raise Interrupted(signum)


@contextlib.contextmanager
def _handlers(handler: Any) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


@contextlib.contextmanager
def running() -> Iterator[None]:
    """Signals raise ``Interrupted``; stdout (fd 1 and ``sys.stdout``) goes to stderr."""
    with _handlers(_raise), _stdout_to_stderr():
        yield


@contextlib.contextmanager
def uninterruptible() -> Iterator[None]:
    """SIGINT and SIGTERM ignored (while the report is written)."""
    with _handlers(signal.SIG_IGN):
        yield


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    original = sys.stdout
    original.flush()
    saved = None
    try:
        if original.fileno() == 1:
            saved = os.dup(1)
            os.dup2(2, 1)
    except (AttributeError, OSError, ValueError):  # not a file (a test's capture) or fd 1 closed
        saved = None
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = original
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)
