"""Diagnostic for ``bench/policy_pack.py``: the pack process with CPython's default collector.

``nodepools.pack.serve`` freezes the imported objects and raises the collector's
thresholds before its server starts. On ``PYTHONPATH``, Python imports this module at
start-up; it leaves the collector as CPython sets it, whatever the pack asks, so the
bench can show what the tuning is worth.
"""
import gc

gc.freeze = lambda: None
gc.set_threshold = lambda *thresholds: None
