"""Benchmark 1: the ``aws-prod`` stack program against the flat programs of the same resources.

Three cases:

- ``ours``: ``stacks/__main__.py`` with ``Pulumi.aws-prod.yaml`` under the mock engine;
- ``raw floor``: every custom registration of that run replayed as a raw
  ``pulumi.CustomResource``/``ProviderResource`` (the SDK itself, nothing above it);
- ``typed floor``: the same replay through the provider SDKs' generated classes,
  which splits the gap into the SDK's typed layer and ours.

Both floors are checked first to send byte-identical wire inputs and the same
dependencies as the real run (``bench.flat.differences``). Wall time: the three
alternate inside each worker process and the ratio is the median of ratios of
adjacent runs (machine load cancels). Memory and cold start: each case alone in
fresh processes, interleaved; the run's own memory is its ``tracemalloc`` peak,
since the process's RSS is mostly the imported SDKs (its row shows that).
"""
from __future__ import annotations

import json

from bench.flat import differences, flat_program, flat_spec
from bench.measure import Row, interleaved, median, mib, paired, ratio, seconds, walls, worker
from bench.programs import stack_runner

NAME = "1 overhead"
STACK = "aws-prod"
WALL_TARGET, MEMORY_TARGET = 1.15, 1.10


def _faithful_spec(path) -> int:
    from nodepools.offline.engine import run_program

    run = stack_runner(STACK)()
    spec = flat_spec(run)
    for typed in (False, True):
        replay = run_program(flat_program(spec, typed=typed), project="nodepools", stack=STACK)
        problems = differences(run, replay)
        if problems:
            raise RuntimeError(f"the {'typed' if typed else 'raw'} floor is not faithful: " + "; ".join(problems[:5]))
    path.write_text(json.dumps(spec))
    return len(run.resources)


def run(settings) -> list[Row]:
    path = settings.workdir / f"{STACK}.flat.json"
    registrations = _faithful_spec(path)
    ours, typed, raw = f"stack:{STACK}", f"typed:{path}:{STACK}", f"flat:{path}:{STACK}"
    # Wall: the three cases alternate within each process (paired, adjacent runs).
    mixed = [worker(ours, typed, raw, "--warm", str(settings.warm)) for _ in range(settings.reps)]
    wall = {case: walls(mixed, case) for case in (ours, typed, raw)}
    stubbed = [worker(ours, typed, raw, "--warm", str(settings.warm), "--stub-stack-trace")
               for _ in range(settings.reps)]
    # Memory and cold start: each case alone in fresh processes.
    alone = interleaved({case: [case, "--warm", "0", "--traced"] for case in (ours, typed, raw)}, settings.reps)
    traced = {k: median(r["traced_peak_kib"] for r in v) for k, v in alone.items()}
    cold = {k: median(r["cold_s"] for r in v) for k, v in alone.items()}
    peak = {k: median(r["peak_cold_kib"] for r in v) for k, v in alone.items()}
    label = f"{STACK}: {registrations} registrations"
    return [
        Row(NAME, f"warm run wall, {label}", seconds(wall[ours]), seconds(wall[raw]),
            paired(mixed, ours, raw), WALL_TARGET),
        Row(NAME, "  of which the SDK's generated classes (typed floor / raw floor)", seconds(wall[typed]),
            seconds(wall[raw]), paired(mixed, typed, raw)),
        Row(NAME, "  of which our layers (ours / typed floor)", seconds(wall[ours]), seconds(wall[typed]),
            paired(mixed, ours, typed)),
        Row(NAME, "  diagnostic, the SDK's stack capture stubbed: ours / raw floor", seconds(walls(stubbed, ours)),
            seconds(walls(stubbed, raw)), paired(stubbed, ours, raw)),
        Row(NAME, "  diagnostic, the SDK's stack capture stubbed: typed / raw floor", seconds(walls(stubbed, typed)),
            seconds(walls(stubbed, raw)), paired(stubbed, typed, raw)),
        Row(NAME, "peak Python memory of the run (tracemalloc)", mib(traced[ours]), mib(traced[raw]),
            ratio(traced[ours], traced[raw]), MEMORY_TARGET),
        Row(NAME, "  of which the SDK's generated classes", mib(traced[typed]), mib(traced[raw]),
            ratio(traced[typed], traced[raw])),
        Row(NAME, "  of which our layers", mib(traced[ours]), mib(traced[typed]), ratio(traced[ours], traced[typed])),
        Row(NAME, "cold process: imports + first run", seconds(cold[ours]), seconds(cold[raw]),
            ratio(cold[ours], cold[raw])),
        Row(NAME, "  ours / typed floor (both import the provider SDKs)", seconds(cold[ours]), seconds(cold[typed]),
            ratio(cold[ours], cold[typed])),
        Row(NAME, "cold process peak RSS (VmHWM)", mib(peak[ours]), mib(peak[raw]), ratio(peak[ours], peak[raw])),
        Row(NAME, "  ours / typed floor", mib(peak[ours]), mib(peak[typed]), ratio(peak[ours], peak[typed])),
    ]
