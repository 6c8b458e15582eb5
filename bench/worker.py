"""One measurement in a fresh interpreter; prints one JSON line. Not for people: ``bench/run.py`` calls it.

    python bench/worker.py CASE [--warmup CASE] [--warm N] [--traced]

``cli:plan,--stack,aws-dev`` instead runs ``nodepools plan --stack aws-dev`` once
and reports its peak RSS. CASE is ``stack:<name>``, ``flat:<spec.json>:<stack>`` (the raw floor), ``typed:<spec.json>:<stack>``
(the same replay through the generated classes) or ``fleet:<clusters>``.
Phases, in order:

1. ``cold``: imports plus the first run of ``--warmup`` (default CASE itself), timed
   from the worker's first line; ``peak_cold_kib`` is the process's peak RSS
   (VmHWM) right after it, i.e. what a fresh ``pulumi preview`` process needs.
2. ``warm``: ``--warm`` runs of CASE, each after a full garbage collection; lazy
   imports are done by now, so this is the program's own cost. ``gc_s``: the
   part of each run spent in the cyclic garbage collector.
3. ``--traced``: one more run under ``tracemalloc``; ``traced_peak_kib`` is the
   peak of Python allocations during that run above what was live before it.
"""
from __future__ import annotations

import time

_START = time.perf_counter()

import argparse  # noqa: E402 - the clock starts before any import
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

# The repository root, not bench/, heads the path: bench's module names never shadow others.
sys.path[0] = str(Path(__file__).resolve().parent.parent)


def runner(case: str):
    from bench import programs

    kind, _, arg = case.partition(":")
    if kind == "stack":
        return programs.stack_runner(arg)
    if kind in ("flat", "typed"):
        path, _, stack = arg.rpartition(":")
        return programs.flat_runner(path, stack, typed=kind == "typed")
    if kind == "fleet":
        return programs.fleet_runner(int(arg))
    raise SystemExit(f"unknown case {case!r}")


class _GcClock:
    """Seconds spent in the cyclic garbage collector (``gc.callbacks``), any thread."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started

    def reset(self) -> None:
        self.seconds = 0.0

    def close(self) -> None:
        gc.callbacks.remove(self._callback)


def _peak_kib() -> int:
    """This process's peak RSS (VmHWM). Not ``ru_maxrss``: Linux carries the parent's
    high-water mark into a forked child across ``exec``, so a child of a big bench
    process would report the parent's peak."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # not Linux: the best there is


def cli(argv: list[str]) -> None:
    """``nodepools <argv>`` as its console script runs it (output discarded)."""
    import contextlib
    import io

    from nodepools.plan.cli import main as nodepools_main

    with contextlib.redirect_stdout(io.StringIO()):
        code = nodepools_main(argv)
    print(json.dumps({"case": "cli", "exit": code, "peak_kib": _peak_kib()}))


def main() -> None:
    if sys.argv[1].startswith("cli:"):
        return cli(sys.argv[1][len("cli:"):].split(","))
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--warmup", default=None)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--traced", action="store_true")
    args = parser.parse_args()

    first = runner(args.warmup or args.case)
    imported = time.perf_counter()
    run = first()
    cold = time.perf_counter()
    out = {"case": args.case, "import_s": imported - _START, "cold_s": cold - _START,
           "first_run_s": cold - imported, "peak_cold_kib": _peak_kib()}
    del run
    timed = runner(args.case) if args.warmup else first
    warm, in_gc = [], []
    resources = 0
    gc_clock = _GcClock()
    for _ in range(args.warm):
        gc.collect()
        gc_clock.reset()
        begin = time.perf_counter()
        run = timed()
        warm.append(time.perf_counter() - begin)
        in_gc.append(gc_clock.seconds)
        resources = len(run.resources)
        del run
    gc_clock.close()
    out.update(warm_s=warm, gc_s=in_gc, resources=resources)
    if args.traced:
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        run = timed()
        out["traced_peak_kib"] = (tracemalloc.get_traced_memory()[1] - base) / 1024
        out["resources"] = len(run.resources)
        tracemalloc.stop()
    out["peak_kib"] = _peak_kib()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
