"""Benchmark 2: N clusters x 4 pools + guardrails in one program; does time per resource stay flat?

Each size runs in fresh processes (after a one-cluster warm-up run, so lazy
imports are paid before the clock starts), interleaved with the other sizes.
The raw floor (``bench.flat`` replay of the same fleet's registrations) runs at
the smallest and largest size too: growth it shares is the SDK's and the
interpreter's, not ours. ``gc`` is the time CPython's cyclic garbage collector
takes during the run, measured with ``gc.callbacks``.
"""
from __future__ import annotations

import json

from bench.flat import flat_spec
from bench.measure import Row, interleaved, median, ratio, warm
from bench.programs import fleet_runner

NAME = "2 fleet"
TARGET = 1.2


def _per_resource(results: list[dict], key: str = "warm_s") -> float:
    return median(median(r[key]) / r["resources"] for r in results)


def _excluding_gc(results: list[dict]) -> float:
    return median(median(w - g for w, g in zip(r["warm_s"], r["gc_s"])) / r["resources"] for r in results)


def _us(value: float) -> str:
    return f"{value * 1e6:.0f} us/res"


def run(settings) -> list[Row]:
    sizes = settings.fleet_sizes
    small, large = sizes[0], sizes[-1]
    for size in (small, large):
        spec = flat_spec(fleet_runner(size)())
        (settings.workdir / f"fleet-{size}.flat.json").write_text(json.dumps(spec))
    warmup = ["--warmup", "fleet:1", "--warm", "1"]
    cases = {f"ours-{n}": [f"fleet:{n}", *warmup] for n in sizes}
    cases.update({f"raw-{n}": [f"flat:{settings.workdir / f'fleet-{n}.flat.json'}:fleet", *warmup]
                  for n in (small, large)})
    results = interleaved(cases, settings.reps)
    base, base_raw = _per_resource(results[f"ours-{small}"]), _per_resource(results[f"raw-{small}"])
    base_no_gc = _excluding_gc(results[f"ours-{small}"])
    rows = []
    for n in sizes:
        mine = results[f"ours-{n}"]
        count = mine[0]["resources"]
        per = _per_resource(mine)
        gc_share = median(sum(r["gc_s"]) / sum(r["warm_s"]) for r in mine)
        rows.append(Row(NAME, f"{n} cluster(s), {count} registrations: time per resource (gc {gc_share:.0%})",
                        _us(per), _us(base) if n != small else "", ratio(per, base) if n != small else None,
                        TARGET if n == large and n != small else None))
    rows.append(Row(NAME, f"  same, excluding the garbage collector, {large} vs {small}",
                    _us(_excluding_gc(results[f"ours-{large}"])), _us(base_no_gc),
                    ratio(_excluding_gc(results[f"ours-{large}"]), base_no_gc)))
    per_raw = _per_resource(results[f"raw-{large}"])
    rows.append(Row(NAME, f"  raw floor (same registrations), {large} vs {small}", _us(per_raw), _us(base_raw),
                    ratio(per_raw, base_raw)))
    rows.append(Row(NAME, f"  ours / raw floor at {large} (vs {ratio(base, base_raw):.2f}x at {small})",
                    _us(_per_resource(results[f"ours-{large}"])), _us(per_raw),
                    ratio(_per_resource(results[f"ours-{large}"]), per_raw)))
    peak = median(r["peak_kib"] for r in results[f"ours-{large}"]) / 1024
    rows.append(Row(NAME, f"  process peak RSS at {large} cluster(s)", f"{peak:.0f} MiB"))
    return rows
