"""Builders for the placement tests: pools and pod specs in wire form (camelCase, floats)."""

from nodepools.inventory.pools import read_pool

EKS = "aws:eks/nodeGroup:NodeGroup"
GKE = "gcp:container/nodePool:NodePool"
CLASS_KEY = "nodepools.io/pool-class"


def eks_pool(name="web", instance_types=("m6i.large",), taints=(), labels=None, spot=False, cluster="prod", **extra):
    """An EKS node group as the engine sends it; taints use the EKS effect enum."""
    props = {"clusterName": cluster, "nodeGroupName": name, "instanceTypes": list(instance_types),
             "capacityType": "SPOT" if spot else "ON_DEMAND", "labels": dict(labels or {}),
             "taints": [dict(t) for t in taints], **extra}
    return read_pool(EKS, props, f"urn:pulumi:dev::p::{EKS}::{name}", name)


def class_taint(value):
    return {"key": CLASS_KEY, "value": value, "effect": "NO_SCHEDULE"}


GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def gpu_pool(name="infer", pool_class="gpu-inference", instance_types=("g6.xlarge",), spot=False):
    return eks_pool(name, instance_types, [class_taint(pool_class), GPU_TAINT],
                    {CLASS_KEY: pool_class, "nodepools.io/pool": name, "nvidia.com/gpu.present": "true"}, spot=spot)


def container(cpu=None, memory=None, gpu=None, **extra):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    resources = {"requests": requests}
    if gpu is not None:
        resources["limits"] = {"nvidia.com/gpu": gpu}
    return {"name": "c", "image": "busybox", "resources": resources, **extra}


def pod(*containers_, **spec):
    return {"containers": list(containers_) or [container("100m", "128Mi")], **spec}

