"""Where a stack's config comes from: Pulumi's runtime config, or a ``Pulumi.<env>.yaml`` file.

Pulumi hands structured values to the program as JSON strings; a key that is not
JSON (``layout: specialized``) stays a plain string. Keys of other namespaces
(``aws:region``) are left to their providers.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from pulumi.runtime.config import CONFIG, get_config_env

from nodepools import safe_yaml
from nodepools.config.stack_config import NAMESPACE, StackConfig, StackConfigError, load_stack_config


def _parse(key: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except RecursionError:
        # The engine hands a stack file's structure over as JSON; one nested past the
        # interpreter's recursion limit must be an error naming its key, not a traceback.
        raise StackConfigError([f"{key}: refused: nested too deeply to read (a stack file may nest at most "
                                f"{safe_yaml.MAX_DEPTH} levels)"]) from None
    except ValueError:
        return value


def namespaced(flat: Mapping[str, Any], namespace: str = NAMESPACE) -> dict[str, Any]:
    """``{"nodepools:pools": "[...]"}`` -> ``{"pools": [...]}`` (other namespaces dropped)."""
    prefix = f"{namespace}:"
    return {key[len(prefix):]: _parse(key, value) for key, value in flat.items() if key.startswith(prefix)}


def from_pulumi() -> StackConfig:
    """The running program's stack config (``pulumi up``/``preview``, or the offline engine)."""
    flat = {**get_config_env(), **CONFIG.get()}
    return load_stack_config(namespaced(flat))


def read_stack_file(path: str | Path) -> dict[str, Any]:
    """The ``config:`` map of a ``Pulumi.<env>.yaml`` file, values as YAML gives them."""
    path = Path(path)
    try:
        document = safe_yaml.load(path) or {}
    except safe_yaml.YamlFileError as err:
        raise StackConfigError([str(err)]) from None
    config = document.get("config") if isinstance(document, dict) else None
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise StackConfigError([f"{path.name}: 'config' must be a mapping of keys to values"])
    return config
