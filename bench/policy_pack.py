"""Benchmark 3a: the real policy pack over the Analyzer protocol against no-op packs.

One recorded stack (aws-prod pools + guardrails + N workloads, ``bench.workloads``)
is sent, as the engine sends it (``Analyze`` per resource, then ``AnalyzeStack``),
to pack processes started alike by ``nodepools.offline.analyzer``:

- the real pack (``policy/``);
- the protocol's floor: one no-op resource policy (``bench/noop_pack``);
- the SDK's per-policy floor: as many no-op resource and stack policies as the
  real pack has (``pulumi_policy`` deserialises every resource again for each
  policy, whatever the policy does), so real / this floor is our rules alone.

A fourth process runs the real pack with CPython's default garbage collector
(``bench/gc_default`` undoes ``policy/__main__.py``'s tuning), as a diagnostic.
Passes are interleaved across the packs; each time is one full pass.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from bench.measure import ROOT, Row, median, ratio, seconds
from bench.workloads import workloads_program

NAME = "3 policy pack"
TARGET = 1.5
PACK_DIR = ROOT / "policy"
NOOP_PACK = ROOT / "bench" / "noop_pack"
GC_DEFAULT = ROOT / "bench" / "gc_default"  # a sitecustomize that undoes the pack's collector tuning


def _start(stack: ExitStack, pack_dir: Path, noop: str = "1,0", gc_default: bool = False):
    """A started, configured runner; the environment it inherits is restored at once."""
    from nodepools.offline.analyzer import PolicyPackRunner

    extra = {"NODEPOOLS_BENCH_NOOP": noop}  # read by bench/noop_pack at start-up
    if gc_default:
        extra["PYTHONPATH"] = os.pathsep.join(filter(None, [str(GC_DEFAULT), os.environ.get("PYTHONPATH")]))
    previous = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)
    try:
        runner = stack.enter_context(PolicyPackRunner(pack_dir=pack_dir, stack="bench"))
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key)
            else:
                os.environ[key] = value
    runner.configure()
    return runner


def _peak_rss_kib(runner) -> int:
    """The pack process's peak RSS (VmHWM), read before it exits."""
    status = Path(f"/proc/{runner._process.pid}/status").read_text()  # noqa: SLF001 - the runner owns the process
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


def run(settings) -> list[Row]:
    from nodepools.offline.analyzer import PackResource
    from nodepools.offline.engine import run_program
    from nodepools.policies.registry import POLICIES

    recorded = run_program(workloads_program(settings.pack_workloads), stack="bench")
    resources = [PackResource.from_registration(r) for r in recorded.resources]
    scopes = Counter(p.scope for p in POLICIES)
    with ExitStack() as stack:
        packs = {
            "real": _start(stack, PACK_DIR),
            "floor": _start(stack, NOOP_PACK),
            "sdk": _start(stack, NOOP_PACK, f"{scopes['resource']},{scopes['stack']}"),
            "untuned": _start(stack, PACK_DIR, gc_default=True),
        }
        passes: dict[str, list[float]] = {name: [] for name in packs}
        diagnostics = []
        names = list(packs)
        for rep in range(settings.reps):
            for name in names[rep % len(names):] + names[:rep % len(names)]:
                begin = time.perf_counter()
                found = packs[name].analyze(resources)
                passes[name].append(time.perf_counter() - begin)
                if name == "real":
                    diagnostics = found
        rss = {name: _peak_rss_kib(runner) for name, runner in packs.items()}
    t = {name: median(values) for name, values in passes.items()}
    violations = sum(1 for d in diagnostics if not d.cannot_judge)
    label = f"{settings.pack_workloads} workloads + 4 pools ({len(resources)} resources)"
    return [
        Row(NAME, f"one preview pass, {label}", seconds(t["real"]), seconds(t["floor"]),
            ratio(t["real"], t["floor"]), TARGET),
        Row(NAME, f"  of which the SDK's per-policy cost ({scopes['resource']} resource + {scopes['stack']} stack "
            "no-op policies / 1)", seconds(t["sdk"]), seconds(t["floor"]), ratio(t["sdk"], t["floor"])),
        Row(NAME, "  of which our rules (real / same count of no-op policies)", seconds(t["real"]),
            seconds(t["sdk"]), ratio(t["real"], t["sdk"])),
        Row(NAME, "  diagnostic, real pack with CPython's default collector (bench/gc_default) / 1 no-op",
            seconds(t["untuned"]), seconds(t["floor"]), ratio(t["untuned"], t["floor"])),
        Row(NAME, "  pack process peak RSS (VmHWM)", f"{rss['real'] / 1024:.0f} MiB",
            f"{rss['floor'] / 1024:.0f} MiB", ratio(rss["real"], rss["floor"])),
        Row(NAME, f"  verdicts of the real pack: {violations} violations, "
            f"{len(diagnostics) - violations} cannot-judge notices", "", ""),
    ]
