"""Benchmark 3a: the real policy pack over the Analyzer protocol, against its floor and Checkov.

One recorded stack (aws-prod pools + guardrails + N workloads, ``bench.workloads``) is
sent as the engine sends it (``Analyze`` per resource, then ``AnalyzeStack``) to pack
processes started alike (``bench.pack_passes``), passes interleaved:

- the real pack (``policy/``: nodepools' own Analyzer servicer);
- the floor: pulumi_policy serving two no-op policies that read every resource
  (``bench/noop_pack``);
- a diagnostic: the real pack with CPython's default collector (``bench/gc_default``).

Side by side, Checkov scans the same workloads as YAML, one ``checkov -d`` per round.
``NODEPOOLS_BENCH_BASELINE=<a checkout's components/ directory>`` adds the real pack
of that older package (its own checkout's ``policy/`` when it sits beside it), so
"faster than before" is a paired ratio of the same run.

Start-up ("3 pack start-up"): fresh pack processes, real and floor alternating, timed
from spawn to the answer of ``GetAnalyzerInfo`` (the first question whose answer needs
the pack's policies; the engine asks it right after ``Handshake`` and ``ConfigureStack``),
then to ``Configure`` done and to a first ``Analyze`` answered.
"""
from __future__ import annotations

import os
import time
from contextlib import ExitStack
from pathlib import Path

from bench.measure import Row, median, ratio, seconds
from bench.pack_passes import (FLOOR, NOOP_PACK, PACK_DIR, checkov_seconds, checkov_skipped, one_pass, pack_env,
                               peak_rss_kib, record, start, write_manifests)

NAME = "3 policy pack"
STARTUP = "3 pack start-up"
FLOOR_TARGET = 1.5  # issue 22: the pack within 1.5x of the two-policy no-op floor
CHECKOV_TARGET = 0.3
STARTUP_TARGET = 1.2
BASELINE = os.environ.get("NODEPOOLS_BENCH_BASELINE", "")
BASELINE_PACK_DIR = Path(BASELINE).parent / "policy" if BASELINE else PACK_DIR
if not (BASELINE_PACK_DIR / "PulumiPolicy.yaml").is_file():
    BASELINE_PACK_DIR = PACK_DIR


def run(settings) -> list[Row]:
    recorded = record(settings.pack_workloads)
    skipped = checkov_skipped(settings.quick)
    manifests, empty = settings.workdir / "checkov-manifests", settings.workdir / "checkov-empty"
    written = 0 if skipped else write_manifests(recorded.resources, manifests)
    empty.mkdir(exist_ok=True)
    checkov: dict[str, list[float]] = {"scan": [], "empty": []}
    with ExitStack() as stack:
        packs = {"real": start(stack, PACK_DIR), "floor": start(stack, NOOP_PACK, FLOOR),
                 "untuned": start(stack, PACK_DIR, gc_default=True),
                 **({"baseline": start(stack, BASELINE_PACK_DIR, pythonpath=BASELINE)} if BASELINE else {})}
        passes: dict[str, list[float]] = {name: [] for name in packs}
        names, diagnostics = list(packs), []
        for rep in range(settings.reps):
            for name in names[rep % len(names):] + names[:rep % len(names)]:
                elapsed, found = one_pass(packs[name], recorded)
                passes[name].append(elapsed)
                diagnostics = found if name == "real" else diagnostics
            if not skipped:
                checkov["scan"].append(checkov_seconds(manifests))
                checkov["empty"].append(checkov_seconds(empty))
        rss = {name: peak_rss_kib(runner) for name, runner in packs.items()}
    t = {name: median(values) for name, values in passes.items()}
    cannot = sum(1 for d in diagnostics if d.message.startswith("can't run policy"))
    label = f"{settings.pack_workloads} workloads + 4 pools ({len(recorded.resources)} resources)"
    rows = [
        Row(NAME, f"one preview pass, {label}: pack / no-op floor (pulumi_policy, 2 policies reading each resource)",
            seconds(t["real"]), seconds(t["floor"]), ratio(t["real"], t["floor"]), FLOOR_TARGET),
        Row(NAME, "  diagnostic: the pack with CPython's default collector (bench/gc_default) / the pack",
            seconds(t["untuned"]), seconds(t["real"]), ratio(t["untuned"], t["real"])),
        Row(NAME, "  pack process peak RSS (VmHWM)", f"{rss['real'] / 1024:.0f} MiB", f"{rss['floor'] / 1024:.0f} MiB",
            ratio(rss["real"], rss["floor"])),
        Row(NAME, f"  verdicts of the pack: {len(diagnostics) - cannot} violations, {cannot} cannot-judge notices", "",
            ""),
        *([Row(NAME, f"  full preview pass: this code / baseline package ({BASELINE})", seconds(t["real"]),
               seconds(t["baseline"]), ratio(t["real"], t["baseline"]), 1.0)] if BASELINE else []),
    ]
    if skipped:
        rows.append(Row(NAME, f"  side by side, Checkov: skipped ({skipped})", "", ""))
    else:
        scan, bare = median(checkov["scan"]), median(checkov["empty"])
        rows += [Row(NAME, f"  the same pass / Checkov scanning the same {written} workloads as YAML (whole process)",
                     seconds(t["real"]), seconds(scan), ratio(t["real"], scan), CHECKOV_TARGET),
                 Row(NAME, "  the same pass / Checkov's scan without its start-up (scan - empty-directory run)",
                     seconds(t["real"]), seconds(scan - bare), ratio(t["real"], scan - bare))]
    return rows + startup_rows(settings, recorded)


def _start_up(pack_dir: Path, first_request) -> tuple[float, float, float]:
    """Seconds from spawn to GetAnalyzerInfo answered, to Configure done, to a first Analyze."""
    from nodepools.offline.analyzer import PolicyPackRunner

    with ExitStack() as stack:
        begin = time.perf_counter()
        with pack_env(FLOOR):
            runner = stack.enter_context(PolicyPackRunner(pack_dir=pack_dir, stack="bench"))
        runner.info()
        answered = time.perf_counter()
        runner.configure()
        configured = time.perf_counter()
        runner.call("Analyze", first_request)
        judged = time.perf_counter()
    return answered - begin, configured - begin, judged - begin


def startup_rows(settings, recorded) -> list[Row]:
    cases = {"real": PACK_DIR, "floor": NOOP_PACK}
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
    for name in cases:  # untimed: the first start writes the byte-compiled modules
        _start_up(cases[name], recorded.analyze[0])
    for rep in range(max(settings.reps * 2, 3)):
        for name in (["real", "floor"] if rep % 2 == 0 else ["floor", "real"]):
            times[name].append(_start_up(cases[name], recorded.analyze[0]))
    real, floor = ([median(t[i] for t in times[name]) for i in range(3)] for name in ("real", "floor"))
    return [
        Row(STARTUP, "time to first answer: spawn -> GetAnalyzerInfo answered, pack / no-op floor", seconds(real[0]),
            seconds(floor[0]), ratio(real[0], floor[0]), STARTUP_TARGET),
        Row(STARTUP, "  spawn -> Configure done (every policy's defaults)", seconds(real[1]), seconds(floor[1]),
            ratio(real[1], floor[1])),
        Row(STARTUP, "  spawn -> first Analyze answered", seconds(real[2]), seconds(floor[2]),
            ratio(real[2], floor[2])),
    ]
