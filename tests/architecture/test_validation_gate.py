"""One validation gate: on every path from a user's input to the provider resources (the
stack program, the Python API, the multi-language components' Construct), each rule runs
once per pool (pool rules, the cloud's pool rules) or once per platform (the rules over the
pool set, the guardrails and the add-ons), at the outermost entry."""
from __future__ import annotations

import runpy
import sys
from collections import Counter
from pathlib import Path

import pulumi_kubernetes as k8s
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "multilang"))

# Import every module that holds a rule before any is wrapped: a module first imported
# during a run would keep the wrapper of that run (``from x import rule`` copies it).
import nodepools.backends.aws.cluster  # noqa: F401,E402
import nodepools.backends.gcp.cluster  # noqa: F401,E402
import nodepools.config.outputs  # noqa: F401,E402
import nodepools.multilang.provider  # noqa: F401,E402
from multilang_configs import EKS_POOLS, EKS_WIRE, GKE_WIRE, eks_python, gke_python  # noqa: E402
from multilang_harness import construct  # noqa: E402
from nodepools.backends.aws import checks as aws_checks  # noqa: E402
from nodepools.backends.gcp import checks as gcp_checks  # noqa: E402
from nodepools.guardrails import checks as guardrail_checks  # noqa: E402
from nodepools.offline.engine import run_program_capture  # noqa: E402
from nodepools.spec import cluster as cluster_rules  # noqa: E402
from nodepools.spec import pool_rules  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PER_POOL = {"check_pool": pool_rules.check_pool, "eks_pool_problems": aws_checks.eks_pool_problems,
            "pool_problems": gcp_checks.pool_problems}
CLOUD_RULE = {"aws": "eks_pool_problems", "gcp": "pool_problems"}
PER_STACK = {"cluster_problems": cluster_rules.cluster_problems,
             "guardrail_problems": guardrail_checks.guardrail_problems,
             "addon_problems": guardrail_checks.addon_problems}


def count_calls(monkeypatch: pytest.MonkeyPatch, calls: Counter) -> None:
    """Wrap each rule wherever a nodepools module holds it, counting (rule, pool name) per call."""
    for name, rule in {**PER_POOL, **PER_STACK}.items():
        def counted(*args, _rule=rule, _name=name, **kwargs):
            calls[(_name, args[0].name) if _name in PER_POOL else (_name, "")] += 1
            return _rule(*args, **kwargs)
        for module in [m for n, m in sys.modules.items() if n.startswith("nodepools")]:
            if getattr(module, name, None) is rule:
                monkeypatch.setattr(module, name, counted)


def once_each(pools: list[str], cloud: str) -> Counter:
    per_pool = ("check_pool", CLOUD_RULE[cloud])
    return Counter({**{(rule, pool): 1 for rule in per_pool for pool in pools},
                    **{(rule, ""): 1 for rule in PER_STACK}})


@pytest.mark.parametrize("stack", ["aws-prod", "gcp-dev"])
def test_the_stack_program_runs_each_rule_once_per_pool_or_per_stack(monkeypatch, stack):
    """Before the gate, on aws-prod: pool rules 7 times per pool, EKS rules 4, pool-set
    rules 3, guardrail rules 4, add-on rules 3."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    calls: Counter = Counter()
    count_calls(monkeypatch, calls)
    run, error = run_program_capture(lambda: runpy.run_path(str(ROOT / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack=stack, config=config, preview=True)
    assert error is None
    assert calls == once_each([p["name"] for p in config["nodepools:pools"]], config["nodepools:cluster"]["cloud"])


def validated_first(k8s_provider):
    """``Platform.validate`` before anything registers, its result handed to ``Platform``."""
    from nodepools.backends.aws import EksCluster
    from nodepools.components.platform import Platform
    from multilang_configs import EKS_GUARDRAILS, OIDC_ARN, OIDC_URL
    cluster = EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000c1a",
                         oidc_provider_arn=OIDC_ARN, oidc_issuer_url=OIDC_URL)
    checked = Platform.validate(cluster, {"pools": EKS_POOLS, "guardrails": EKS_GUARDRAILS, "region": "us-west-2"})
    return Platform("p", cluster, checked, k8s_provider)


@pytest.mark.parametrize("build, cloud", [(eks_python, "aws"), (gke_python, "gcp"), (validated_first, "aws")],
                         ids=["Platform on EKS", "Platform on GKE", "Platform.validate, then Platform"])
def test_the_python_api_runs_each_rule_once(monkeypatch, build, cloud):
    calls: Counter = Counter()
    count_calls(monkeypatch, calls)
    run, error = run_program_capture(lambda: build(k8s.Provider("k8s", kubeconfig="fake")), preview=True)
    assert error is None
    pools = [p["name"] for p in (EKS_POOLS if cloud == "aws" else GKE_WIRE["pools"])]
    assert calls == once_each(pools, cloud)


@pytest.mark.parametrize("component, wire, cloud", [("EksPlatform", EKS_WIRE, "aws"), ("GkePlatform", GKE_WIRE, "gcp")])
def test_construct_runs_each_rule_once(monkeypatch, component, wire, cloud):
    """Before: through EksPlatform with 3 pools, the add-on and pool-set rules twice, EKS rules 6 times."""
    calls: Counter = Counter()
    count_calls(monkeypatch, calls)
    got = construct(component, wire)
    assert got.error is None
    assert calls == once_each([p["name"] for p in wire["pools"]], cloud)


def test_a_validated_platform_vouches_for_its_own_target_only(monkeypatch):
    """Validated on one EKS target, built on another: the other target's rules run (its own subnets,
    security groups and OIDC provider are what the EKS rules read)."""
    from nodepools.backends.aws import EksCluster
    from nodepools.components.platform import Platform
    from multilang_configs import EKS_GUARDRAILS, OIDC_ARN, OIDC_URL

    def program():
        def target():
            return EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000c1a",
                              oidc_provider_arn=OIDC_ARN, oidc_issuer_url=OIDC_URL)
        checked = Platform.validate(target(), {"pools": EKS_POOLS, "guardrails": EKS_GUARDRAILS,
                                               "region": "us-west-2"})
        Platform("p", target(), checked, k8s.Provider("k8s", kubeconfig="fake"))

    calls: Counter = Counter()
    count_calls(monkeypatch, calls)
    run, error = run_program_capture(program, preview=True)
    assert error is None
    assert {pool: calls[("eks_pool_problems", pool)] for pool in ("web", "jobs", "train")} == {
        "web": 2, "jobs": 2, "train": 2}
