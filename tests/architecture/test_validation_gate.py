"""One validation gate: on its way from the stack config to the provider resources, each
rule runs once per pool (pool rules, the cloud's pool rules) or once per stack (the rules
over the pool set, the guardrails and the add-ons), at the outermost entry."""
from __future__ import annotations

import runpy
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

# Import every module that holds a rule before any is wrapped: a module first imported
# during a run would keep the wrapper of that run (``from x import rule`` copies it).
import nodepools.config.eks  # noqa: F401
import nodepools.config.gke  # noqa: F401
import nodepools.config.outputs  # noqa: F401
import nodepools.config.source  # noqa: F401
from nodepools.backends.aws import checks as aws_checks
from nodepools.backends.gcp import checks as gcp_checks
from nodepools.guardrails import checks as guardrail_checks
from nodepools.offline.engine import run_program_capture
from nodepools.spec import cluster as cluster_rules
from nodepools.spec import pool_rules

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


@pytest.mark.parametrize("stack", ["aws-prod", "gcp-dev"])
def test_each_rule_runs_once_per_pool_or_per_stack(monkeypatch, stack):
    """Before the gate, on aws-prod: pool rules 7 times per pool, EKS rules 4, pool-set
    rules 3, guardrail rules 4, add-on rules 3."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    calls: Counter = Counter()
    count_calls(monkeypatch, calls)
    run, error = run_program_capture(lambda: runpy.run_path(str(ROOT / "stacks" / "__main__.py"), run_name="__main__"),
                                     stack=stack, config=config, preview=True)
    assert error is None
    pools = [p["name"] for p in config["nodepools:pools"]]
    per_pool = ("check_pool", CLOUD_RULE[config["nodepools:cluster"]["cloud"]])
    expected = Counter({**{(rule, pool): 1 for rule in per_pool for pool in pools},
                        **{(rule, ""): 1 for rule in PER_STACK}})
    assert calls == expected
