"""Benchmarks of nodepools against the floors of the Pulumi SDK (``bench/run.py``; see BENCHMARKS.md)."""
