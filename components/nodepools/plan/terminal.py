"""Where the plan's text goes: its width and whether it is coloured.

Width: ``COLUMNS`` when set, else the terminal's, else 100 (``shutil.get_terminal_size``
reads them in that order); never below 60. Colour only on a terminal, never with
``NO_COLOR`` set (no-color.org), ``--no-color``, ``TERM=dumb``, nor in JSON or files;
drawn by ``rich`` (the ``cli`` extra, in every cloud extra too) when it is installed,
else the text is plain. Colour is a style over the same lines: layout never depends on it.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from typing import Any, TextIO

DEFAULT_WIDTH = 100
MIN_WIDTH = 60

# Line prefixes and their style (rich style names).
STYLES = (
    ("ERROR", "bold red"), ("Result: ok", "bold green"), ("Result:", "bold red"),
    ("  [mandatory]", "red"), ("  [advisory]", "yellow"), ("  [undecided", "dim"), ("  WARNING", "yellow"),
)
HEADINGS = ("Resources", "Counts", "Pools", "Layout", "Alerts", "Add-ons", "Policy pack", "Placement", "GPU fit",
            "What a mock run", "nodepools plan:")


def width() -> int:
    return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


def wants_colour(stream: TextIO, no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def style_of(line: str) -> str | None:
    for prefix, style in STYLES:
        if line.startswith(prefix):
            return style
    return "bold" if line.startswith(HEADINGS) else None


@dataclass
class Terminal:
    width: int
    colour: bool
    stream: TextIO

    @classmethod
    def for_stdout(cls, no_color: bool = False) -> "Terminal":
        return cls(width(), wants_colour(sys.stdout, no_color), sys.stdout)

    def print(self, text: str) -> None:
        console = self._console() if self.colour else None
        if console is None:
            print(text, file=self.stream)
            return
        from rich.text import Text
        for line in text.split("\n"):
            console.print(Text(line, style=style_of(line) or ""), soft_wrap=True)

    def _console(self) -> Any:
        try:
            from rich.console import Console
        except ImportError:  # the core install: plain text
            return None
        return Console(file=self.stream, force_terminal=True, highlight=False, emoji=False, markup=False,
                       width=self.width)
