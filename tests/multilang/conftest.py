"""Fixtures of the multi-language tests; the harness is ``multilang_harness``, the shared
configs ``multilang_configs`` (importable: this directory is put on ``sys.path``, as in
tests/placement and tests/policy)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import multilang_harness  # noqa: E402


@pytest.fixture
def construct():
    """``construct(component, wire, name="p", preview=True) -> Constructed``."""
    return multilang_harness.construct
