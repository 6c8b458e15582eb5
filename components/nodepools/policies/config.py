"""Write the pack's config once, get CrossGuard's per-policy config.

CrossGuard configures each policy on its own (``--policy-pack-config`` maps a
policy name to its level and properties). ``spread`` takes one pack-wide
mapping: ``all`` (a level for every policy), ``exemptNamespaces``, ``gpuDeviceClasses``,
``today`` and ``waivers`` (each naming its policy) for everyone, pack-wide settings read by several
policies (``nodeAgentNamespaces``, ``nodeLabelSources``: each policy that reads one gets it),
and per-policy entries as CrossGuard has them; it returns the per-policy config the CLI and
the offline runner accept.
"""
from __future__ import annotations

from typing import Any, Mapping

from nodepools.policies.registry import BY_NAME
from nodepools.policies.settings import SHARED_KEYS as SHARED
from nodepools.spec.errors import Problems

# Settings several policies read, given once for the pack (docs/design.md section 6).
PACK_WIDE = ("nodeAgentNamespaces", "nodeLabelSources")


def spread(config: Mapping[str, Any]) -> dict[str, Any]:
    problems = Problems()
    out: dict[str, Any] = {"all": config["all"]} if "all" in config else {}
    for key in config:
        if key not in (*SHARED, *PACK_WIDE, "all") and key not in BY_NAME:
            problems.add(key, f"{key!r} is neither a policy of the pack nor one of all, "
                         f"{', '.join((*SHARED, *PACK_WIDE))}")
    waivers: dict[str, list] = {}
    for i, waiver in enumerate(config.get("waivers") or []):
        policy = waiver.get("policy") if isinstance(waiver, Mapping) else None
        if policy not in BY_NAME:
            problems.add(("waivers", i, "policy"), f"waiver names {policy!r}, not a policy of the pack")
            continue
        waivers.setdefault(policy, []).append(dict(waiver))
    problems.raise_if_any("pack config")
    for name in BY_NAME:
        given = config.get(name)
        entry: dict[str, Any] = {"enforcementLevel": given} if isinstance(given, str) else dict(given or {})
        if "exemptNamespaces" in config:
            entry.setdefault("exemptNamespaces", list(config["exemptNamespaces"]))
        # Every policy asks "does this pod request a GPU", so every one needs the DRA GPU classes.
        if "gpuDeviceClasses" in config:
            entry.setdefault("gpuDeviceClasses", list(config["gpuDeviceClasses"]))
        # Every policy judges its waivers as of one date: the pack's.
        if "today" in config:
            entry.setdefault("today", config["today"])
        for key in PACK_WIDE:
            if key in config and key in BY_NAME[name].config:
                entry.setdefault(key, list(config[key]))
        if name in waivers:
            entry["waivers"] = [*entry.get("waivers", []), *waivers[name]]
        if entry:
            out[name] = entry
    return out
