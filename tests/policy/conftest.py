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
def pack():
    runner = pack_runner().start()
    yield runner
    runner.close()


@pytest.fixture
def check(pack):
    """``check(fixture | Run | resources, config=None)`` -> every diagnostic of the real pack over gRPC."""
    def run(resources, config=None):
        items = getattr(resources, "items", None) or getattr(resources, "resources", None) or resources
        return pack.check(list(items), config)
    return run
