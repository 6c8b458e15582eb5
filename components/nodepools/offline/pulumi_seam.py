"""The one place nodepools reaches past the Pulumi SDK's exported API, pinned and checked.

The offline engine (``nodepools.offline.engine``) runs a program under the SDK's own mock
engine as ``pulumi preview``/``up`` would, its stack exports registered on the root Stack.
It uses ``pulumi.runtime``'s exported names (``set_mocks``, ``set_all_config``,
``run_in_stack``, ``Mocks``, the ``rpc`` module) and asyncio's public API for the event loop,
and two names ``pulumi.runtime`` does not re-export:

- ``MockMonitor`` (``pulumi.runtime.mocks``): the mock resource monitor that
  ``pulumi.runtime.set_mocks(monitor=...)`` takes (the type of that public parameter),
  subclassed to record every registration as the engine receives it. Its ``RegisterResource``
  and ``ReadResource`` give the calling thread an event loop before they read the request.
- ``set_root_resource`` (``pulumi.runtime.settings``): ``set_mocks`` registers and finishes a
  root Stack of its own, and ``run_in_stack`` refuses to start while one is set ("Only one root
  Pulumi Stack may be active at once"); ``clear_root_stack`` clears it so the run's own Stack
  registers the program's exports.

Read in pulumi 3.237.0, the oldest release ``SDK_RANGE`` admits (pyproject.toml pins the same
range), and in 3.272.0: both names exist there with these meanings.
``tests/offline/test_pulumi_seam.py`` fails, naming this module, on an SDK that moves either or
changes a behaviour the engine relies on; change the range only with that test passing.
"""
from __future__ import annotations

from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.settings import set_root_resource

__all__ = ["SDK_RANGE", "MockMonitor", "clear_root_stack"]

SDK_RANGE = ">=3.237,<4"


def clear_root_stack() -> None:
    """Forget the root Stack ``set_mocks`` registered, so ``run_in_stack`` can register the run's own."""
    set_root_resource(None)  # type: ignore[arg-type]  # None is the unset value of the SDK's ContextVar
