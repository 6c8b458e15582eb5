"""Three-valued logic (True, False, UNKNOWN) for judging at preview time.

A check that reads a value the engine cannot know yet answers UNKNOWN. Combining
answers follows Kleene's rules, so one definite False still decides an AND and
one definite True still decides an OR: an unknown never turns into a verdict it
cannot support (no false "unschedulable", no false "fits").
"""
from __future__ import annotations

from typing import Any, Iterable

from nodepools.inventory.values import UNKNOWN, is_unknown

Tri = Any  # True, False or UNKNOWN


def and3(values: Iterable[Tri]) -> Tri:
    unknown = False
    for value in values:
        if is_unknown(value):
            unknown = True
        elif not value:
            return False
    return UNKNOWN if unknown else True


def or3(values: Iterable[Tri]) -> Tri:
    unknown = False
    for value in values:
        if is_unknown(value):
            unknown = True
        elif value:
            return True
    return UNKNOWN if unknown else False


def not3(value: Tri) -> Tri:
    return UNKNOWN if is_unknown(value) else not value


def eq3(a: Any, b: Any) -> Tri:
    return UNKNOWN if is_unknown(a) or is_unknown(b) else a == b
