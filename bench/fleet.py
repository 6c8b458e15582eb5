"""Benchmark 2: N clusters x 4 pools + guardrails in one program; does time per resource stay flat?

Every size runs in each worker process, in rotating order, after a one-cluster
warm-up run (lazy imports are paid before the clock starts); ratios are medians
of ratios between runs of the same round.
The raw floor (``bench.flat`` replay of the same fleet's registrations) runs at
the smallest and largest size too: growth it shares is the SDK's and the
interpreter's, not ours. ``gc`` is the time CPython's cyclic garbage collector
takes during the run, measured with ``gc.callbacks``; the offline engine raises
its thresholds during a run, and a diagnostic row shows the same program with
CPython's defaults.
"""
from __future__ import annotations

import json

from bench.flat import flat_spec
from bench.measure import Row, median, paired, ratio, rounds, walls, worker
from bench.programs import fleet_runner

NAME = "2 fleet"
TARGET = 1.2


def _us(value: float) -> str:
    return f"{value * 1e6:.0f} us/res"


def run(settings) -> list[Row]:
    sizes = settings.fleet_sizes
    small, large = sizes[0], sizes[-1]
    raw = {}
    for size in (small, large):
        path = settings.workdir / f"fleet-{size}.flat.json"
        path.write_text(json.dumps(flat_spec(fleet_runner(size)())))
        raw[size] = f"flat:{path}:fleet"
    ours = {n: f"fleet:{n}" for n in sizes}
    cases = [*ours.values(), *raw.values()]
    processes = [worker(*cases, "--warmup", "fleet:1", "--warm", "1") for _ in range(settings.reps)]
    count = processes[0]["resources"]

    def per(case: str, key: str = "wall_s") -> float:
        return walls(processes, case, key) / count[case]

    def per_excluding_gc(case: str) -> float:
        return median(r[case]["wall_s"] - r[case]["gc_s"] for r in rounds(processes)) / count[case]

    rows = []
    for n in sizes:
        gc_share = median(r[ours[n]]["gc_s"] / r[ours[n]]["wall_s"] for r in rounds(processes))
        scaled = n != small
        rows.append(Row(NAME, f"{n} cluster(s), {count[ours[n]]} registrations: time per resource (gc {gc_share:.0%})",
                        _us(per(ours[n])), _us(per(ours[small])) if scaled else "",
                        paired(processes, ours[n], ours[small], count) if scaled else None,
                        TARGET if n == large and scaled else None))
    rows.append(Row(NAME, f"  same, excluding the garbage collector, {large} vs {small}",
                    _us(per_excluding_gc(ours[large])), _us(per_excluding_gc(ours[small])),
                    ratio(per_excluding_gc(ours[large]), per_excluding_gc(ours[small]))))
    rows.append(Row(NAME, f"  raw floor (same registrations replayed), {large} vs {small}", _us(per(raw[large])),
                    _us(per(raw[small])), paired(processes, raw[large], raw[small], count)))
    rows.append(Row(NAME, f"  ours / raw floor at {large} (vs {paired(processes, ours[small], raw[small], count):.2f}x "
                    f"at {small})", _us(per(ours[large])), _us(per(raw[large])),
                    paired(processes, ours[large], raw[large], count)))
    # The same program with CPython's default thresholds, as a `pulumi preview` of it runs
    # unless its entry point raises them (the offline engine does; nodepools.offline.engine).
    default = [worker(ours[small], ours[large], "--warmup", "fleet:1", "--warm", "1", "--gc-default")
               for _ in range(settings.reps)]
    gc_share = median(r[ours[large]]["gc_s"] / r[ours[large]]["wall_s"] for r in rounds(default))
    rows.append(Row(NAME, f"  diagnostic, CPython's default gc thresholds: {large} vs {small} (gc {gc_share:.0%} at "
                    f"{large})", _us(walls(default, ours[large]) / count[ours[large]]),
                    _us(walls(default, ours[small]) / count[ours[small]]),
                    paired(default, ours[large], ours[small], count)))
    peak = median(p["peak_kib"] for p in processes) / 1024
    rows.append(Row(NAME, f"  process peak RSS (VmHWM) after {large} cluster(s)", f"{peak:.0f} MiB"))
    return rows
