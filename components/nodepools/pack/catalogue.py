"""The registered pack: its name, description and policies, and its ``GetAnalyzerInfo``
answer generated into ``catalogue.json``.

The engine asks ``GetAnalyzerInfo`` (then ``Configure``) before it starts the program,
so every preview waits for the answer. Building it means importing every rule and the
pydantic settings model, about as long again as the rest of the pack's start-up; the
answer itself is fixed per release. So ``nodepools.pack.serve`` answers from this file
and loads the rules beside the server, while the engine goes on to start the program.

The file is generated from the one home of each fact (``registry.POLICIES``,
``settings.schema_properties``, ``PACK_NAME`` and ``DESCRIPTION`` here) and never edited:

    python -m nodepools.pack.catalogue          # rewrite catalogue.json

tests/pack/test_catalogue.py fails while it differs from what the registry gives, and
the pack checks it against the live answer once the rules are loaded (a stale file in
a working copy is reported on stderr and the live answer used from then on).
"""
from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

FILE = "catalogue.json"
PACK_NAME = "nodepools"
DESCRIPTION = ("Node-pool placement checklist for EKS/GKE: taints, tolerations, GPU reachability, quotas, "
               "spot safety, gang scheduling and probe budgets, judged at preview time.")


def registered() -> tuple[Any, ...]:
    """Every registered policy (``nodepools.policies.registry.POLICIES``; imports every rule)."""
    from nodepools.policies.registry import POLICIES

    return POLICIES


def live() -> Any:
    """The answer built from the registry (imports every rule)."""
    from nodepools.pack.servicer import analyzer_info

    return analyzer_info(registered(), PACK_NAME, DESCRIPTION)


def as_text(info: Any) -> str:
    from google.protobuf import json_format

    return json.dumps(json_format.MessageToDict(info), indent=1, sort_keys=True) + "\n"


def load() -> Any | None:
    """The generated answer, or None when the file is missing or unreadable."""
    from google.protobuf import json_format
    from pulumi.runtime.proto import analyzer_pb2 as pb

    try:
        text = (resources.files("nodepools.pack") / FILE).read_text()
        return json_format.ParseDict(json.loads(text), pb.AnalyzerInfo())
    except (OSError, ValueError, json_format.ParseError):
        return None


def main() -> int:
    path = Path(__file__).with_name(FILE)
    path.write_text(as_text(live()))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
