"""Diagnostic for ``bench/policy_pack.py``: the pack process with CPython's default collector.

``policy/__main__.py`` freezes the imported objects and raises the collector's
thresholds before the pack's server starts. On ``PYTHONPATH``, Python imports
this module at start-up; it undoes that tuning just before the server starts
(``PolicyPack.__init__``), so the bench can show what the tuning is worth.
"""
import gc

import pulumi_policy

DEFAULT_THRESHOLDS = (700, 10, 10)
_original_init = pulumi_policy.PolicyPack.__init__


def _init_untuned(self, *args, **kwargs):
    gc.unfreeze()
    gc.set_threshold(*DEFAULT_THRESHOLDS)
    _original_init(self, *args, **kwargs)


pulumi_policy.PolicyPack.__init__ = _init_untuned
