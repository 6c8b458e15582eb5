"""A distributed fine-tuning Job on a spot gpu-training pool.

- Gang scheduling through Kueue: the Job is created suspended in the training
  namespace's LocalQueue; Kueue admits all workers at once when the quota and the
  pool have room (all-or-nothing, with the guardrails' waitForPodsReady).
- Spot interruptions: workers checkpoint every ``checkpointInterval`` (declared in
  ``nodepools.io/checkpoint-interval``) and resume from the last checkpoint; a pod
  killed by a node going away does not count against ``backoffLimit``.
- ``cluster-autoscaler.kubernetes.io/safe-to-evict: "false"``: the autoscaler never
  removes a node under a running worker to consolidate (docs/kubernetes-facts.md section 1.5).
- ``topologyLevel`` (optional): on a platform whose training flavor points at a Kueue
  Topology (the plan's "Training" section names its levels), the level the workers prefer to
  share, e.g. ``topology.k8s.aws/network-node-layer-3``. Leave it unset where the flavor has
  no Topology: Kueue admits no topology request there (docs/design.md section 9).
"""
import pulumi
import pulumi_kubernetes as k8s

from nodepools.components.contract import pool_contract
from nodepools.vocabulary import (ANNOTATION_CHECKPOINT_INTERVAL, ANNOTATION_KUEUE_PREFERRED_TOPOLOGY,
                                  ANNOTATION_SAFE_TO_EVICT, GPU_RESOURCE, LABEL_KUEUE_QUEUE, LABEL_WORKLOAD_CLASS,
                                  PRIORITY_CLASS_NAMES, PoolClass)

config = pulumi.Config()
namespace = config.get("namespace") or "training"
workers = config.get_int("workers") or 2
gpus = config.get_int("gpusPerWorker") or 1
topology_level = config.get("topologyLevel")
name = "llm-finetune"


contract = pool_contract(config.require_object("pool"), config.get("platformStack"))
labels = {"app": name, LABEL_WORKLOAD_CLASS: PoolClass.GPU_TRAINING.value}
# One worker per g6.12xlarge: all 4 GPUs, and cpu/memory that fit after the system reservation.
resources = {"cpu": "40", "memory": "160Gi", GPU_RESOURCE: str(gpus)}

job = k8s.batch.v1.Job(
    name,
    metadata={"name": name, "namespace": namespace,
              "labels": {**labels, LABEL_KUEUE_QUEUE: config.require("queue")}},
    spec={
        # Kueue unsuspends the Job once it admits the whole gang.
        "suspend": True,
        "parallelism": workers,
        "completions": workers,
        "completionMode": "Indexed",
        "backoffLimit": 6,
        # Spot reclaims and drains mark pods DisruptionTarget: retry them without
        # spending the backoff budget meant for real failures.
        "podFailurePolicy": {"rules": [
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]},
        "template": {
            "metadata": {"labels": labels, "annotations": {
                ANNOTATION_CHECKPOINT_INTERVAL: config.require("checkpointInterval"),
                ANNOTATION_SAFE_TO_EVICT: "false",
                **({ANNOTATION_KUEUE_PREFERRED_TOPOLOGY: topology_level} if topology_level else {}),
            }},
            "spec": {
                "restartPolicy": "Never",
                "priorityClassName": PRIORITY_CLASS_NAMES[PoolClass.GPU_TRAINING],
                "tolerations": contract.apply(lambda c: c["tolerations"]),
                "affinity": contract.apply(lambda c: c["affinity"]),
                # AWS gives 2 minutes' notice; leave room to flush a final checkpoint
                # (docs/kubernetes-facts.md section 7).
                "terminationGracePeriodSeconds": 90,
                "containers": [{
                    "name": "trainer",
                    "image": config.require("image"),
                    "args": ["--resume-from-latest", "--checkpoint-every", config.require("checkpointInterval")],
                    "env": [{"name": "CHECKPOINT_URI", "value": config.require("checkpointUri")},
                            {"name": "WORLD_SIZE", "value": str(workers)}],
                    "resources": {"requests": resources, "limits": resources},
                }],
            },
        },
    },
)

pulumi.export("job", job.metadata["name"])
