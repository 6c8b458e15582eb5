"""Benchmarks: the cost of our layers, each measured against its floor in one run.

    .venv/bin/python bench/run.py [--quick] [--only NAME[,NAME...]] [--reps N] [--warm N]

Prints one Markdown table: every row is a measure of ours, its floor where one
exists, their ratio and the target. Ratios are taken within this invocation,
with the cases interleaved, so machine load cancels; absolute times do not
transfer between machines. Benchmarks (``--only``):

- ``overhead``: the aws-prod stack vs flat programs of the same resources;
- ``fleet``: 1, 10, 50 clusters x 4 pools + guardrails, time per resource;
- ``pack``: the policy pack over the Analyzer protocol vs its no-op floor and Checkov, 1,000
  workloads, and its start-up;
- ``pack-scale``: the pack at 100 to 10,000 workloads and 4 to 64 pools, against the same;
- ``placement``: the placement analysis at several workloads x pools;
- ``plan``: ``nodepools plan`` of each default stack.

``--quick`` shrinks every size and takes one repetition: a smoke run whose
numbers mean nothing. Profile a case with ``bench/hotspots.py`` (programs) or
``bench/pack_profile.py`` (the pack); both use cProfile.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import fleet, overhead, pack_scale, placement_cost, plan_cost, policy_pack  # noqa: E402
from bench.measure import table  # noqa: E402

BENCHMARKS = {"overhead": overhead, "fleet": fleet, "pack": policy_pack, "pack-scale": pack_scale,
              "placement": placement_cost, "plan": plan_cost}


@dataclass(frozen=True)
class Settings:
    quick: bool
    reps: int
    warm: int
    workdir: Path
    fleet_sizes: tuple[int, ...]
    pack_workloads: int  # also the workload count of the pack-scale sweep over pools
    pack_scale_workloads: tuple[int, ...]
    pack_scale_pools: tuple[int, ...]
    placement_workloads: tuple[int, ...]
    placement_pools: tuple[int, ...]
    plan_stacks: tuple[str, ...]


def settings_for(args: argparse.Namespace, workdir: Path) -> Settings:
    if args.quick:
        return Settings(True, args.reps or 1, args.warm or 1, workdir, (1, 2), 20, (10, 20), (4, 8), (8, 16), (4, 8),
                        ("aws-dev",))
    return Settings(False, args.reps or 5, args.warm or 3, workdir, (1, 10, 50), 1000, (100, 1000, 5000, 10000),
                    (4, 16, 64), (250, 500, 1000), (4, 16), ("aws-dev", "aws-prod", "gcp-dev"))


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
            f"{os.cpu_count()} CPUs, load average {load}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repetition (smoke run)")
    parser.add_argument("--only", default="", help=f"comma-separated subset of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--reps", type=int, default=0, help="repetitions per case (default 5; --quick 1)")
    parser.add_argument("--warm", type=int, default=0, help="warm runs per process (default 3; --quick 1)")
    args = parser.parse_args(argv)
    chosen = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHMARKS)
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)} (choose from {', '.join(BENCHMARKS)})")
    begin = time.perf_counter()
    print(f"# nodepools benchmarks ({'quick' if args.quick else 'full'}): {machine()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="nodepools-bench-") as workdir:
        settings = settings_for(args, Path(workdir))
        for name in chosen:
            started = time.perf_counter()
            rows += BENCHMARKS[name].run(settings)
            print(f"# {name}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    print(table(rows))
    print(f"# {len(rows)} rows in {time.perf_counter() - begin:.0f} s; load average now "
          + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
