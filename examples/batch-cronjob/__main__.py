"""A nightly report CronJob in the batch namespace, on the batch pool.

The guardrails give the batch namespace a ResourceQuota (its share of the
cluster) and a LimitRange; this job declares its own requests and limits so it
is admitted and placed predictably, queues through the batch LocalQueue, and
runs on the batch pool only (its contract), never on resident nodes.
"""
import pulumi
import pulumi_kubernetes as k8s

from nodepools.components.contract import pool_contract
from nodepools.vocabulary import (ANNOTATION_CHECKPOINT_INTERVAL, LABEL_KUEUE_QUEUE, LABEL_WORKLOAD_CLASS,
                                  PRIORITY_CLASS_NAMES, PoolClass)

config = pulumi.Config()
namespace = config.get("namespace") or "batch"
name = "nightly-report"


contract = pool_contract(config.require_object("pool"), config.get("platformStack"))
labels = {"app": name, LABEL_WORKLOAD_CLASS: PoolClass.BATCH.value}
requests = {"cpu": "2", "memory": "4Gi"}

k8s.batch.v1.CronJob(
    name,
    metadata={"name": name, "namespace": namespace, "labels": labels},
    spec={
        "schedule": config.require("schedule"),
        "timeZone": "Etc/UTC",
        # A late or overlapping run only adds load: skip it rather than stack runs up.
        "concurrencyPolicy": "Forbid",
        "startingDeadlineSeconds": 900,
        "successfulJobsHistoryLimit": 3,
        "failedJobsHistoryLimit": 3,
        "jobTemplate": {
            "metadata": {"labels": {**labels, LABEL_KUEUE_QUEUE: config.require("queue")}},
            "spec": {
                "backoffLimit": 3,
                "activeDeadlineSeconds": 4 * 3600,
                "ttlSecondsAfterFinished": 86400,
                "template": {
                    # The batch pool may be spot: the report writes partial results every
                    # 30 minutes and resumes from them (policy spot-checkpointing).
                    "metadata": {"labels": labels, "annotations": {ANNOTATION_CHECKPOINT_INTERVAL: "30m"}},
                    "spec": {
                        "restartPolicy": "Never",
                        "priorityClassName": PRIORITY_CLASS_NAMES[PoolClass.BATCH],
                        "tolerations": contract.apply(lambda c: c["tolerations"]),
                        "affinity": contract.apply(lambda c: c["affinity"]),
                        "containers": [{
                            "name": "report",
                            "image": config.require("image"),
                            "args": ["--date", "yesterday", "--resume"],
                            "resources": {"requests": requests, "limits": {"cpu": "4", "memory": "4Gi"}},
                        }],
                    },
                },
            },
        },
    },
)
