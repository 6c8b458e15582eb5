"""A model server on a gpu-inference pool: the pool's workload contract, Guaranteed QoS,
probes sized to the model's load time, and an autoscaler that accounts for it.

Copy this into an app stack. It needs only the platform stack's exported pool
contract (``platformStack``) or the pool's spec (``pool``), never the cluster.
"""
import math

import pulumi
import pulumi_kubernetes as k8s

from nodepools.components.contract import pool_contract
from nodepools.vocabulary import (ANNOTATION_MODEL_LOAD_SECONDS, GPU_RESOURCE, LABEL_WORKLOAD_CLASS,
                                  PRIORITY_CLASS_NAMES, PoolClass)

config = pulumi.Config()
load_s = config.require_int("modelLoadSeconds")
min_replicas, max_replicas = config.get_int("minReplicas") or 1, config.get_int("maxReplicas") or 2
namespace = config.get("namespace") or "inference"
app = "llm-server"


contract = pool_contract(config.require_object("pool"), config.get("platformStack"))

# Probes sized to model load (docs/design.md, policy model-load-probes): the startup probe's
# budget (periodSeconds x failureThreshold) must outlast the load, with 50% headroom for
# a cold node (image pull). Liveness and readiness only start once startup succeeds, so
# they can stay tight without killing a loading pod.
STARTUP_PERIOD_S = 10
startup_failures = math.ceil(load_s * 1.5 / STARTUP_PERIOD_S)

# Guaranteed QoS: requests == limits for cpu and memory (GPUs do not affect QoS, but must
# also be equal). Sized to fit one g6.xlarge (4 vCPU, 16 GiB) after the system reservation.
resources = {"cpu": "3", "memory": "10Gi", GPU_RESOURCE: "1"}
labels = {"app": app, LABEL_WORKLOAD_CLASS: PoolClass.GPU_INFERENCE.value}

deployment = k8s.apps.v1.Deployment(
    app,
    metadata={"name": app, "namespace": namespace, "labels": labels},
    spec={
        # No replicas: the HorizontalPodAutoscaler owns the count; a value here would
        # fight it on every `pulumi up` (server-side apply field ownership).
        "selector": {"matchLabels": {"app": app}},
        # Surge one pod and keep every serving pod until the new one has loaded its model.
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
        "template": {
            "metadata": {"labels": labels, "annotations": {ANNOTATION_MODEL_LOAD_SECONDS: str(load_s)}},
            "spec": {
                "priorityClassName": PRIORITY_CLASS_NAMES[PoolClass.GPU_INFERENCE],
                "tolerations": contract.apply(lambda c: c["tolerations"]),
                "affinity": contract.apply(lambda c: c["affinity"]),
                # In-flight requests finish before the pod goes (the Service stops routing first).
                "terminationGracePeriodSeconds": 60,
                "containers": [{
                    "name": "server",
                    "image": config.require("image"),
                    "args": ["--model", config.require("model"), "--port", "8000"],
                    "ports": [{"name": "http", "containerPort": 8000}],
                    "resources": {"requests": resources, "limits": resources},
                    "startupProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": STARTUP_PERIOD_S,
                                     "failureThreshold": startup_failures},
                    "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 5,
                                       "failureThreshold": 3},
                    "livenessProbe": {"httpGet": {"path": "/health", "port": "http"}, "periodSeconds": 10,
                                      "failureThreshold": 3, "timeoutSeconds": 5},
                }],
            },
        },
    },
)

# Scaling that knows a replica is useless for load_s seconds after it starts:
# - up: at most double (or +1) per load time, so the autoscaler does not keep adding
#   pods for demand that the pods already starting will absorb once loaded;
# - down: wait several load times before removing capacity that costs a full load to
#   bring back, then remove one pod per load time.
scale_up_period = min(load_s, 1800)
hpa = k8s.autoscaling.v2.HorizontalPodAutoscaler(
    app,
    metadata={"name": app, "namespace": namespace, "labels": labels},
    spec={
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": deployment.metadata["name"]},
        "minReplicas": min_replicas,
        "maxReplicas": max_replicas,
        "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                                                      "target": {"type": "Utilization", "averageUtilization": 60}}}],
        "behavior": {
            "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                {"type": "Percent", "value": 100, "periodSeconds": scale_up_period},
                {"type": "Pods", "value": 1, "periodSeconds": scale_up_period}]},
            "scaleDown": {"stabilizationWindowSeconds": min(max(600, 3 * load_s), 3600), "selectPolicy": "Min",
                          "policies": [{"type": "Pods", "value": 1, "periodSeconds": scale_up_period}]},
        },
    },
)

# Node drains (AMI updates, scale-down) never take the last serving replica.
k8s.policy.v1.PodDisruptionBudget(
    app, metadata={"name": app, "namespace": namespace, "labels": labels},
    spec={"selector": {"matchLabels": {"app": app}}, "maxUnavailable": 1})

k8s.core.v1.Service(
    app, metadata={"name": app, "namespace": namespace, "labels": labels},
    spec={"selector": {"app": app}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]})

pulumi.export("deployment", deployment.metadata["name"])
pulumi.export("startupBudgetSeconds", STARTUP_PERIOD_S * startup_failures)
