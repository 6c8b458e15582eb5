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

Side by side, a pipeline user's alternative: Checkov scanning the same workloads
written as Kubernetes YAML (one file each), one ``checkov -d`` process per
repetition, interleaved with the passes. Checkov lives in its own virtualenv
(``NODEPOOLS_BENCH_CHECKOV``, default ``.bench-venv/bin/checkov``; never the
project's); without it, or with ``--quick``, the row says so.

``NODEPOOLS_BENCH_BASELINE=<a checkout's components/ directory>`` adds a fifth
process: the real pack importing that older package, so "no slower than before"
is a paired ratio in the same run (e.g. ``git archive <commit> components policy | tar -x``).
The baseline runs its own checkout's ``policy/`` when it sits beside that directory (a
pack's ``__main__.py`` follows its package's API), else this repository's.
"""
from __future__ import annotations

import os
import subprocess
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from bench.measure import ROOT, Row, median, ratio, seconds
from bench.workloads import workloads_program

NAME = "3 policy pack"
TARGET = 1.5
RULES_TARGET = 1.25  # issue 14: our rules over the SDK's per-policy floor
PACK_DIR = ROOT / "policy"
NOOP_PACK = ROOT / "bench" / "noop_pack"
GC_DEFAULT = ROOT / "bench" / "gc_default"  # a sitecustomize that undoes the pack's collector tuning
CHECKOV = Path(os.environ.get("NODEPOOLS_BENCH_CHECKOV", ROOT / ".bench-venv" / "bin" / "checkov"))
WORKLOAD_TYPE_PREFIXES = ("kubernetes:apps/", "kubernetes:batch/", "kubernetes:core/v1:Pod")


def write_manifests(resources, directory: Path) -> int:
    """Each workload as the YAML manifest pulumi-kubernetes would apply; returns the count."""
    import yaml
    from google.protobuf import json_format

    def ints(value):  # the wire carries every number as a float; a manifest writes 2, not 2.0
        if isinstance(value, dict):
            return {k: ints(v) for k, v in value.items()}
        if isinstance(value, list):
            return [ints(v) for v in value]
        return int(value) if isinstance(value, float) and value.is_integer() else value

    directory.mkdir(parents=True, exist_ok=True)
    count = 0
    for r in resources:
        if not r.type.startswith(WORKLOAD_TYPE_PREFIXES):
            continue
        group_version, kind = r.type.split(":")[1:]
        props = r.properties if isinstance(r.properties, dict) else json_format.MessageToDict(r.struct())
        doc = {"apiVersion": group_version.removeprefix("core/"), "kind": kind, **ints(props)}
        (directory / f"{count:04d}-{r.name}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
        count += 1
    return count


def checkov_seconds(directory: Path) -> float:
    """Wall time of one ``checkov -d`` scan of ``directory`` (a failed scan is an error)."""
    begin = time.perf_counter()
    done = subprocess.run([str(CHECKOV), "-d", str(directory), "--framework", "kubernetes", "--quiet", "--compact",
                           "--output", "json", "--skip-download"], capture_output=True, text=True,
                          env={**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"})
    elapsed = time.perf_counter() - begin
    if done.returncode not in (0, 1):  # 1 = findings
        raise RuntimeError(f"checkov failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


BASELINE = os.environ.get("NODEPOOLS_BENCH_BASELINE", "")
BASELINE_PACK_DIR = Path(BASELINE).parent / "policy" if BASELINE else PACK_DIR
if not (BASELINE_PACK_DIR / "PulumiPolicy.yaml").is_file():
    BASELINE_PACK_DIR = PACK_DIR


def _start(stack: ExitStack, pack_dir: Path, noop: str = "1,0", gc_default: bool = False, baseline: str = ""):
    """A started, configured runner; the environment it inherits is restored at once."""
    from nodepools.offline.analyzer import PolicyPackRunner

    extra = {"NODEPOOLS_BENCH_NOOP": noop}  # read by bench/noop_pack at start-up
    if baseline:
        extra["PYTHONPATH"] = os.pathsep.join(filter(None, [baseline, os.environ.get("PYTHONPATH")]))
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
    use_checkov = CHECKOV.is_file() and settings.pack_workloads >= 100  # not in --quick
    manifests = settings.workdir / "checkov-manifests"
    written = write_manifests(resources, manifests) if use_checkov else 0
    empty = settings.workdir / "checkov-empty"
    empty.mkdir(exist_ok=True)
    checkov: dict[str, list[float]] = {"scan": [], "empty": []}
    with ExitStack() as stack:
        packs = {
            "real": _start(stack, PACK_DIR),
            "floor": _start(stack, NOOP_PACK),
            "sdk": _start(stack, NOOP_PACK, f"{scopes['resource']},{scopes['stack']}"),
            "untuned": _start(stack, PACK_DIR, gc_default=True),
            **({"baseline": _start(stack, BASELINE_PACK_DIR, baseline=BASELINE)} if BASELINE else {}),
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
            if use_checkov:
                checkov["scan"].append(checkov_seconds(manifests))
                checkov["empty"].append(checkov_seconds(empty))
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
            seconds(t["sdk"]), ratio(t["real"], t["sdk"]), RULES_TARGET),
        Row(NAME, "  diagnostic, real pack with CPython's default collector (bench/gc_default) / 1 no-op",
            seconds(t["untuned"]), seconds(t["floor"]), ratio(t["untuned"], t["floor"])),
        Row(NAME, "  pack process peak RSS (VmHWM)", f"{rss['real'] / 1024:.0f} MiB",
            f"{rss['floor'] / 1024:.0f} MiB", ratio(rss["real"], rss["floor"])),
        Row(NAME, f"  verdicts of the real pack: {violations} violations, "
            f"{len(diagnostics) - violations} cannot-judge notices", "", ""),
        *([Row(NAME, f"  full preview pass: this code / baseline package ({BASELINE})", seconds(t["real"]),
               seconds(t["baseline"]), ratio(t["real"], t["baseline"]), 1.0)] if BASELINE else []),
        *_checkov_rows(checkov, written, t["real"], use_checkov),
    ]


def _checkov_rows(checkov: dict[str, list[float]], written: int, real: float, used: bool) -> list[Row]:
    if not used:
        why = "--quick" if CHECKOV.is_file() else f"not installed at {CHECKOV}"
        return [Row(NAME, f"  side by side, Checkov: skipped ({why})", "", "")]
    scan, empty = median(checkov["scan"]), median(checkov["empty"])
    return [
        Row(NAME, f"  side by side: our pack's pass / Checkov scanning the same {written} workloads as YAML "
            "(whole process)", seconds(real), seconds(scan), ratio(real, scan)),
        Row(NAME, "  Checkov's scan without its start-up (scan - empty-directory run)", seconds(real),
            seconds(scan - empty), ratio(real, scan - empty)),
    ]
