"""The Python API and the stack program send in-cluster objects only through a Kubernetes
provider: anything else given as one is refused by name before anything registers, as
the engine would send those objects to the default provider's cluster. (issue 26)"""
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest
from pydantic import ValidationError

from nodepools.backends.aws import EksCluster
from nodepools.components.guardrails import Guardrails
from nodepools.components.platform import Platform
from nodepools.offline.engine import run_program_capture
from nodepools.spec.cluster import ClusterPools

POOLS = [{"name": "web", "pool_class": "resident", "instance_types": ["m7i.xlarge"]}]
TARGET = dict(cluster_security_group_id="sg-0123456789abcdef0",
              oidc_provider_arn="arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/A",
              oidc_issuer_url="https://oidc.eks.us-west-2.amazonaws.com/id/A")
WRONG = {
    "a kubeconfig string": (lambda: "apiVersion: v1\nusers: [{user: {token: hunter2-token}}]",
                            "a string (a provider is a resource, not its kubeconfig or context name)"),
    "an AWS provider": (lambda: aws.Provider("aws", region="us-west-2"), "a provider of type pulumi:providers:aws"),
    "nothing": (lambda: None, "nothing"),
}
MESSAGE = ("k8s_provider must be a Kubernetes provider (pulumi_kubernetes.Provider, type pulumi:providers:kubernetes); "
           "got {what}: every in-cluster object is deployed through it, and anything else would send them to the "
           "default provider's cluster")


def refused(build):
    run, error = run_program_capture(build)
    assert isinstance(error, ValidationError), error
    return run, [(tuple(e["loc"]), e["msg"]) for e in error.errors()], str(error)


@pytest.mark.parametrize("case", sorted(WRONG))
def test_platform_refuses_a_provider_that_is_not_a_kubernetes_one(case):
    make, what = WRONG[case]
    run, errors, text = refused(lambda: Platform(
        "p", EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], **TARGET), {"pools": POOLS, "region": "us-west-2"}, make()))
    assert errors == [(("k8s_provider",), MESSAGE.format(what=what))]
    assert "hunter2" not in text
    assert [r.type for r in run.resources if not r.type.startswith("pulumi:providers:")] == []


def test_guardrails_refuse_it_too():
    pools = ClusterPools(cloud="aws", pools=POOLS)
    run, errors, _ = refused(lambda: Guardrails("g", pools, Platform.validate(
        EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], **TARGET), {"pools": POOLS, "region": "us-west-2"}).args.guardrails,
        "aws", "demo", "kubeconfig-context", region="us-west-2"))
    # Reported with the component's other problems (standalone, the default alert backend needs alarms).
    assert errors[0] == (("k8s_provider",), MESSAGE.format(what=WRONG["a kubeconfig string"][1]))
    assert run.resources == []


def test_a_kubernetes_provider_deploys_every_in_cluster_object():
    def build():
        provider = k8s.Provider("k8s", kubeconfig="fake")
        Platform("p", EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], **TARGET), {"pools": POOLS, "region": "us-west-2"},
                 provider)
    run, error = run_program_capture(build)
    assert error is None, error
    (provider,) = run.of_type("pulumi:providers:kubernetes")
    in_cluster = [r for r in run.resources if r.type.startswith("kubernetes:")]
    assert len(in_cluster) > 5 and {r.provider.rsplit("::", 1)[0] for r in in_cluster} == {provider.urn}

