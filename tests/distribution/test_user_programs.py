"""What a user writes runs and type-checks: the README's Python snippets and every
example, under Pulumi's own ``set_mocks`` in the default (update, not preview) mode
with ``nodepools.testing.NodepoolsMocks``, and under mypy with the package's py.typed."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Python examples (examples/yaml-consumer is a Pulumi YAML program).
EXAMPLES = sorted(p.parent.name for p in (REPO / "examples").glob("*/__main__.py"))
# Every ```python block of the README is a whole program a user may copy; excerpts shown
# side by side with other languages are fenced ```py and are not run.
SNIPPETS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)

# Run each program as its own Pulumi project under the user's kind of mocks; report errors as JSON.
RUNNER = r'''
import json, os, runpy, sys, traceback
from pathlib import Path
import pulumi
from pulumi.runtime.config import set_all_config
from nodepools.plan.project import load_project, stack_config
from nodepools.testing import NodepoolsMocks

# The README's platform stack, as its `pools` output reads (contract only).
PLATFORM_POOLS = {"training": {"contract": {
    "tolerations": [{"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-training",
                     "effect": "NoSchedule"}],
    "affinity": {}, "nodeSelector": {"nodepools.io/pool": "training"}}}}
results = {}
for label, path, project_dir in json.loads(sys.argv[1]):
    try:
        project, stack, config = "snippet", "test", {}
        if project_dir:
            loaded = load_project(Path(project_dir))
            project, stack, (config, _) = loaded.name, "dev", stack_config(loaded, "dev")
        set_all_config({k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}, [])
        mocks = NodepoolsMocks(stack_outputs={"acme/nodepools/aws-prod": {"pools": PLATFORM_POOLS}})
        pulumi.runtime.set_mocks(mocks, project=project, stack=stack, preview=False)
        namespace = {}
        @pulumi.runtime.test
        def program():
            # As the Pulumi language host: in the program directory, which runpy puts on sys.path.
            target = str(Path(path).parent) if project_dir else path
            cwd = os.getcwd()
            os.chdir(Path(path).parent)
            try:
                namespace.update(runpy.run_path(target, run_name="__main__"))
            finally:
                os.chdir(cwd)
        program()
        for name, test in sorted(namespace.items()):
            if name.startswith("test_") and callable(test):
                test()
        results[label] = None
    except BaseException:
        results[label] = traceback.format_exc()
print(json.dumps(results))
'''


def programs(tmp_path: Path) -> list[tuple[str, str, str | None]]:
    out = []
    for i, snippet in enumerate(SNIPPETS):
        path = tmp_path / f"readme_snippet_{i}.py"
        path.write_text(snippet)
        out.append((f"README snippet {i}", str(path), None))
    for name in EXAMPLES:
        out.append((f"examples/{name}", str(REPO / "examples" / name / "__main__.py"), str(REPO / "examples" / name)))
    return out


def test_readme_snippets_and_examples_run_under_default_mode_mocks(tmp_path):
    assert len(SNIPPETS) >= 3 and len(EXAMPLES) == 5
    result = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(programs(tmp_path))],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    errors = json.loads(result.stdout.splitlines()[-1])
    assert {label: error for label, error in errors.items() if error} == {}
    assert len(errors) == len(SNIPPETS) + len(EXAMPLES)


def _mypy_targets(tmp_path: Path) -> dict[str, Path]:
    # A fixed place: mypy's cache remembers each module's path, and reports the old one.
    typed = REPO / ".mypy_cache" / "user-programs"
    typed.mkdir(parents=True, exist_ok=True)
    targets = {}
    for label, path, _ in programs(tmp_path):
        copy = typed / (re.sub(r"\W+", "_", label) + ".py")  # one module name each
        copy.write_text(Path(path).read_text())
        targets[label] = copy
    return targets


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory) -> dict[str, list[str]]:
    """label -> mypy error lines, one mypy run over every snippet and example."""
    pytest.importorskip("mypy", reason="mypy comes with the test extra: pip install -e '.[test]'")
    targets = _mypy_targets(tmp_path_factory.mktemp("mypy"))
    # An example's own modules (examples/attached-gpu/infra) resolve as from its program directory.
    env = {**os.environ, "MYPYPATH": os.pathsep.join(str(REPO / "examples" / name) for name in EXAMPLES)}
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                             "--cache-dir", str(REPO / ".mypy_cache"), "--no-error-summary", "--show-error-codes",
                             *map(str, targets.values())], capture_output=True, text=True, cwd=REPO, env=env)
    assert result.returncode in (0, 1), result.stderr
    lines = result.stdout.splitlines()
    return {label: [line for line in lines if Path(line.split(":", 1)[0]).name == path.name and ": error:" in line]
            for label, path in targets.items()}


LABELS = [f"README snippet {i}" for i in range(len(SNIPPETS))] + [f"examples/{name}" for name in EXAMPLES]


@pytest.mark.parametrize("label", LABELS)
def test_mypy_passes(mypy_report, label):
    assert mypy_report[label] == []


PLAIN_MOCKS = r'''
import sys
import pulumi

class InputsOnly(pulumi.runtime.Mocks):  # the mocks of Pulumi's unit-testing guide
    def new_resource(self, args):
        return [args.name + "_id", args.inputs]
    def call(self, args):
        return {}

if sys.argv[1] == "inputs-only":
    pulumi.runtime.set_mocks(InputsOnly(), preview=False)
else:
    from nodepools.testing import set_mocks
    set_mocks(preview=False)

import pulumi_aws as aws
import pulumi_kubernetes as k8s
from nodepools.backends.aws import EksCluster
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.spec import PoolSpec

@pulumi.runtime.test
def test_platform_registers():
    cluster = aws.eks.Cluster("app", name="app", role_arn="arn:aws:iam::123456789012:role/app",
                              vpc_config={"subnet_ids": ["subnet-00000001", "subnet-00000002"]})
    oidc = aws.iam.OpenIdConnectProvider("oidc", url="https://oidc.example", client_id_lists=["sts.amazonaws.com"])
    target = EksCluster(cluster.name, ["subnet-00000001", "subnet-00000002"], cluster_security_group_id="sg-00000001",
                        oidc_provider_arn=oidc.arn, oidc_issuer_url=oidc.url)
    platform = Platform("ml", target, PlatformArgs(region="eu-west-1", pools=[
        PoolSpec(name="services", pool_class="resident", instance_types=["m7i.xlarge"]),
        PoolSpec(name="jobs", pool_class="batch", instance_types=["c7i.2xlarge"])]), k8s.Provider("k", kubeconfig="{}"))
    return platform.pools["jobs"].registered.resource.urn

test_platform_registers()
print("registered")
'''


def test_components_register_under_nodepools_mocks_in_default_mode():
    result = subprocess.run([sys.executable, "-c", PLAIN_MOCKS, "nodepools"], capture_output=True, text=True)
    assert (result.returncode, result.stdout.strip()) == (0, "registered"), result.stderr[-3000:]


def test_inputs_only_mocks_get_a_clear_error_not_a_role_that_trusts_nobody():
    """Such mocks leave out what only a cloud computes (the OIDC provider's ``arn``, the node
    group's ``resources``); the components read it as a real cloud returns it, so they stop
    and name it, with the mocks that supply it."""
    result = subprocess.run([sys.executable, "-c", PLAIN_MOCKS, "inputs-only"], capture_output=True, text=True)
    assert result.returncode != 0 and "registered" not in result.stdout
    assert ("IRSA role 'ml-cluster-autoscaler' needs the cluster's IAM OIDC provider, but oidc_provider_arn "
            "resolved empty: give the EksCluster the provider's ARN and issuer URL (an "
            "aws.iam.OpenIdConnectProvider's arn and url); under pulumi.runtime.set_mocks, return them from the "
            "mocks (nodepools.testing.NodepoolsMocks)") in result.stderr
    # Every node group's ASG is tagged; which one the engine reaches first is not fixed.
    assert re.search(r"EKS node group 'ml-(services|jobs)' reports no Auto Scaling group "
                     r"\(resources\[0\]\.autoscalingGroups\[0\]\.name\), which its cluster-autoscaler tags "
                     r"need; under pulumi\.runtime\.set_mocks, return it from the mocks "
                     r"\(nodepools\.testing\.NodepoolsMocks\)", result.stderr), result.stderr[-2000:]
