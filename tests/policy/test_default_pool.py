"""docs/design.md section 8, "A pool without a class": an untainted pool declaring no nodepools.io/pool-class
is a default pool, the resident pool of every rule that speaks of one; an untainted GPU pool never is."""
from dataclasses import replace

from policy_builders import CLASS, DEPLOYMENT, container, eks_pool, golden, pod_template, workload

SUBJECT = "aws:eks/nodeGroup:NodeGroup '{0}'"


def classless(name: str, instance: str = "m6i.xlarge", **kw):
    pool = eks_pool(name, "resident", instance, lo=2, hi=6, **kw)
    labels = {k: v for k, v in pool.props["labels"].items() if k != CLASS}
    props = {**pool.props, "labels": labels}
    return replace(pool, props=props)


def default_instead_of_web(**kw):
    """The golden stack whose resident pool 'web' is replaced by an unclassed untainted pool 'default'."""
    return golden().drop("web").add(classless("default", **kw))


def batch_deployment():
    return workload(DEPLOYMENT, "crunch", "batch", {"replicas": 1.0, "template": pod_template("batch", {
        "priorityClassName": "nodepools-batch", "containers": [container("1", "1Gi")]},
        annotations={"nodepools.io/checkpoint-interval": "15m"})})


def messages(diagnostics, policy):
    return [d.message.split("\n", 1)[-1] for d in diagnostics if d.policy == policy and not d.cannot_judge]


def test_an_unclassed_untainted_pool_is_the_clusters_default_pool(check):
    assert messages(check(default_instead_of_web()), "pool-taints") == []


def test_shared_pool_off_peak_counts_the_default_pool_as_the_resident_pool(check):
    diagnostics = check(default_instead_of_web().add(batch_deployment()))
    assert messages(diagnostics, "shared-pool-off-peak") == [
        "Deployment 'crunch' in namespace 'batch': spec.template.spec: a batch workload can land on resident pool(s) "
        "'default' at any time. Fix: select the batch pool, or run it as a CronJob whose every firing lies within "
        "00:00-06:00 UTC"]


def test_resident_off_spot_counts_the_default_pool_where_it_is_spot(check):
    diagnostics = check(default_instead_of_web(spot=True))
    assert messages(diagnostics, "resident-off-spot") == [
        "Deployment 'api' in namespace 'services': spec.template.spec: a resident workload can land on spot pool(s) "
        "'default', which the cloud reclaims at short notice. Fix: select on-demand capacity (nodepools.io/capacity: "
        "on-demand) or a pool of its own class"]
    assert messages(check(default_instead_of_web()), "resident-off-spot") == []


def test_pool_taints_reports_an_unclassed_untainted_pool_beside_the_resident_default(check):
    diagnostics = check(golden().add(classless("extra")))
    assert messages(diagnostics, "pool-taints") == [
        f"{SUBJECT.format('extra')}: taints: untainted, but pool 'web' is already this cluster's one untainted "
        "resident/default pool. Fix: add {key: nodepools.io/pool-class, value: resident, effect: NO_SCHEDULE} to taints"]


def test_an_untainted_unclassed_gpu_pool_is_never_a_default_pool(check):
    diagnostics = check(golden().add(classless("gpus", "g6.xlarge")).add(batch_deployment()))
    assert messages(diagnostics, "pool-taints") == [
        f"{SUBJECT.format('gpus')}: taints: an untainted GPU pool, which is never the cluster's default pool: any pod "
        "can land on its GPU nodes. Fix: add {key: nvidia.com/gpu, value: present, effect: NO_SCHEDULE} to taints"]
    # The batch Deployment reaches it, but it is no resident pool: shared-pool-off-peak names only 'web'.
    assert messages(diagnostics, "shared-pool-off-peak") == [
        "Deployment 'crunch' in namespace 'batch': spec.template.spec: a batch workload can land on resident pool(s) "
        "'web' at any time. Fix: select the batch pool, or run it as a CronJob whose every firing lies within "
        "00:00-06:00 UTC"]
