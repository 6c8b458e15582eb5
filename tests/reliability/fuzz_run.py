"""``make fuzz``: the counting fuzzer (``fuzz_random``) over the real pack, over gRPC.

    python tests/reliability/fuzz_run.py [--count 100000] [--seed S] [--start 0] [--jobs N]
                                         [--max-seconds T] [--no-sweep]

First the preview sentinel in every position of every resource of every type (one at a time),
then ``--count`` random inputs, split over ``--jobs`` workers (each with its own pack process;
worker ``w`` takes every input whose index is ``w`` modulo the jobs, so each sees every type).
``--max-seconds`` stops starting inputs after that long and reports what ran. Prints the seed,
progress, the counts (crashes, exception text in diagnostics, unknowns turned into violations),
inputs per resource type, the first failing inputs, and exits 1 if any.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import takewhile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "pack")]

from fuzz_random import Tally, date_seed, run, sweep  # noqa: E402
from fuzz_stack import base_stack, pack_types  # noqa: E402
from pack_under_test import pack_runner  # noqa: E402

CLOUDS = ("aws", "gcp", "karpenter")


def _worker(seed: str, indexes: range, deadline: float, report_every: int, label: str) -> Tally:
    bases = {cloud: base_stack(cloud) for cloud in CLOUDS}
    types = pack_types(bases)
    started = time.time()

    def progress(tally: Tally) -> None:
        if tally.inputs % report_every == 0:
            print(f"  [{label}] {tally.summary()} ({time.time() - started:.0f} s)", flush=True)

    pack = pack_runner().start()
    try:
        pack.configure()
        return run(pack, bases, types, seed, takewhile(lambda _: time.time() < deadline, indexes), progress=progress)
    finally:
        pack.close()


def merged(tallies: list[Tally]) -> Tally:
    out = Tally()
    for t in tallies:
        out.inputs += t.inputs
        out.crashes += t.crashes
        out.exception_text += t.exception_text
        out.unknown_violations += t.unknown_violations
        out.other += t.other
        out.per_type.update(t.per_type)
        out.examples += t.examples[:max(0, 20 - len(out.examples))]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", default=date_seed())
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=0.0, help="stop starting inputs after this long")
    parser.add_argument("--no-sweep", action="store_true", help="skip the sentinel in every position")
    args = parser.parse_args(argv)
    bases = {cloud: base_stack(cloud) for cloud in CLOUDS}
    types = pack_types(bases)
    print(f"policy fuzz: seed {args.seed!r}, inputs {args.start}..{args.start + args.count - 1} over "
          f"{len(types)} resource types, {args.jobs} job(s); {platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}", flush=True)
    started = time.time()
    deadline = started + args.max_seconds if args.max_seconds else float("inf")
    swept = None
    if not args.no_sweep:
        pack = pack_runner().start()
        try:
            pack.configure()
            swept = sweep(pack, bases, types)
        finally:
            pack.close()
        print(f"unknown sweep (the sentinel in each of {swept.inputs} positions): {swept.summary()} "
              f"({time.time() - started:.0f} s)", flush=True)
        for example in swept.examples:
            print(f"FAILED {example}")
    started = time.time()
    every = max(1, args.count // args.jobs // 20)
    end = args.start + args.count
    slices = [range(args.start + w, end, args.jobs) for w in range(args.jobs)]
    if args.jobs == 1:
        tallies = [_worker(args.seed, slices[0], deadline, every, "1/1")]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            tallies = list(pool.map(_worker, [args.seed] * args.jobs, slices, [deadline] * args.jobs,
                                    [every] * args.jobs, [f"{w + 1}/{args.jobs}" for w in range(args.jobs)]))
    tally = merged(tallies)
    elapsed = time.time() - started
    cut = f" (stopped at --max-seconds: {args.count - tally.inputs} of {args.count} not run)" \
        if tally.inputs < args.count else ""
    print(f"policy fuzz: seed {args.seed!r}: {tally.summary()} in {elapsed:.0f} s "
          f"({1000 * elapsed * args.jobs / max(tally.inputs, 1):.1f} ms per input per job){cut}")
    for type_, count in sorted(tally.per_type.items()):
        print(f"{count:8d}  {type_}")
    for example in tally.examples:
        print(f"FAILED {example}")
    return 1 if tally.failures or (swept and swept.failures) else 0


if __name__ == "__main__":
    sys.exit(main())
