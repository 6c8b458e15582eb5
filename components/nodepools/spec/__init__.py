"""Cloud-neutral, pure pool specs (no provider SDK imports).

The names below load with their module on first use (PEP 562): the policy pack reads
only the instance table and the version facts, and must not build every pydantic
model of the spec at start-up (``nodepools.pack.serve``).
"""
from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "WorkloadContract": "contract", "workload_contract": "contract", "describe": "errors",
    "INSTANCE_TYPES": "instances", "GpuModel": "instances", "InstanceType": "instances", "lookup": "instances",
    "CustomCapacity": "pool", "GpuSpec": "pool", "PlacementStrategy": "pool", "PoolSpec": "pool", "Taint": "pool",
    "NetworkTopology": "presets", "PRESETS": "presets", "preset": "presets",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # Not cached in this module's globals (no state written between calls): sys.modules keeps
    # each module once, so a second look-up costs an import-cache hit.
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
