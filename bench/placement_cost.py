"""Benchmark 3b: the placement analysis at several sizes; is it linear in workloads x pools?

One stack per pool count (``bench.workloads``: W workloads cycling through P pools
on one cluster) is recorded once; each size analyses the first W workloads of
it with ``nodepools.placement.analyze``, in this process, sizes interleaved.
The per-pair cost is the time divided by the verdicts produced (pod templates x
pools of their cluster). Linear in W x P means time = a*W + b*W*P: the marginal
cost of a pair ``b`` (time added by the extra pools at the same W, divided by the
verdicts they add) must not grow with W; ``a`` is reading each workload once.
"""
from __future__ import annotations

import gc
import re
import time

from bench.measure import Row, median, ratio
from bench.workloads import workloads_program

NAME = "3 placement"
TARGET = 1.2
_WORKLOAD = re.compile(r"^app-(\d+)$")


def _subset(resources, workloads: int):
    """Every resource but the workloads numbered ``workloads`` and above."""
    keep = []
    for r in resources:
        match = _WORKLOAD.match(r.name)
        if match is None or int(match.group(1)) < workloads:
            keep.append(r)
    return keep


def run(settings) -> list[Row]:
    from datetime import date

    from nodepools.inventory.stack_model import StackModel
    from nodepools.offline.engine import run_program
    from nodepools.placement import analyze
    from nodepools.plan.model import resources

    sizes = [(w, p) for p in settings.placement_pools for w in settings.placement_workloads]
    recorded = {p: resources(run_program(workloads_program(max(settings.placement_workloads), pools=p),
                                         stack="bench")) for p in settings.placement_pools}
    inputs = {(w, p): _subset(recorded[p], w) for w, p in sizes}
    today = date(2026, 12, 2)  # placement reads no date; the model carries one
    times: dict[tuple[int, int], list[float]] = {size: [] for size in sizes}
    pairs: dict[tuple[int, int], int] = {}
    for rep in range(settings.reps):
        for size in sizes[rep % len(sizes):] + sizes[:rep % len(sizes)]:
            gc.collect()
            begin = time.perf_counter()
            report = analyze(StackModel(inputs[size], today=today))
            times[size].append(time.perf_counter() - begin)
            pairs[size] = len(report.verdicts)
    per_pair = {size: median(times[size]) / pairs[size] for size in sizes}
    smallest, largest = sizes[0], sizes[-1]
    rows = []
    for size in sizes:
        w, p = size
        rows.append(Row(NAME, f"{w} workloads x {p} pools: {pairs[size]} verdicts in {median(times[size]):.2f} s, "
                        "per pair", f"{per_pair[size] * 1e6:.1f} us",
                        f"{per_pair[smallest] * 1e6:.1f} us" if size != smallest else "",
                        ratio(per_pair[size], per_pair[smallest]) if size != smallest else None,
                        None))
    low, high = min(settings.placement_pools), max(settings.placement_pools)
    if low != high:  # marginal cost of one more pair: the pools added at the same workload count
        marginal = {}
        for w in settings.placement_workloads:
            extra_time = median(times[(w, high)]) - median(times[(w, low)])
            marginal[w] = extra_time / (pairs[(w, high)] - pairs[(w, low)])
        first, last = settings.placement_workloads[0], settings.placement_workloads[-1]
        fixed = (median(times[(last, low)]) - marginal[last] * pairs[(last, low)]) / last
        rows.append(Row(NAME, f"  marginal cost of a pair ({low} -> {high} pools) at {last} vs {first} workloads; "
                        f"fixed cost {fixed * 1e6:.0f} us per workload", f"{marginal[last] * 1e6:.1f} us",
                        f"{marginal[first] * 1e6:.1f} us", ratio(marginal[last], marginal[first]), TARGET))
    return rows
