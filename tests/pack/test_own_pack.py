"""A pack of a user's own, as the README writes it: a subset of the policies, served by
``nodepools.pack.serve.serve`` from a pack folder, as the engine starts it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from nodepools.offline.analyzer import PackError, PolicyPackRunner
from policy_builders import CLASS, golden

README = Path(__file__).resolve().parents[2] / "README.md"
MANIFEST = "description: A pack of my own.\nruntime: python\nversion: 2.3.4\n"


def readme_pack() -> str:
    section = README.read_text().split("### A pack of your own", 1)[1]
    return re.search(r"```py\n(.*?)```", section, re.S).group(1)


def pack_folder(tmp_path: Path, main: str) -> Path:
    (tmp_path / "PulumiPolicy.yaml").write_text(MANIFEST)
    (tmp_path / "__main__.py").write_text(main)
    return tmp_path


def test_the_readme_pack_serves_its_policies_only(tmp_path):
    with PolicyPackRunner(pack_dir=pack_folder(tmp_path, readme_pack())) as pack:
        info = pack.info()
        assert (info.name, info.version, list(info.policies)) == (
            "placement-basics", "2.3.4", ["pool-taints", "gpu-pool-taint", "schedulable"])
        untainted = golden().edit("jobs", lambda p: p.update(taints=[]))
        diagnostics = pack.check(list(untainted.items), {"pool-taints": "advisory"})
    assert [(d.policy, d.level, d.urn, d.message.splitlines()[-1]) for d in diagnostics] == [(
        "pool-taints", "advisory", untainted.urn("jobs"),
        "aws:eks/nodeGroup:NodeGroup 'jobs': taints: a batch pool has no NoSchedule/NoExecute taint, so any pod "
        f"can land on it. Fix: add {{key: {CLASS}, value: batch, effect: NO_SCHEDULE}} to taints")]


@pytest.mark.parametrize("main, problem", [
    ("from nodepools.pack.serve import serve\nfrom nodepools.policies.registry import BY_NAME\n"
     "serve([BY_NAME['schedulable'], BY_NAME['schedulable']], name='mine')\n",
     "cannot serve this pack: policy 'schedulable' appears 2 times"),
    ("from nodepools.pack.serve import serve\nfrom nodepools.policies.registry import POLICIES\n"
     "serve(POLICIES, name='my pack')\n",
     "cannot serve this pack: pack name 'my pack' may only hold letters, digits, '-', '_' and '.' (1-100 characters)"),
])
def test_a_pack_the_engine_would_refuse_stops_with_its_problem_and_no_traceback(tmp_path, main, problem):
    with pytest.raises(PackError) as error:
        PolicyPackRunner(pack_dir=pack_folder(tmp_path, main), startup_timeout_seconds=30).start()
    assert f"nodepools pack: {problem}" in str(error.value)
    assert "Traceback" not in str(error.value)
