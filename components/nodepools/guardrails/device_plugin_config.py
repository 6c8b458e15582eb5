"""Per-node NVIDIA device plugin configs for shared GPU pools (EKS).

The chart builds one ConfigMap from ``config.map`` (name -> config file, schema
``version: v1``) and runs a config-manager sidecar that switches each node's
plugin to the entry named by the node's ``nvidia.com/device-plugin.config``
label; nodes without the label take ``config.default``
(NVIDIA/k8s-device-plugin: README.md@v0.20.0, "Multiple Config File Example";
deployments/helm/nvidia-device-plugin/values.yaml@v0.20.0). Our shared pools set
that label on their node groups (``spec.sharing.device_plugin_config_name``).

- ``default``: whole GPUs, ``migStrategy: none``.
- ``time-slicing-<n>``: ``sharing.timeSlicing`` with ``renameByDefault: false``
  (the resource stays ``nvidia.com/gpu``, so the GPU taint's key still matches the
  request) and ``failRequestsGreaterThanOne: true``: asking for 2 replicas gives no
  more GPU than 1, so such a request fails loudly instead of silently (GKE refuses
  it the same way).
- ``mig-<profile>``: ``migStrategy: mixed``, so slices are advertised as
  ``nvidia.com/mig-<profile>`` and a pod asking for a slice can never be handed a
  whole GPU or another size. The plugin only advertises MIG devices that exist:
  the nodes come up pre-partitioned (``backends/aws/mig.py``), no MIG manager.
"""
from __future__ import annotations

from typing import Any, Iterable

import yaml

from nodepools import vocabulary as v
from nodepools.spec.pool import PoolSpec
from nodepools.spec.sharing import GpuSharingMode, device_plugin_config_name

DEFAULT_CONFIG = "default"
CONFIG_VERSION = "v1"


def config_file(spec: PoolSpec | None) -> dict[str, Any]:
    """The config file for ``spec``'s entry (``None``: the default entry)."""
    mode = spec.gpu_sharing.mode if spec is not None else GpuSharingMode.NONE
    config: dict[str, Any] = {"version": CONFIG_VERSION,
                              "flags": {"migStrategy": "mixed" if mode is GpuSharingMode.MIG else "none"}}
    if spec is not None and mode is GpuSharingMode.TIME_SLICING:
        config["sharing"] = {"timeSlicing": {
            "renameByDefault": False,
            "failRequestsGreaterThanOne": True,
            "resources": [{"name": v.GPU_RESOURCE, "replicas": spec.gpu_sharing.replicas}],
        }}
    return config


def config_values(pools: Iterable[PoolSpec]) -> dict[str, Any] | None:
    """The chart's ``config`` value, or None when no pool shares its GPUs (the
    plugin then runs with its built-in defaults, as before sharing existed)."""
    entries: dict[str, dict[str, Any]] = {}
    for pool in pools:
        name = device_plugin_config_name(pool)
        if name is not None:
            entries.setdefault(name, config_file(pool))
    if not entries:
        return None
    files = {DEFAULT_CONFIG: config_file(None), **dict(sorted(entries.items()))}
    # Each entry is a file (a YAML string), as `--set-file config.map.<name>=...` gives it.
    return {"map": {name: yaml.safe_dump(body, sort_keys=False) for name, body in files.items()},
            "default": DEFAULT_CONFIG}
