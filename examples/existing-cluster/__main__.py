"""Add nodepools to a stack that already has its cluster.

The first half stands for what your stack already defines (an EKS cluster, its
OIDC provider and a Kubernetes provider); the second half is all you add: a
cluster target over your cluster's outputs and one ``Platform`` (pools +
guardrails). Nothing here depends on this repository's ``stacks/`` or config
schema; ``pip install nodepools`` is enough.
"""
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from nodepools.backends.aws import EksCluster
from nodepools.backends.aws.kubeconfig import kubeconfig
from nodepools.components.platform import Platform, PlatformArgs
from nodepools.guardrails import GuardrailsSpec
from nodepools.spec import PoolSpec

config = pulumi.Config()
region = config.require("region")
subnet_ids = config.require_object("subnetIds")

# ---- what your stack already has --------------------------------------------------
cluster = aws.eks.Cluster(
    "app", role_arn=config.require("clusterRoleArn"), version="1.35",
    vpc_config={"subnet_ids": subnet_ids, "endpoint_private_access": True, "endpoint_public_access": False})
issuer = cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer)
oidc = aws.iam.OpenIdConnectProvider("app-oidc", url=issuer, client_id_lists=["sts.amazonaws.com"])
k8s_provider = k8s.Provider("app", kubeconfig=pulumi.Output.all(
    cluster.name, cluster.endpoint, cluster.certificate_authority.apply(lambda ca: ca.data),
).apply(lambda a: kubeconfig(a[0], region, a[1], a[2])))

# ---- what you add ---------------------------------------------------------------------
# The target: your cluster's outputs, so every node group waits for the cluster.
target = EksCluster(cluster.name, subnet_ids, cluster_security_group_id=cluster.vpc_config.cluster_security_group_id,
                    oidc_provider_arn=oidc.arn, oidc_issuer_url=issuer)

platform = Platform("ml", target, PlatformArgs(
    pools=[
        # The cluster's default pool for services and add-ons (untainted).
        PoolSpec(name="services", pool_class="resident", instance_types=["m7i.xlarge"], min_nodes=2, max_nodes=4),
        PoolSpec(name="jobs", pool_class="batch", capacity="spot", instance_types=["c7i.2xlarge", "c6i.2xlarge"]),
        PoolSpec(name="serving", pool_class="gpu-inference", instance_types=["g6.xlarge"], max_nodes=3),
        PoolSpec(name="training", pool_class="gpu-training", instance_types=["g6.12xlarge"], max_nodes=2),
    ],
    guardrails=GuardrailsSpec(batch_quota_share=0.4),
    region=region,
), k8s_provider)

# What app stacks need to place workloads: per pool, tolerations + required affinity.
pulumi.export("contracts", {name: pool.contract.as_dict() for name, pool in platform.pools.items()})
