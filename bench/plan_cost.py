"""Benchmark 4: ``nodepools plan --stack X`` of each default stack, as a newcomer runs it.

Each run is a fresh process from the repository root running the ``nodepools``
console script's ``main`` (through ``bench/worker.py cli:...``, which adds only
the report of its peak RSS, VmHWM): wall time from spawn to exit. The policy
pack runs in a child process of its own, reported by ``3 policy pack``; the
plan without it (``--no-policy``) shows the pack's share of the wall time.
"""
from __future__ import annotations

from bench.measure import Row, median, seconds, worker

NAME = "4 plan"


def run(settings) -> list[Row]:
    cases = {f"{stack}": ["plan", "--stack", stack] for stack in settings.plan_stacks}
    first = settings.plan_stacks[0]
    cases[f"{first} --no-policy"] = ["plan", "--stack", first, "--no-policy"]
    walls: dict[str, list[float]] = {name: [] for name in cases}
    peaks: dict[str, list[int]] = {name: [] for name in cases}
    names = list(cases)
    for rep in range(settings.reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            result = worker("cli:" + ",".join(cases[name]))
            walls[name].append(result["process_s"])
            peaks[name].append(result["peak_kib"])
    return [Row(NAME, f"nodepools plan --stack {name}: wall / peak RSS",
                f"{seconds(median(walls[name]))} / {median(peaks[name]) / 1024:.0f} MiB") for name in names]
