"""One policy-pack process for the whole session (starting it costs about half a second
of a shared CPU); each test reconfigures it and sends its own resources. The pack is
``policy/`` unless ``NODEPOOLS_TEST_PACK`` says otherwise (tests/pack/pack_under_test.py)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "pack"))

from pack_under_test import pack_runner  # noqa: E402


@pytest.fixture(scope="session")
def pack(session_told):
    """Judging on the suite's date (tests/suite_dates.py) unless a config names its own ``today``."""
    runner = pack_runner(today=session_told).start()
    yield runner
    runner.close()


@pytest.fixture
def check(pack, told, session_told):
    """``check(fixture | Run | resources, config=None)`` -> every diagnostic of the real pack over gRPC,
    judged on the test's date (``told``: a ``dated`` test's boundary, else the suite's)."""
    def run(resources, config=None):
        items = getattr(resources, "items", None) or getattr(resources, "resources", None) or resources
        pack.today = told
        try:
            return pack.check(list(items), config)
        finally:
            pack.today = session_told
    return run
