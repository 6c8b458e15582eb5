"""Two pack processes answering as one: ours and the reference server must agree on every call.

``ParityRunner`` is a ``PolicyPackRunner`` that sends every Analyzer call to both and
fails (``ParityError``) unless the answers are the same message, field for field, or
both refuse the call. When both refuse a config, every problem ours names must be in
the reference's refusal too (the wording around them is each server's own).
``GetPluginInfo`` is the one call whose answer differs by design (each server's version).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from nodepools.offline.analyzer import PackError, PolicyPackRunner

UNCOMPARED = {"GetPluginInfo"}


class ParityError(AssertionError):
    """The two servers answered one call differently."""


def outcome(call: Any, method: str, request: Any) -> Any:
    try:
        return call(method, request)
    except PackError as error:
        return error


def refusal(error: PackError, method: str) -> str:
    return str(error).split("\npack stderr:", 1)[0].removeprefix(f"{method} failed: ")


def same_answer(method: str, ours: Any, reference: Any) -> None:
    """Raise ``ParityError`` unless ``ours`` and ``reference`` (replies or ``PackError``s) agree."""
    if isinstance(ours, PackError) or isinstance(reference, PackError):
        if not (isinstance(ours, PackError) and isinstance(reference, PackError)):
            raise ParityError(f"{method}: only one server refused it.\nours: {_shown(ours, method)}\n"
                              f"reference: {_shown(reference, method)}")
        ours_text, reference_text = refusal(ours, method), refusal(reference, method)
        title = re.match(r"policy '[^']+' config: ", ours_text)
        if title:
            missing = [p for p in ours_text[title.end():].split("; ") if p.split(": ", 1)[-1] not in reference_text]
            if missing:
                raise ParityError(f"{method}: the reference does not name {missing}:\n{reference_text}")
        return
    if method in UNCOMPARED:
        return
    mine, theirs = (json_format.MessageToDict(m, preserving_proto_field_name=True) for m in (ours, reference))
    if mine != theirs:
        raise ParityError(f"{method} answered differently:\nours:      {mine}\nreference: {theirs}")


def _shown(answer: Any, method: str) -> str:
    if isinstance(answer, PackError):
        return f"refused: {refusal(answer, method)}"
    return str(json_format.MessageToDict(answer))[:2000]


@dataclass
class ParityRunner(PolicyPackRunner):
    """``pack_dir`` is ours; ``reference_dir`` the reference server's pack folder."""

    reference_dir: Path | None = None
    _reference: PolicyPackRunner | None = field(default=None, init=False, repr=False)

    def start(self) -> "ParityRunner":
        shared = {f.name: getattr(self, f.name) for f in fields(PolicyPackRunner) if f.init and f.name != "pack_dir"}
        self._reference = PolicyPackRunner(pack_dir=Path(self.reference_dir), **shared).start()
        super().start()
        return self

    def close(self) -> None:
        super().close()
        if self._reference is not None:
            self._reference.close()
            self._reference = None

    def call(self, method: str, request: Any) -> Any:
        if self._reference is None:
            raise PackError("the reference pack is not running: call start() first")
        ours = outcome(super().call, method, request)
        same_answer(method, ours, outcome(self._reference.call, method, request))
        if isinstance(ours, PackError):
            raise ours
        return ours
