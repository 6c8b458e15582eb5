"""No message quotes a secret: the one redaction the stack program and the pack both use.

A value marked secret (a stack config key set with ``--secret``, a property the engine
sends signed as a secret) must not come back in plain text in an error or a policy
message. ``redact`` puts "a secret value" where one appears: quoted as ``repr`` or JSON
quote it (``'hunter2-token' is not a duration`` -> ``a secret value is not a duration``),
and bare when it is long enough not to be an ordinary word of the message.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

SECRET_TEXT = "a secret value"
# Shorter secrets are replaced only where quoted: bare, they cannot be told from the words
# of a message (a secret ``aws`` must not turn "aws:region" into nonsense).
BARE_MIN_LENGTH = 8


def string_leaves(value: Any) -> Iterator[str]:
    """Every string in ``value`` (nested dicts and lists; keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_leaves(key)
            yield from string_leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from string_leaves(item)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret of ``secrets`` replaced by "a secret value"."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        for quoted in (repr(secret), json.dumps(secret)):
            text = text.replace(quoted, SECRET_TEXT)
        if len(secret) >= BARE_MIN_LENGTH:
            text = text.replace(secret, SECRET_TEXT)
    return text
