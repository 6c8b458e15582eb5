"""Where a stack's config comes from: Pulumi's runtime config, or a ``Pulumi.<env>.yaml`` file.

Pulumi hands structured values to the program as JSON strings; a key that is not
JSON (``layout: specialized``) stays a plain string. Keys of other namespaces are
their providers', read here only to check they agree with the cluster
(``nodepools.config.provider_config``). Values are read through Pulumi's config API;
a key marked secret (``pulumi config set --secret``) is remembered
(``StackConfig.secret_keys``): the program exports what comes from it as a secret,
and no error message quotes one of its values ("a secret value" stands in its place).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pulumi
from pulumi.runtime.config import get_config_env, get_config_secret_keys_env, is_config_secret

from nodepools import safe_yaml
from nodepools.config.provider_config import provider_config_problems
from nodepools.config.stack_config import KEYS, NAMESPACE, StackConfig, StackConfigError, load_stack_config
from nodepools.spec.secrets import string_leaves


class _OutOfRange(ValueError):
    pass


def _int(text: str) -> int:
    if why := safe_yaml.int_out_of_range(text):
        raise _OutOfRange(why)
    return int(text)


def _parse(key: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value, parse_int=_int)
    except _OutOfRange as err:
        raise StackConfigError([f"{key}: refused: {err}"]) from None
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


def _setting(full_key: str) -> str | None:
    namespace, _, key = full_key.partition(":")
    return pulumi.Config(namespace).get(key)


def from_pulumi() -> StackConfig:
    """The running program's stack config (``pulumi up``/``preview``, or the offline engine),
    checked against its cloud provider's config; raises ``StackConfigError``."""
    prefix = f"{NAMESPACE}:"
    # The API reads one key at a time. The names come from the config the language host hands the
    # program (PULUMI_CONFIG, as pulumi-language-python sets it; the offline engine does the same),
    # so an unknown key is refused by name, and from the keys the stack config knows, read through
    # pulumi.Config, for a program run under mocks that set config another way.
    names = sorted({k for k in get_config_env() if k.startswith(prefix)} |
                   {prefix + key for key in KEYS if _setting(prefix + key) is not None})
    marked = set(get_config_secret_keys_env())
    secret_keys = [k for k in names if is_config_secret(k) or k in marked]
    raw = {k[len(prefix):]: _parse(k, _setting(k)) for k in names}
    secrets = {text for k in secret_keys for text in string_leaves(raw[k[len(prefix):]])}
    try:
        config = load_stack_config(raw)
        problems = provider_config_problems(config.cluster, _setting)
        if problems:
            raise StackConfigError(problems)
    except StackConfigError as err:
        raise err.redacted(secrets) from None
    return config.with_secrets((k[len(prefix):] for k in secret_keys), secrets)


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
