"""The benchmark script runs end to end (``--quick``: tiny sizes, numbers meaningless).

Speed is never asserted here; only that every benchmark still runs against the
current code and prints its table. The end-to-end run takes about two minutes of a
2-core machine, so it is marked ``bench``: ``make bench-smoke`` and ``make test-all``
run it, ``make test`` leaves it out.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.bench
def test_quick_run_prints_the_table_of_every_benchmark():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("| benchmark"))
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "benchmark", "measure", "ours", "floor", "ratio", "target", "verdict"]
    benchmarks = {line.split("|")[1].strip() for line in lines[lines.index(header) + 2:] if line.startswith("|")}
    assert benchmarks == {"1 overhead", "2 fleet", "3 policy pack", "3 pack start-up", "3 pack scale", "3 placement",
                          "4 plan"}


def test_unknown_benchmark_is_refused_with_the_choices():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--only", "nope"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown benchmark(s) nope (choose from overhead, fleet, pack, pack-scale, placement, plan)" in done.stderr
