"""A platform stack with many workloads: what the policy pack and the placement analysis judge.

``workloads_program(n)`` registers the aws-prod pools and guardrails on one EKS
cluster and ``n`` workloads cycling through the four classes, each written the
way the examples teach (the pool's workload contract, its class label and
PriorityClass, Guaranteed QoS where the class needs it, probes and checkpoint
annotations): a realistic pipeline stack, not a pathological one; one workload
in 50 omits its PriorityClass, so the pack reports violations too. ``pools``
beyond the aws-prod four repeat them under new names.
"""
from __future__ import annotations

from typing import Any, Callable

from bench.programs import FLEET_REGION, aws_prod_pools

_SIZES = {  # cpu, memory, GPUs per pod: each fits one node of its aws-prod pool
    "resident": ("1", "2Gi", 0), "batch": ("2", "4Gi", 0),
    "gpu-inference": ("3", "16Gi", 1), "gpu-training": ("40", "600Gi", 8),
}


def _pod(index: int, pool: Any, namespace: str, contract: dict[str, Any]) -> dict[str, Any]:
    from nodepools import vocabulary as v

    cls = pool.pool_class
    cpu, memory, gpus = _SIZES[cls.value]
    resources = {"cpu": cpu, "memory": memory, **({v.GPU_RESOURCE: str(gpus)} if gpus else {})}
    container: dict[str, Any] = {"name": "main", "image": f"registry.example/app-{index}:1.0",
                                 "resources": {"requests": resources, "limits": resources}}
    annotations = {}
    if cls is v.PoolClass.GPU_INFERENCE:
        annotations[v.ANNOTATION_MODEL_LOAD_SECONDS] = "120"
        container["startupProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10,
                                     "failureThreshold": 18}
        container["readinessProbe"] = {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5}
    if cls in (v.PoolClass.BATCH, v.PoolClass.GPU_TRAINING):
        annotations[v.ANNOTATION_CHECKPOINT_INTERVAL] = "15m"
    labels = {"app": f"app-{index}", v.LABEL_WORKLOAD_CLASS: cls.value}
    if cls is v.PoolClass.GPU_TRAINING:
        labels[v.LABEL_KUEUE_QUEUE] = "training"
    spec: dict[str, Any] = {"priorityClassName": v.PRIORITY_CLASS_NAMES[cls], "containers": [container],
                            "tolerations": contract["tolerations"], "affinity": contract["affinity"]}
    if cls is v.PoolClass.RESIDENT:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "ScheduleAnyway",
                                              "labelSelector": {"matchLabels": {"app": f"app-{index}"}}}]
    if cls in (v.PoolClass.BATCH, v.PoolClass.GPU_TRAINING):
        spec["restartPolicy"] = "OnFailure"
    if index % 50 == 49:  # a few violations, so the pack's reporting path runs too
        del spec["priorityClassName"]
    return {"metadata": {"labels": labels, "annotations": annotations}, "spec": spec}


def pool_set(count: int) -> list[dict[str, Any]]:
    """``count`` pools cycling through the aws-prod four; every resident pool after the
    first is dedicated (tainted), as a cluster allows one untainted default pool."""
    base = aws_prod_pools()
    if count <= len(base):
        return base[:count]
    pools = []
    for j in range(count):
        pool = {**base[j % len(base)], "name": f"{base[j % len(base)]['name']}-{j}"}
        if pool["pool_class"] == "resident" and j >= len(base):
            pool["dedicated"] = True
        pools.append(pool)
    return pools


def workloads_program(workloads: int, pools: int = 4) -> Callable[[], None]:
    import pulumi
    import pulumi_kubernetes as k8s

    from nodepools.backends.aws import EksCluster
    from nodepools.components.platform import Platform
    from nodepools.spec import workload_contract
    from nodepools.vocabulary import PoolClass

    def program() -> None:
        target = EksCluster("bench", ["subnet-0f1e2d3c4b5a69701", "subnet-0f1e2d3c4b5a69702"],
                            cluster_security_group_id="sg-0123456789abcdef0",
                            oidc_provider_arn="arn:aws:iam::123456789012:oidc-provider/oidc.example/id/BENCH",
                            oidc_issuer_url="https://oidc.example/id/BENCH")
        provider = k8s.Provider("bench-k8s", kubeconfig="{}", enable_server_side_apply=True)
        platform = Platform("bench", target, {"pools": pool_set(pools), "region": FLEET_REGION}, provider)
        specs = [p.spec for p in platform.pools.values()]
        contracts = {p.name: workload_contract(p).as_dict() for p in specs}
        opts = pulumi.ResourceOptions(provider=provider, depends_on=[platform])
        for i in range(workloads):
            pool = specs[i % len(specs)]
            namespace = platform.guardrails.namespaces[pool.pool_class.value]
            template = _pod(i, pool, namespace, contracts[pool.name])
            metadata = {"name": f"app-{i}", "namespace": namespace,
                        "labels": template["metadata"]["labels"]}
            if pool.pool_class in (PoolClass.RESIDENT, PoolClass.GPU_INFERENCE):
                replicas = 3 if pool.pool_class is PoolClass.RESIDENT else 1
                k8s.apps.v1.Deployment(f"app-{i}", metadata=metadata, opts=opts, spec={
                    "replicas": replicas, "selector": {"matchLabels": {"app": f"app-{i}"}}, "template": template})
            else:
                k8s.batch.v1.Job(f"app-{i}", metadata=metadata, opts=opts, spec={
                    "backoffLimit": 3, "template": template})

    return program
