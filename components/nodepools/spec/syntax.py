"""Kubernetes name syntax, as the API server validates it.

Label keys: an optional DNS-1123 subdomain prefix (<= 253 chars) and '/', then a
name of <= 63 chars of [A-Za-z0-9._-] starting and ending alphanumeric. Label
values: empty or the same name rule. Taint keys follow the label-key rule;
taint values the label-value rule (k8s.io/apimachinery validation).
"""
from __future__ import annotations

import re

_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")

LABEL_KEY_RULE = ("an optional DNS subdomain prefix and '/', then 1-63 characters of letters, digits, "
                  "'-', '_' or '.', starting and ending with a letter or digit")
LABEL_VALUE_RULE = "empty, or 1-63 characters of letters, digits, '-', '_' or '.', starting and ending alphanumeric"


def label_key_error(key: str) -> str | None:
    """None when ``key`` is a valid label (or taint) key, else why not."""
    if not isinstance(key, str) or not key:
        return f"label key must be a non-empty string ({LABEL_KEY_RULE})"
    prefix, _, name = key.rpartition("/")
    if "/" in prefix:
        return f"label key {key!r} has more than one '/' ({LABEL_KEY_RULE})"
    if prefix and (len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return f"label key prefix {prefix!r} is not a lowercase DNS subdomain of at most 253 characters"
    if len(name) > 63 or not _NAME.match(name):
        return f"label key {key!r} is invalid: {LABEL_KEY_RULE}"
    return None


def label_value_error(value: str) -> str | None:
    if not isinstance(value, str):
        return "label value must be a string"
    if value and (len(value) > 63 or not _NAME.match(value)):
        return f"label value {value!r} is invalid: {LABEL_VALUE_RULE}"
    return None


def dns_label_error(name: str, max_len: int = 63) -> str | None:
    if len(name) > max_len or not _DNS_LABEL.match(name):
        return (f"{name!r} is invalid: 1-{max_len} lowercase letters, digits or '-', "
                "starting and ending with a letter or digit")
    return None
