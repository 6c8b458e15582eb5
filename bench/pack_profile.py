"""Where the policy pack spends its time: every policy timed, and cProfile of the whole pass.

    .venv/bin/python bench/pack_profile.py [--workloads 200] [--top 25] [--sort tottime] [--no-profile]

The pack's gRPC server runs its handlers on a thread pool, which cProfile cannot
follow; here the pack's own servicer (``nodepools.pack.servicer``, the one the server
wraps) answers the same ``Analyze``/``AnalyzeStack`` requests the offline runner
sends, in this thread. Prints each policy's total time (resource policies summed
over every ``Analyze``), the rest (reading the wire once per request, the stack view,
exemptions and waivers, diagnostics) and the profile.
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

from bench.worker import _GcClock  # noqa: E402
from bench.workloads import workloads_program  # noqa: E402


def timed_servicer(seconds: Counter):
    """The pack's servicer (nodepools.pack.servicer) with every policy's check timed into ``seconds``."""
    from dataclasses import replace

    from nodepools.pack.servicer import PackServicer
    from nodepools.policies.registry import POLICIES

    def timed(spec):
        def check(subject, settings):
            begin = time.perf_counter()
            try:
                return list(spec.check(subject, settings))
            finally:
                seconds[spec.name] += time.perf_counter() - begin
        return replace(spec, check=check)

    specs = tuple(timed(spec) for spec in POLICIES)
    return PackServicer(lambda: specs, "bench", "", "0")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--no-profile", action="store_true",
                        help="time the policies without cProfile (it inflates small calls many times over)")
    args = parser.parse_args()

    from nodepools.offline.analyzer_wire import analyze_requests, stack_request
    from nodepools.offline.engine import run_program

    run = run_program(workloads_program(args.workloads), stack="bench")
    items = list(run.resources)
    analyze, stack = analyze_requests(items), stack_request(items)
    seconds: Counter = Counter()
    servicer = timed_servicer(seconds)
    servicer.warm_up()
    gc.freeze()  # the pack process's collector settings (nodepools.pack.serve)
    gc.set_threshold(50_000, 20, 20)
    profiler = cProfile.Profile()
    in_gc = _GcClock()
    gc.collect()
    begin = time.perf_counter()
    if not args.no_profile:
        profiler.enable()
    for request in analyze:
        servicer.Analyze(request, None)
    middle = time.perf_counter()
    servicer.AnalyzeStack(stack, None)
    profiler.disable()
    end = time.perf_counter()
    in_gc.close()
    total, in_policies = end - begin, sum(seconds.values())
    print(f"{len(analyze)} resources: Analyze x{len(analyze)} {middle - begin:.3f}s, AnalyzeStack {end - middle:.3f}s "
          f"({'no profiler' if args.no_profile else 'under the profiler'}); in policy functions {in_policies:.3f}s, "
          f"around them {total - in_policies:.3f}s; garbage collector {in_gc.seconds:.3f}s (anywhere)")
    for name, spent in seconds.most_common():
        print(f"  {name:<28} {spent:8.3f}s {100 * spent / total:5.1f}%")
    if not args.no_profile:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
