"""The section 8 corpus: upstream GPU workloads, pools and operators, and their twins, through the
real pack over gRPC, each with the verdicts docs/design.md section 8 gives (written before the
pack ran: section8.yaml). Every file is vendored (NOTICE.md): no case needs a mirror or skips.

``PENDING`` lists the cases where the pack on this branch does not yet do what the contract
says; each is a strict xfail naming the missing behaviour, so it turns red the moment the
behaviour lands and the entry must go.
"""
import re
from pathlib import Path

import pytest

from corpus import HERE, VENDORED, entries, verdicts
from nodepools.policies.config import spread
from section8 import cases, resources, vendored_files

ROOT = Path(__file__).resolve().parents[2]
CASES = cases()
PENDING: dict[str, str] = {}


@pytest.fixture(scope="module")
def platforms(platform):
    """Each shipped platform's resources as the engine would send them, built on first use
    (aws-dev is the session's, shared with the first corpus)."""
    from nodepools.plan.project import load_project
    from nodepools.plan.run import run_stack
    built: dict = {"aws-dev": platform}

    def get(stack: str) -> list:
        if stack not in built:
            built[stack] = list(run_stack(load_project(ROOT), stack).run.resources)
        return built[stack]
    return get


def judge(pack, platforms, case):
    platform = [r for r in platforms(case.platform) if not any(r.name.endswith(w) for w in case.without)]
    mine = resources(case)
    names = {r.urn: r.name for r in [*platform, *mine]}
    return verdicts(pack.check(platform + mine, spread(case.config) if case.config else None), names)


def test_the_corpus_is_pinned_vendored_and_licensed():
    upstream = [c for c in CASES if "#" not in c.id]
    assert len(upstream) >= 40 and len(CASES) >= 55 and len({c.id for c in CASES}) == len(CASES)
    assert all(re.fullmatch(r"[0-9a-f]{40}", c.commit) for c in CASES)
    notice = (HERE / "NOTICE.md").read_text()
    for c in upstream:
        for p in c.files:
            assert (VENDORED / c.repo / p).is_file(), f"vendor {c.repo}/{p}: make vendor-upstream"
            assert f"{c.repo}/{p}" in notice and c.commit in notice, c.id
    # Twins include clean, fixed copies; the first corpus's files are not re-counted as new.
    assert sum(1 for c in CASES if "#" in c.id and not c.verdicts) >= 10
    first = {f"{e.repo}/{e.path}" for e in entries()}
    assert len(vendored_files() - first) >= 40
    assert {c.category for c in CASES} >= {"leaderworkerset", "ray", "mpijob", "trainjob", "volcano",
                                            "inferenceservice", "dra", "gpu-operator", "karpenter", "gke"}


def test_every_twin_edit_names_a_document():
    for case in CASES:
        assert resources(case), case.id  # documents() raises on an edit naming no document


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=PENDING[c.id])) if c.id in PENDING else c
    for c in CASES], ids=lambda c: c.id)
def test_case_verdicts(pack, platforms, case):
    assert judge(pack, platforms, case) == list(case.verdicts)
