"""Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity) as floats.

cpu in cores ("500m" -> 0.5), memory and storage in bytes ("1Gi" -> 2**30),
counts as plain numbers. The engine sends numbers as floats, so 2.0 is 2.
"""
from __future__ import annotations

import re

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$")

GIB = float(2**30)


class QuantityError(ValueError):
    pass


def parse_quantity(value: object) -> float:
    """A quantity string or number as a float; ``QuantityError`` when malformed."""
    if isinstance(value, bool):
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise QuantityError(f"{value!r} is not a quantity")
    match = _QUANTITY.match(value.strip())
    if not match:
        raise QuantityError(f"{value!r} is not a quantity (e.g. 500m, 2, 1Gi, 512Mi)")
    number, exponent, suffix = match.groups()
    if exponent:
        return float(number + exponent)
    suffix = suffix or ""
    return float(number) * (_BINARY.get(suffix) or _DECIMAL[suffix])


def try_quantity(value: object) -> float | None:
    try:
        return parse_quantity(value)
    except QuantityError:
        return None
