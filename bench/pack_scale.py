"""Benchmark 3b: the pack's cost as the stack grows, in workloads and in pools.

For each size (workloads at 4 pools; pools at the middle workload count) a stack is
recorded, and fresh processes of the real pack and of the floor (``bench.pack_passes``)
judge it in interleaved passes; Checkov scans the same workloads. Each row: the pass,
its cost per resource, the pack's peak RSS, and the ratios to the floor and to Checkov.
The last rows hold the growth to the target: time per resource at the largest workload
count over that at 1,000 (the issue's target; a rule quadratic in the stack shows here),
and time per (workload x pool) pair as pools grow (placement is O(workloads x pools)).
"""
from __future__ import annotations

from contextlib import ExitStack

from bench.measure import Row, median, ratio, seconds
from bench.pack_passes import (FLOOR, NOOP_PACK, PACK_DIR, checkov_seconds, checkov_skipped, one_pass, peak_rss_kib,
                               record, start, write_manifests)

NAME = "3 pack scale"
GROWTH_TARGET = 1.2  # issue 22: per resource at 10,000 workloads within 1.2x of 1,000


def _reps(settings, workloads: int) -> int:
    """Fewer rounds for the large stacks (a Checkov scan of 10,000 files takes minutes)."""
    return settings.reps if workloads <= 1000 else min(settings.reps, 2)


def measure(settings, workloads: int, pools: int) -> dict:
    recorded = record(workloads, pools)
    skipped = checkov_skipped(settings.quick)
    manifests = settings.workdir / f"scale-{workloads}-{pools}"
    if not skipped:
        write_manifests(recorded.resources, manifests)
    passes: dict[str, list[float]] = {"real": [], "floor": []}
    scans: list[float] = []
    with ExitStack() as stack:
        packs = {"real": start(stack, PACK_DIR), "floor": start(stack, NOOP_PACK, FLOOR)}
        for rep in range(_reps(settings, workloads)):
            for name in (["real", "floor"] if rep % 2 == 0 else ["floor", "real"]):
                passes[name].append(one_pass(packs[name], recorded)[0])
            if not skipped:
                scans.append(checkov_seconds(manifests))
        rss = {name: peak_rss_kib(runner) for name, runner in packs.items()}
    real, floor = median(passes["real"]), median(passes["floor"])
    return {"workloads": workloads, "pools": pools, "resources": len(recorded.resources), "real": real,
            "floor": floor, "checkov": median(scans) if scans else None, "rss": rss, "skipped": skipped}


def _rows(m: dict) -> list[Row]:
    per = m["real"] / m["resources"]
    label = f"{m['workloads']} workloads x {m['pools']} pools ({m['resources']} resources)"
    rows = [Row(NAME, f"{label}: pass ({per * 1e6:.0f} us/resource), peak RSS; / floor",
                f"{seconds(m['real'])}, {m['rss']['real'] / 1024:.0f} MiB",
                f"{seconds(m['floor'])}, {m['rss']['floor'] / 1024:.0f} MiB", ratio(m["real"], m["floor"]))]
    if m["checkov"] is not None:
        rows.append(Row(NAME, "  the same pass / Checkov on the same workloads (whole process)", seconds(m["real"]),
                        seconds(m["checkov"]), ratio(m["real"], m["checkov"])))
    return rows


def run(settings) -> list[Row]:
    base, pools = settings.pack_workloads, settings.pack_scale_pools  # base: one of the workload counts
    points = [(w, pools[0]) for w in settings.pack_scale_workloads] + [(base, p) for p in pools[1:]]
    results = {point: measure(settings, *point) for point in points}
    rows = [row for m in results.values() for row in _rows(m)]
    per = {point: m["real"] / m["resources"] for point, m in results.items()}
    largest = (settings.pack_scale_workloads[-1], pools[0])
    rows.append(Row(NAME, f"time per resource at {largest[0]} workloads / at {base}", f"{per[largest] * 1e6:.0f} us",
                    f"{per[(base, pools[0])] * 1e6:.0f} us", ratio(per[largest], per[(base, pools[0])]), GROWTH_TARGET))
    pair = {p: results[(base, p)]["real"] / (base * p) for p in pools}
    rows.append(Row(NAME, f"time per (workload x pool) pair at {base} workloads, {pools[-1]} pools / {pools[0]} pools",
                    f"{pair[pools[-1]] * 1e6:.1f} us", f"{pair[pools[0]] * 1e6:.1f} us",
                    ratio(pair[pools[-1]], pair[pools[0]])))
    return rows
