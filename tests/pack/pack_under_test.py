"""Which pack a suite judges with, from ``NODEPOOLS_TEST_PACK``:

- unset: the repository's ``policy/`` (nodepools' own Analyzer servicer);
- ``reference``: the reference server (``tests/pack/reference_pack``: the rules under
  pulumi_policy's servicer, as the pack was served before);
- ``parity``: both at once; every answer must be the same (``parity.ParityRunner``);
- any other value: that pack folder.

``make test-parity`` runs the policy suite, the policy fuzzer and the upstream corpus
with ``parity``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from nodepools.offline.analyzer import PolicyPackRunner

ROOT = Path(__file__).resolve().parents[2]
OURS = ROOT / "policy"
REFERENCE = ROOT / "tests" / "pack" / "reference_pack"


def pack_runner(**options: Any) -> PolicyPackRunner:
    """A runner (not started) for the pack under test."""
    choice = os.environ.get("NODEPOOLS_TEST_PACK", "")
    if choice == "parity":
        from parity import ParityRunner
        return ParityRunner(pack_dir=OURS, reference_dir=REFERENCE, **options)
    if choice == "reference":
        return PolicyPackRunner(pack_dir=REFERENCE, **options)
    return PolicyPackRunner(pack_dir=Path(choice) if choice else OURS, **options)
