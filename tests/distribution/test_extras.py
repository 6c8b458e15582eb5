"""The core install is the pack's: the rules import without any cloud SDK, and a
backend imported without its extra names the extra to install."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import nodepools
from nodepools.policies.registry import POLICIES

BLOCKER = """
import importlib.abc, sys
BLOCKED = {blocked!r}
class Blocker(importlib.abc.MetaPathFinder):
    # As if the distribution were not installed.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Blocker())
"""


def run_without(blocked: set[str], code: str) -> subprocess.CompletedProcess:
    source = BLOCKER.format(blocked=sorted(blocked)) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          cwd=Path(__file__).parent)


CLOUD_SDKS = {"pulumi_aws", "pulumi_gcp", "pulumi_kubernetes"}


def test_the_rules_and_the_pack_serve_without_any_cloud_sdk_or_pulumi_policy():
    """The pack's servicer describes and judges a stack with neither installed."""
    result = run_without(CLOUD_SDKS | {"pulumi_policy"}, """
        import sys
        import nodepools.inventory, nodepools.placement, nodepools.pack.serve
        from pulumi.runtime.proto import analyzer_pb2 as pb
        from nodepools.pack.servicer import PackServicer
        from nodepools.pack.catalogue import registered
        servicer = PackServicer(registered, "nodepools", "", "0")
        pool = pb.AnalyzerResource(type="aws:eks/nodeGroup:NodeGroup", urn="urn:pulumi:d::p::aws:eks/nodeGroup:NodeGroup::gpu",
                                   name="gpu")
        pool.properties.update({"instanceTypes": ["g6.xlarge"], "scalingConfig": {"minSize": 1.0, "maxSize": 2.0}})
        stack = servicer.AnalyzeStack(pb.AnalyzeStackRequest(resources=[pool]), None)
        print(len(servicer.info().policies), "gpu-device-plugin" in {d.policyName for d in stack.diagnostics},
              sorted(m for m in sys.modules if m.split(".")[0] in {"pulumi_aws", "pulumi_gcp", "pulumi_kubernetes",
                                                                   "pulumi_policy"}))
    """)
    assert result.returncode == 0, result.stderr
    # A GPU pool without the NVIDIA device plugin: judged, with the rules' own imports only.
    assert result.stdout.split(maxsplit=1) == [str(len(POLICIES)), "True []\n"]


@pytest.mark.parametrize("backend, extra, missing", [
    ("aws", "aws", "pulumi_aws"), ("aws", "aws", "pulumi_kubernetes"),
    ("gcp", "gcp", "pulumi_gcp"), ("gcp", "gcp", "pulumi_kubernetes"),
])
def test_a_backend_without_its_extra_names_the_extra(backend, extra, missing):
    result = run_without({missing}, f"import nodepools.backends.{backend}")
    assert result.returncode == 1
    backend_name = {"aws": "the AWS backend (nodepools.backends.aws)", "gcp": "the GKE backend (nodepools.backends.gcp)"}
    assert result.stderr.strip().splitlines()[-1] == (
        f"nodepools.extras.MissingExtraError: {backend_name[backend]} needs {missing}, which is not installed: "
        f"install the '{extra}' extra, pip install 'nodepools[{extra}]'")


def test_a_core_install_writes_a_pack_and_tells_its_version(tmp_path):
    result = run_without(CLOUD_SDKS, f"""
        import nodepools
        from nodepools.plan.cli import main
        assert main(["pack", "new", {str(tmp_path / "pack")!r}]) == 0
        try:
            main(["--version"])
        except SystemExit as exit:
            assert exit.code == 0
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"nodepools {nodepools.__version__}"
    assert sorted(p.name for p in (tmp_path / "pack").iterdir()) == ["PulumiPolicy.yaml", "__main__.py",
                                                                    "requirements.txt"]
