"""Which optional extra brings which cloud SDK, and the error that says so.

The core install is the policy pack's (pulumi, pydantic, pyyaml):
the rules must load in a small pack virtualenv. The components need the SDKs of
the cloud they build on, which come with ``nodepools[aws]`` or ``nodepools[gcp]``
(pyproject.toml ``[project.optional-dependencies]``).
"""
from __future__ import annotations

import importlib

# extra -> the distributions' import names it brings, in pyproject's order.
EXTRAS: dict[str, tuple[str, ...]] = {
    "aws": ("pulumi_aws", "pulumi_kubernetes"),
    "gcp": ("pulumi_gcp", "pulumi_kubernetes"),
}


class MissingExtraError(ImportError):
    """A backend was imported without the extra that installs its cloud SDK."""


def require_extra(extra: str, what: str) -> None:
    """Import the SDKs of ``extra``; when one is not installed, raise
    ``MissingExtraError`` naming the extra to install (other import errors propagate)."""
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
            raise MissingExtraError(
                f"{what} needs {module}, which is not installed: install the '{extra}' extra, "
                f"pip install 'nodepools[{extra}]'", name=module) from None

