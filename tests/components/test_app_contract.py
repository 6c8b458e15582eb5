"""The app-side contract helper: from the platform stack's export, else from the pool spec."""
import pulumi

from nodepools.components.contract import pool_contract
from nodepools.offline.engine import run_program

POOL = {"name": "inference", "pool_class": "gpu-inference", "instance_types": ["g6.xlarge"]}


def test_without_a_platform_stack_the_contract_is_derived_from_the_spec():
    def program():
        pulumi.export("contract", pool_contract(POOL))

    run = run_program(program, preview=False)
    assert run.resources == []
    assert run.outputs["contract"] == {
        "tolerations": [
            {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
            {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "nodepools.io/pool", "operator": "In", "values": ["inference"]}]}]}}},
        "nodeSelector": {"nodepools.io/pool": "inference"},
    }


def test_with_a_platform_stack_the_contract_is_read_from_its_pools_output():
    def program():
        pulumi.export("contract", pool_contract(POOL, "acme/nodepools/aws-prod"))

    run = run_program(program, preview=True)
    assert run.resources == []
    [reference] = run.reads
    assert (reference.type, reference.name, reference.id, reference.inputs) == (
        "pulumi:pulumi:StackReference", "acme/nodepools/aws-prod", "acme/nodepools/aws-prod",
        {"name": "acme/nodepools/aws-prod"})


def test_one_stack_reference_per_platform_stack_however_many_pools_are_read():
    def program():
        for name in ("inference", "training", "batch"):
            pulumi.export(name, pool_contract({"name": name}, "acme/nodepools/aws-prod"))
        pulumi.export("gcp", pool_contract({"name": "batch"}, "acme/nodepools/gcp-dev"))

    for _ in range(2):  # a second run (another test's mocks) makes its own reference again
        run = run_program(program, preview=True)
        assert sorted(r.name for r in run.reads if r.type == "pulumi:pulumi:StackReference") == [
            "acme/nodepools/aws-prod", "acme/nodepools/gcp-dev"]
