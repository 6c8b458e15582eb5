"""Diagnostic for ``bench/policy_pack.py``: a pack process with the garbage collector tuned.

On ``PYTHONPATH``, Python imports this at start-up. It raises the collector's
thresholds and, just before the pack's server starts (``PolicyPack.__init__``,
after ``policy/__main__.py`` imported every rule), freezes every object alive,
so later collections skip the imported modules. This is the change proposed for
``policy/__main__.py`` itself; the bench measures it without editing the pack.
"""
import gc

import pulumi_policy

THRESHOLDS = (50_000, 20, 20)
_original_init = pulumi_policy.PolicyPack.__init__


def _init_frozen(self, *args, **kwargs):
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    _original_init(self, *args, **kwargs)


pulumi_policy.PolicyPack.__init__ = _init_frozen
