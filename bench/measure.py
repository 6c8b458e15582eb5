"""Shared machinery: fresh worker processes, interleaved repetitions, medians, the result table.

Every comparison is a ratio of two medians taken in the same invocation, with
the cases interleaved (rep 1: A B C, rep 2: B C A, ...), so load from other
processes hits every case alike and cancels in the ratio.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
HEADERS = ("benchmark", "measure", "ours", "floor", "ratio", "target", "verdict")


@dataclass(frozen=True)
class Row:
    benchmark: str
    measure: str
    ours: str
    floor: str = ""
    ratio: float | None = None
    target: float | None = None  # the ratio must be <= target; None: for information

    @property
    def verdict(self) -> str:
        if self.target is None or self.ratio is None:
            return "info"
        return "ok" if self.ratio <= self.target else "MISSED"

    def cells(self) -> tuple[str, ...]:
        ratio = "" if self.ratio is None else f"{self.ratio:.2f}x"
        target = "" if self.target is None else f"<= {self.target:.2f}x"
        return self.benchmark, self.measure, self.ours, self.floor, ratio, target, self.verdict


def table(rows: Iterable[Row]) -> str:
    """A Markdown table (readable in a terminal, pasteable into BENCHMARKS.md)."""
    lines = [HEADERS, *(r.cells() for r in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADERS))]
    out = ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |" for line in lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def mib(kib: float) -> str:
    return f"{kib / 1024:.1f} MiB"


def spawn(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, float]:
    """Run ``argv`` from the repository root; (stdout, wall seconds from spawn to exit)."""
    begin = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - begin
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout, wall


def worker(case: str, *options: str) -> dict[str, Any]:
    """One ``bench/worker.py`` measurement in a fresh interpreter."""
    out, wall = spawn([PYTHON, str(ROOT / "bench" / "worker.py"), case, *options])
    return {**json.loads(out.strip().splitlines()[-1]), "process_s": wall}


def interleaved(cases: dict[str, list[str]], reps: int) -> dict[str, list[dict[str, Any]]]:
    """``reps`` fresh-process measurements of every case (name -> worker arguments), in
    rotating order."""
    names = list(cases)
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(worker(*cases[name]))
    return results


def rounds(processes: list[dict[str, Any]]) -> list[dict[str, dict[str, float]]]:
    """Every round of every process (``bench/worker.py`` output): case -> wall_s, gc_s."""
    return [r for p in processes for r in p["rounds"]]


def walls(processes: list[dict[str, Any]], case: str, key: str = "wall_s") -> float:
    """Median over every round of ``case``'s ``key``."""
    return median(r[case][key] for r in rounds(processes))


def paired(processes: list[dict[str, Any]], ours: str, floor: str, per: dict[str, int] | None = None) -> float:
    """Median over rounds of ``ours / floor`` taken within the round (adjacent runs in
    one process); ``per`` divides each case by its resource count first."""
    per = per or {}
    return median((r[ours]["wall_s"] / per.get(ours, 1)) / (r[floor]["wall_s"] / per.get(floor, 1))
                  for r in rounds(processes))


def ratio(ours: float, floor: float) -> float:
    return ours / floor if floor else float("inf")
