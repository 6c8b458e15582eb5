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
        "pulumi:pulumi:StackReference", "acme/nodepools/aws-prod/inference", "acme/nodepools/aws-prod",
        {"name": "acme/nodepools/aws-prod"})


def test_each_pool_read_by_stack_name_has_its_own_reference_and_a_passed_reference_is_shared():
    """No state between calls: a reference per (stack, pool) read by name, or the app's own one."""
    def program():
        for name in ("inference", "training"):
            pulumi.export(name, pool_contract({"name": name}, "acme/nodepools/aws-prod"))
        gcp = pulumi.StackReference("gcp-platform", stack_name="acme/nodepools/gcp-dev")
        for name in ("batch", "training"):
            pulumi.export(f"gcp-{name}", pool_contract({"name": name}, gcp))

    for _ in range(2):  # a second run (another test's mocks) reads the same, from nothing left behind
        run = run_program(program, preview=True)
        assert sorted((r.name, r.id) for r in run.reads if r.type == "pulumi:pulumi:StackReference") == [
            ("acme/nodepools/aws-prod/inference", "acme/nodepools/aws-prod"),
            ("acme/nodepools/aws-prod/training", "acme/nodepools/aws-prod"),
            ("gcp-platform", "acme/nodepools/gcp-dev")]


def test_the_users_mocks_answer_every_reference_by_its_stack_name():
    """nodepools.testing.NodepoolsMocks keys a platform's outputs by stack name, whatever the reference's
    resource name (a pool's own ``<stack>/<pool>`` or the app's); the README's unit test runs end to end
    in tests/distribution/test_user_programs.py."""
    from nodepools.testing import STACK_REFERENCE, NodepoolsMocks
    pools = {"training": {"contract": {"nodeSelector": {"nodepools.io/pool": "training"}}}}
    mocks = NodepoolsMocks(stack_outputs={"acme/nodepools/aws-prod": {"pools": pools}})
    for resource_name in ("acme/nodepools/aws-prod/training", "platform"):
        state = mocks.outputs(STACK_REFERENCE, resource_name, {"name": "acme/nodepools/aws-prod"})
        assert state["outputs"] == {"pools": pools}
    assert mocks.outputs(STACK_REFERENCE, "other", {"name": "acme/nodepools/gcp-dev"})["outputs"] == {}
