"""Print the pack's verdicts for every manifest of index.yaml (to review against
docs/design.md section 6 before writing them into the index).

    PYTHONPATH=components python tests/upstream/record.py [--write]
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus import HERE, entries, read, resources, vendored_path, verdicts  # noqa: E402
from suite_dates import PINNED  # noqa: E402

from nodepools.offline.analyzer import PolicyPackRunner  # noqa: E402
from nodepools.plan.project import load_project  # noqa: E402
from nodepools.plan.run import run_stack  # noqa: E402

ROOT = HERE.parents[1]
HEADER = ("# Upstream manifests placed on the aws-dev platform, with the pack's exact verdicts\n"
          "# (docs/design.md section 6): '<policy> <violation|cannot-judge> <resource|stack>'.\n"
          "# Written by record.py after review; every manifest is vendored under vendored/ (NOTICE.md).\n")


def main() -> None:
    platform = list(run_stack(load_project(ROOT), "aws-dev").run.resources)
    names = {r.urn: r.name for r in platform}
    found = {}
    # On the suite's date, as the corpus test judges them (tests/suite_dates.py).
    with PolicyPackRunner(pack_dir=ROOT / "policy", stack="aws-dev", today=PINNED) as pack:
        for entry in entries():
            if not vendored_path(entry).is_file():
                print("MISSING (vendor it with vendor.py)", entry.id)
                continue
            mine = resources(read(entry))
            got = verdicts(pack.check(platform + mine), {**names, **{r.urn: r.name for r in mine}})
            found[entry.id] = got
            print(entry.id, entry.category)
            for line in got:
                print("   ", line)
    if "--write" in sys.argv:
        index = yaml.safe_load((HERE / "index.yaml").read_text())
        for e in index["manifests"]:
            e["verdicts"] = found.get(f"{e['repo']}:{e['path']}", e.get("verdicts", []))
        (HERE / "index.yaml").write_text(HEADER + yaml.safe_dump(index, sort_keys=False, width=120))


if __name__ == "__main__":
    main()
