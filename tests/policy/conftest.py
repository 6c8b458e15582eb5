"""One policy-pack process for the whole session (starting it costs about half a second
of a shared CPU); each test reconfigures it and sends its own resources."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from nodepools.offline.analyzer import PolicyPackRunner  # noqa: E402


@pytest.fixture(scope="session")
def pack():
    runner = PolicyPackRunner(pack_dir=Path(__file__).resolve().parents[2] / "policy").start()
    yield runner
    runner.close()


@pytest.fixture
def check(pack):
    """``check(fixture | Run | resources, config=None)`` -> every diagnostic of the real pack over gRPC."""
    def run(resources, config=None):
        items = getattr(resources, "items", None) or getattr(resources, "resources", None) or resources
        return pack.check(list(items), config)
    return run
