"""One measurement in a fresh interpreter; prints one JSON line. Not for people: ``bench/run.py`` calls it.

    python bench/worker.py CASE [CASE...] [--warmup CASE] [--warm N] [--traced]

CASE is ``stack:<name>``, ``flat:<spec.json>:<stack>`` (the raw floor),
``typed:<spec.json>:<stack>`` (the same replay through the generated classes) or
``fleet:<clusters>``; ``cli:plan,--stack,aws-dev`` instead runs ``nodepools plan
--stack aws-dev`` once and reports its peak RSS. Phases, in order:

1. ``cold``: imports plus the first run of ``--warmup`` (default the first CASE), timed
   from the worker's first line; ``peak_cold_kib`` is the process's peak RSS
   (VmHWM) right after it, i.e. what a fresh ``pulumi preview`` process needs.
2. ``rounds``: ``--warm`` rounds, each running every CASE once in rotating order,
   after a full garbage collection (and, without ``--warmup``, one untimed run of
   every case, so lazy imports are paid). Cases compared in one process share
   its heap and its moments of machine load: a ratio of adjacent runs cancels
   both. ``gc_s``: the part of a run spent in the cyclic garbage collector.
3. ``--traced``: one more run of the first CASE under ``tracemalloc``;
   ``traced_peak_kib`` is the peak of Python allocations during that run above
   what was live before it (the run's own memory, not the imports').
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


def stub_stack_trace() -> None:
    """The SDK records, for every registration made from a generated class, the
    source position of every frame on the stack (``traceback.extract_stack`` and a
    ``pathlib`` URI per frame); a raw ``CustomResource`` skips it (it looks for a
    third ``__init__`` frame). Stubbing it shows what it costs."""
    from pulumi.runtime import resource as sdk_resource
    from pulumi.runtime.proto import source_pb2

    sdk_resource._get_stack_trace = source_pb2.StackTrace  # an empty trace, as raw resources get


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
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--warmup", default=None)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--traced", action="store_true")
    parser.add_argument("--stub-stack-trace", action="store_true",
                        help="diagnostic: replace the SDK's per-registration source-position capture by nothing")
    parser.add_argument("--gc-default", action="store_true",
                        help="diagnostic: keep CPython's default collector thresholds during runs")
    args = parser.parse_args()
    if args.stub_stack_trace:
        stub_stack_trace()
    if args.gc_default:
        from nodepools.offline import engine

        engine.RUN_GC_THRESHOLDS = None

    first = runner(args.warmup or args.cases[0])
    imported = time.perf_counter()
    run = first()
    cold = time.perf_counter()
    out: dict = {"cases": args.cases, "import_s": imported - _START, "cold_s": cold - _START,
                 "first_run_s": cold - imported, "peak_cold_kib": _peak_kib(), "resources": {}}
    del run
    timed = {case: runner(case) for case in args.cases}
    if args.warmup is None:  # pay each case's own lazy imports and caches before timing
        for case in args.cases[1:]:
            timed[case]()
    out["rounds"] = _rounds(timed, args.warm, out["resources"])
    if args.traced:
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        run = timed[args.cases[0]]()
        out["traced_peak_kib"] = (tracemalloc.get_traced_memory()[1] - base) / 1024
        tracemalloc.stop()
    out["peak_kib"] = _peak_kib()
    print(json.dumps(out))


def _rounds(timed: dict, rounds: int, resources: dict) -> list[dict]:
    """``rounds`` rounds; each runs every case once, in rotating order, after a full
    collection. Per case: wall seconds and seconds in the garbage collector."""
    cases = list(timed)
    clock = _GcClock()
    out = []
    for n in range(rounds):
        record = {}
        for case in cases[n % len(cases):] + cases[:n % len(cases)]:
            gc.collect()
            clock.reset()
            begin = time.perf_counter()
            run = timed[case]()
            record[case] = {"wall_s": time.perf_counter() - begin, "gc_s": clock.seconds}
            resources[case] = len(run.resources)
            del run
        out.append(record)
    clock.close()
    return out


if __name__ == "__main__":
    main()
