"""Where the policy pack spends its time: every policy timed, and cProfile of the whole pass.

    .venv/bin/python bench/pack_profile.py [--workloads 200] [--top 25] [--sort tottime] [--no-profile]

The pack's gRPC server runs its handlers on a thread pool, which cProfile cannot
follow; here the pack's own servicer (``pulumi_policy``'s, the one the server
wraps) answers the same ``Analyze``/``AnalyzeStack`` requests the offline runner
sends, in this thread. Prints each policy's total time (resource policies summed
over every ``Analyze``), the SDK's share (deserialising each resource once per
policy, proxies, diagnostics) and the profile.
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


def requests_for(resources):
    """The requests the offline runner sends for ``resources`` (``PackResource`` helpers)."""
    from pulumi.runtime import proto

    from nodepools.offline.analyzer_wire import PackResource

    items = [PackResource.from_registration(r) for r in resources]
    by_urn = {r.urn: r for r in items}
    analyze = [proto.AnalyzeRequest(type=i.type, urn=i.urn, name=i.name, properties=i.struct(), options=i.options(),
                                    provider=i.provider_message(by_urn)) for i in items]
    stack = proto.AnalyzeStackRequest(resources=[i.analyzer_resource(by_urn) for i in items])
    return analyze, stack


def timed_servicer(policies, seconds: Counter):
    """The pack's servicer with every policy's ``validate`` timed into ``seconds``."""
    from pulumi_policy import EnforcementLevel
    from pulumi_policy.policy import _PolicyAnalyzerServicer

    for policy in policies:
        inner = policy.validate

        def timed(args, report, inner=inner, name=policy.name):
            begin = time.perf_counter()
            try:
                return inner(args, report)
            finally:
                seconds[name] += time.perf_counter() - begin

        policy.validate = timed
    return _PolicyAnalyzerServicer("bench", "0.0.1", policies, EnforcementLevel.ADVISORY)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workloads", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--no-profile", action="store_true",
                        help="time the policies without cProfile (it inflates small calls many times over)")
    args = parser.parse_args()

    from nodepools.offline.engine import run_program
    from nodepools.pack.adapter import policies

    run = run_program(workloads_program(args.workloads), stack="bench")
    analyze, stack = requests_for(run.resources)
    seconds: Counter = Counter()
    servicer = timed_servicer(policies(), seconds)
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
          f"SDK around them {total - in_policies:.3f}s; garbage collector {in_gc.seconds:.3f}s (anywhere)")
    for name, spent in seconds.most_common():
        print(f"  {name:<28} {spent:8.3f}s {100 * spent / total:5.1f}%")
    if not args.no_profile:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
