"""List every case of two gap classes the fuzzer found in the policy pack, exhaustively
(not a test; about three minutes). Both were closed: a clean run prints the three
headings only. Rerun it after changing the readers (``nodepools.inventory``) or a rule.

    .venv/bin/python tests/reliability/explore_policy_gaps.py

1. Malformed pod structure that gets no verdict: for each workload of the fuzz base
   stack, each structural path (spec, template, pod spec, containers) and each
   malformation, the cases where no diagnostic names the workload.
2. Unknown values that become violations: every path of every resource replaced in
   turn by the preview sentinel; each (policy, kind, path) that then reports a
   violation on the otherwise compliant stack.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from nodepools.inventory.workloads import WORKLOAD_TYPES  # noqa: E402
from nodepools.offline.analyzer import UNKNOWN_WIRE  # noqa: E402

from fuzz_mutations import get_path, pod_spec_paths, set_path  # noqa: E402
from fuzz_stack import base_stack  # noqa: E402
from test_policy_fuzz import PACK_DIR, FuzzRunner, _about  # noqa: E402

MALFORMED = {"delete": "<delete>", "null": None, "unknown": UNKNOWN_WIRE, "list": [1], "str": "x", "num": 1.0}


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:2]):
            yield from paths(item, (*prefix, i))


def malformed(pack, stack):
    for i, res in enumerate(stack):
        if res.type not in WORKLOAD_TYPES:
            continue
        for path in pod_spec_paths(WORKLOAD_TYPES[res.type]):
            empty = [] if isinstance(get_path(res.properties, path), list) else {}
            silent = []
            for label, bad in (*MALFORMED.items(), ("empty", empty)):
                damaged = replace(res, properties=set_path(res.properties, path, bad))
                diagnostics = pack.analyze_damaged([*stack[:i], damaged, *stack[i + 1:]], {res.urn})
                if not [d for d in diagnostics if _about(d, damaged)]:
                    silent.append(label)
            if silent:
                print(f"{res.type.rsplit(':', 1)[-1]} {res.name} {'.'.join(map(str, path))}: no verdict when "
                      f"{', '.join(silent)}")


def unknowns(pack, stack, cloud):
    seen = set()
    for i, res in enumerate(stack):
        if cloud == "aws" and res.type.startswith("kubernetes:"):
            continue  # the same objects as on the GKE stack
        for path in list(paths(res.properties))[1:]:
            damaged = replace(res, properties=set_path(res.properties, path, UNKNOWN_WIRE))
            for d in pack.analyze_damaged([*stack[:i], damaged, *stack[i + 1:]], {res.urn}):
                key = (d.policy, res.type.rsplit(":", 1)[-1], ".".join(map(str, path)))
                if not d.cannot_judge and key not in seen:
                    seen.add(key)
                    print(f"{key[0]}: {res.name} {key[1]}.{key[2]} unknown -> {d.message.splitlines()[-1][:160]}")


def main() -> None:
    with FuzzRunner(pack_dir=PACK_DIR) as pack:
        pack.configure()
        print("== malformed pod structure, no verdict")
        malformed(pack, base_stack("gcp"))
        for cloud in ("gcp", "aws"):
            print(f"== unknown value -> violation ({cloud})")
            unknowns(pack, base_stack(cloud), cloud)


if __name__ == "__main__":
    main()
