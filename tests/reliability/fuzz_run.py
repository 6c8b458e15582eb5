"""``make fuzz``: the counting fuzzer (``fuzz_random``) over the real pack, over gRPC.

    python tests/reliability/fuzz_run.py [--count 100000] [--seed S] [--start 0]

First the preview sentinel in every position of every resource of every type (one at a time),
then ``--count`` random inputs. Prints the seed, progress, the counts (crashes, exception text in diagnostics, unknowns turned
into violations), inputs per resource type, the first failing inputs, and exits 1 if any.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "pack")]

from fuzz_random import Tally, date_seed, run, sweep  # noqa: E402
from fuzz_stack import base_stack, pack_types  # noqa: E402
from pack_under_test import pack_runner  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", default=date_seed())
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--no-sweep", action="store_true", help="skip the sentinel in every position")
    args = parser.parse_args(argv)
    bases = {cloud: base_stack(cloud) for cloud in ("aws", "gcp", "karpenter")}
    types = pack_types(bases)
    print(f"policy fuzz: seed {args.seed!r}, inputs {args.start}..{args.start + args.count - 1} over "
          f"{len(types)} resource types; {platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}", flush=True)
    started = time.monotonic()
    step = max(1, args.count // 20)

    def progress(tally: Tally) -> None:
        if tally.inputs % step == 0:
            print(f"  {tally.summary()} ({time.monotonic() - started:.0f} s)", flush=True)

    pack = pack_runner().start()
    try:
        pack.configure()
        swept = None
        if not args.no_sweep:
            swept = sweep(pack, bases, types)
            print(f"unknown sweep (the sentinel in each of {swept.inputs} positions): {swept.summary()} "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
            for example in swept.examples:
                print(f"FAILED {example}")
        started = time.monotonic()
        tally = run(pack, bases, types, args.seed, range(args.start, args.start + args.count), progress=progress)
    finally:
        pack.close()
    elapsed = time.monotonic() - started
    print(f"policy fuzz: seed {args.seed!r}: {tally.summary()} in {elapsed:.0f} s "
          f"({1000 * elapsed / max(tally.inputs, 1):.1f} ms per input)")
    for type_, count in sorted(tally.per_type.items()):
        print(f"{count:8d}  {type_}")
    for example in tally.examples:
        print(f"FAILED {example}")
    return 1 if tally.failures or (swept and swept.failures) else 0


if __name__ == "__main__":
    sys.exit(main())
