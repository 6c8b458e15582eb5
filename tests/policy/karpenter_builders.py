"""Karpenter NodePools as the engine sends them: ours (contract labels) and hand-written
ones as the Karpenter docs show them (aws/karpenter-provider-aws: website/content/en/v1.14/
getting-started/getting-started-with-karpenter/scripts/step12-add-nodepool.sh@v1.14.1)."""
from __future__ import annotations

from policy_builders import CLASS, CURRENT_MINOR, EKS_CLUSTER, GPU, Fixture, Resource, device_plugin, eks_pool
from policy_builders import guardrails, workloads

NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
CAPACITY = "karpenter.sh/capacity-type"


def req(key: str, op: str, *values: str) -> dict:
    out = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def node_pool(name: str, requirements: list[dict], *, labels: dict | None = None, taints: list[dict] | None = None,
              limits: dict | None = None, policy: str | None = "WhenEmpty", startup_taints: list[dict] | None = None
              ) -> Resource:
    spec: dict = {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                         "name": "default"},
                                        "requirements": requirements}}}
    if labels is not None:
        spec["template"]["metadata"] = {"labels": labels}
    if taints:
        spec["template"]["spec"]["taints"] = taints
    if startup_taints:
        spec["template"]["spec"]["startupTaints"] = startup_taints
    if limits is not None:
        spec["limits"] = limits
    if policy is not None:
        spec["disruption"] = {"consolidationPolicy": policy, "consolidateAfter": "1m"}
    return Resource.of(NODE_POOL, name, {"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
                                         "metadata": {"name": name}, "spec": spec})


def k_taint(key: str, value: str) -> dict:
    return {"key": key, "value": value, "effect": "NoSchedule"}


def ours(name: str, cls: str, *requirements: dict, gpu_model: str = "", **kw) -> Resource:
    labels = {CLASS: cls, "nodepools.io/pool": name}
    taints = [k_taint(CLASS, cls)]
    if gpu_model:
        labels.update({"nvidia.com/gpu.present": "true", "nodepools.io/accelerator": gpu_model})
        taints.append(k_taint(GPU, "present"))
    return node_pool(name, list(requirements), labels=labels, taints=taints, **kw)


def docs_default() -> Resource:
    """The getting-started guide's NodePool, verbatim: no class, no taint, on-demand c/m/r."""
    return node_pool("default", [req("kubernetes.io/arch", "In", "amd64"), req("kubernetes.io/os", "In", "linux"),
                                 req(CAPACITY, "In", "on-demand"),
                                 req("karpenter.k8s.aws/instance-category", "In", "c", "m", "r"),
                                 req("karpenter.k8s.aws/instance-generation", "Gt", "2")],
                     limits={"cpu": 1000.0}, policy="WhenEmptyOrUnderutilized")


def karpenter_golden() -> Fixture:
    """A managed resident group and three Karpenter pools (batch, inference, training), violating nothing."""
    web = eks_pool("web", "resident", "m6i.xlarge", lo=2, hi=6)
    jobs = ours("jobs", "batch", req(CAPACITY, "In", "on-demand"),
                req("karpenter.k8s.aws/instance-category", "In", "c", "m"),
                req("karpenter.k8s.aws/instance-generation", "Gt", "5"), req("kubernetes.io/arch", "In", "amd64"),
                limits={"cpu": "64", "memory": "256Gi"})
    infer = ours("infer", "gpu-inference", req(CAPACITY, "In", "on-demand"),
                 req("karpenter.k8s.aws/instance-family", "In", "g6"),
                 req("karpenter.k8s.aws/instance-size", "In", "xlarge", "2xlarge"),
                 gpu_model="nvidia-l4", limits={"cpu": "16", "memory": "64Gi", GPU: "2"},
                 policy="WhenEmptyOrUnderutilized")
    train = ours("train", "gpu-training", req(CAPACITY, "In", "spot"),
                 req("node.kubernetes.io/instance-type", "In", "p4d.24xlarge"), gpu_model="nvidia-a100",
                 limits={"cpu": "192", "memory": "2304Gi", GPU: "16"})
    cluster = Resource.of(EKS_CLUSTER, "prod", {"name": "prod", "version": CURRENT_MINOR})
    return Fixture((cluster, web, jobs, infer, train, device_plugin(), *guardrails(), *workloads()))
