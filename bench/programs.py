"""The programs the benchmarks run: a default stack as ``pulumi preview`` runs it, and a fleet.

Imports of the provider SDKs and of ``nodepools`` happen inside the factories,
so a floor process that never calls them pays only for ``pulumi`` itself.
"""
from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parent.parent
FLEET_REGION = "us-west-2"


def stack_runner(stack: str) -> Callable[[], Any]:
    """One mocked preview of ``stacks/__main__.py`` with ``Pulumi.<stack>.yaml`` (read once,
    as the CLI reads it before starting the program)."""
    from nodepools.offline.engine import run_program
    from nodepools.plan.project import load_project, stack_config

    project = load_project(ROOT)
    config, _ = stack_config(project, stack)
    program = str(project.program())

    def main() -> None:
        runpy.run_path(program, run_name="__main__")

    return lambda: run_program(main, project=project.name, stack=stack, config=config)


def aws_prod_pools() -> list[dict[str, Any]]:
    """The four pools of the ``aws-prod`` stack (one per class), as config gives them."""
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.aws-prod.yaml").read_text())
    return document["config"]["nodepools:pools"]


def fleet_program(clusters: int) -> Callable[[], None]:
    """``clusters`` existing EKS clusters, each a ``Platform`` of the aws-prod pools
    (resident, batch, gpu-inference, gpu-training) with every guardrail at its default."""
    import pulumi_kubernetes as k8s

    from nodepools.backends.aws import EksCluster
    from nodepools.components.platform import Platform

    pools = aws_prod_pools()

    def program() -> None:
        for i in range(clusters):
            name = f"fleet-{i:03d}"
            target = EksCluster(
                name, ["subnet-0f1e2d3c4b5a69701", "subnet-0f1e2d3c4b5a69702", "subnet-0f1e2d3c4b5a69703"],
                cluster_security_group_id=f"sg-{i:017x}",
                oidc_provider_arn=f"arn:aws:iam::123456789012:oidc-provider/oidc.eks.{FLEET_REGION}."
                                  f"amazonaws.com/id/{i:032X}",
                oidc_issuer_url=f"https://oidc.eks.{FLEET_REGION}.amazonaws.com/id/{i:032X}",
                tags={"fleet": "bench"})
            provider = k8s.Provider(f"{name}-k8s", kubeconfig="{}", enable_server_side_apply=True)
            Platform(name, target, {"pools": pools, "region": FLEET_REGION}, provider)

    return program


def fleet_runner(clusters: int) -> Callable[[], Any]:
    from nodepools.offline.engine import run_program

    program = fleet_program(clusters)
    return lambda: run_program(program, stack="fleet")


def flat_runner(spec_path: str, stack: str, typed: bool = False) -> Callable[[], Any]:
    """The floor: ``bench.flat`` replay of a recorded run (inputs loaded before timing,
    as a flat program's literals are parsed before it runs); ``typed`` replays it
    through the provider SDKs' generated classes instead of the raw ones."""
    import json

    from bench.flat import flat_program
    from nodepools.offline.engine import run_program

    program = flat_program(json.loads(Path(spec_path).read_text()), typed=typed)
    return lambda: run_program(program, project="nodepools", stack=stack)
