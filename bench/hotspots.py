"""Where a case's warm run spends its time: cProfile (standard library) of the program thread.

    .venv/bin/python bench/hotspots.py CASE [--warmup CASE] [--top 30] [--sort tottime|cumulative]
                                          [--by-package]

CASE as in ``bench/worker.py`` (``stack:aws-prod``, ``flat:<spec.json>:<stack>``,
``fleet:10``). The offline engine runs the program on its own thread and the SDK
sends each registration to the (mock) monitor from an executor thread; cProfile
sees one thread, so the program thread is profiled and the monitor's share is
timed separately (``monitor_s``). ``--by-package`` sums own time per top-level
package (``nodepools``, ``pulumi``, ``pulumi_aws``, ...), the attribution the
report needs: ours versus the SDK's.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.worker import runner  # noqa: E402
from nodepools.offline import engine  # noqa: E402


def _package(filename: str) -> str:
    path = Path(filename)
    parts = path.parts
    for anchor in ("site-packages", "main"):
        if anchor in parts:
            rest = parts[parts.index(anchor) + 1:]
            return rest[0] if len(rest) > 1 else path.stem
    if filename.startswith("<") or filename == "~":
        return "builtins"
    return "stdlib"


def by_package(stats: pstats.Stats) -> Counter:
    totals: Counter = Counter()
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        totals[_package(filename)] += tottime
    return totals


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("case")
    parser.add_argument("--warmup", default=None)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--by-package", action="store_true")
    args = parser.parse_args()

    runner(args.warmup or args.case)()
    timed = runner(args.case)
    profiler = cProfile.Profile()
    monitor_s = [0.0]
    original_sync_await, original_register = engine._sync_await, engine._RecordingMonitor.RegisterResource

    def profiled_sync_await(awaitable):
        profiler.enable()
        try:
            return original_sync_await(awaitable)
        finally:
            profiler.disable()

    def timed_register(self, request):
        begin = time.perf_counter()
        try:
            return original_register(self, request)
        finally:
            monitor_s[0] += time.perf_counter() - begin

    engine._sync_await = profiled_sync_await
    engine._RecordingMonitor.RegisterResource = timed_register
    gc.collect()
    begin = time.perf_counter()
    run = timed()
    wall = time.perf_counter() - begin
    engine._sync_await, engine._RecordingMonitor.RegisterResource = original_sync_await, original_register
    stats = pstats.Stats(profiler)
    print(f"{args.case}: {len(run.resources)} registrations, wall {wall:.3f}s under the profiler, "
          f"monitor (executor threads) {monitor_s[0]:.3f}s")
    if args.by_package:
        total = sum(by_package(stats).values())
        for package, seconds in by_package(stats).most_common():
            print(f"  {package:<24} {seconds:8.3f}s {100 * seconds / total:5.1f}%")
    stats.sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
