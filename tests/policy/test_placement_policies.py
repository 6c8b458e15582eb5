"""Policies judged by the placement analysis, over the real pack."""
import pytest

from nodepools.inventory.resource import Resource

from policy_builders import (CLASS, DEPLOYMENT, GPU, WORKLOAD_CLASS, asg_tags, container, eks_pool, fired, golden,
                             pod_template, template_spec, toleration, workload)


def test_deployment_that_fits_nowhere(check):
    fx = golden().edit("api", lambda p: template_spec(p)["containers"][0].update(
        resources={"requests": {"cpu": "64", "memory": "1Gi"}, "limits": {"cpu": "64", "memory": "1Gi"}}))
    diags = check(fx)
    assert fired(diags) == {("schedulable", fx.urn("api"))}
    [d] = diags
    assert d.level == "mandatory"
    assert "Deployment 'api' in namespace 'services': spec.template.spec: fits no pool of its cluster (" in d.message
    assert "untolerated taint nodepools.io/pool-class=batch:NoSchedule" in d.message


def test_workload_selecting_a_pool_that_does_not_exist(check):
    fx = golden().edit("nightly", lambda p: template_spec(p).update(nodeSelector={"nodepools.io/pool": "etl"}))
    assert fired(check(fx)) == {("schedulable", fx.urn("nightly"))}


def test_app_stack_without_pools_is_not_judged_for_placement(check):
    fx = golden()
    app = fx.drop(*(r.name for r in fx.items if r.type.startswith(("aws:", "kubernetes:helm"))))
    assert fired(check(app)) == set()


def test_cpu_workload_reaching_a_gpu_pool(check):
    fx = golden().edit("api", lambda p: template_spec(p).update(tolerations=[
        toleration(CLASS, "gpu-inference"), toleration(GPU, "present")]))
    diags = check(fx)
    assert fired(diags) == {(n, fx.urn("api")) for n in (
        "gpu-nodes-gpu-only", "gpu-toleration-needs-gpu", "toleration-approval")}
    only = next(d for d in diags if d.policy == "gpu-nodes-gpu-only")
    assert "requests no nvidia.com/gpu yet can land on GPU pool(s) 'infer'" in only.message


def test_resident_workload_reaching_a_spot_pool(check):
    spot = eks_pool("web-spot", "batch", "m6i.xlarge", lo=0, hi=4, spot=True)
    fx = golden().add(spot, *asg_tags(spot)).edit("api", lambda p: template_spec(p).update(
        tolerations=[toleration(CLASS, "batch")]))
    fired_now = fired(check(fx, {"toleration-approval": {"tolerationApprovals": {
        "nodepools.io/pool-class=batch": ["services", "batch"]}}}))
    # The batch CronJob may now run on the spot batch pool too, so it must checkpoint as well.
    assert fired_now == {("resident-off-spot", fx.urn("api")), ("spot-checkpointing", fx.urn("api")),
                         ("spot-checkpointing", fx.urn("nightly"))}


def test_training_without_checkpoint_interval(check):
    fx = golden().edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].pop(
        "nodepools.io/checkpoint-interval"))
    diags = check(fx)
    assert fired(diags) == {("spot-checkpointing", fx.urn("finetune"))}
    assert "annotations['nodepools.io/checkpoint-interval']: no checkpoint interval declared, yet it can run on spot " \
           "capacity" in diags[0].message


@pytest.mark.parametrize("interval, maximum, fires", [("45m", None, True), ("45m", "1h", False), ("30m", None, False),
                                                      ("1h30m", "1h", True), ("soon", None, True)])
def test_checkpoint_interval_against_the_maximum(check, interval, maximum, fires):
    fx = golden().edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].update(
        {"nodepools.io/checkpoint-interval": interval}))
    config = {"spot-checkpointing": {"spotCheckpointMax": maximum}} if maximum else None
    assert fired(check(fx, config)) == ({("spot-checkpointing", fx.urn("finetune"))} if fires else set())


def test_app_stack_training_job_checkpoints_by_class(check):
    job = golden().get("finetune")
    template = {**job.props["spec"]["template"], "metadata": {"labels": {WORKLOAD_CLASS: "gpu-training"}}}
    spec = {**job.props["spec"], "template": template}
    bare = Resource.of(job.type, job.name, {**job.props, "spec": spec})
    assert fired(check([bare])) == {("spot-checkpointing", bare.urn)}


@pytest.mark.parametrize("schedule, zone, fires", [
    ("0 2 * * *", None, False), ("*/10 0-5 * * 1-5", None, False), ("0 9 * * *", None, True),
    ("0 2 * * *", "America/New_York", True), ("30 1 * * *", "Europe/Berlin", True), ("@hourly", None, True),
])
def test_batch_cronjob_on_the_resident_pool_must_fire_off_peak(check, schedule, zone, fires):
    def change(p):
        p["spec"]["schedule"] = schedule
        if zone:
            p["spec"]["timeZone"] = zone
    fx = golden().edit("nightly", change)
    diags = check(fx)
    assert fired(diags) == ({("shared-pool-off-peak", fx.urn("nightly"))} if fires else set())
    if fires:
        assert "a batch workload can land on resident pool(s) 'web' and spec.schedule" in diags[0].message
        assert "outside the off-peak window 00:00-06:00 UTC" in diags[0].message


@pytest.mark.dated
def test_a_schedule_outside_the_window_in_summer_only_is_reported_whatever_the_day(check, today):
    """01:30 in Berlin is 00:30 UTC in winter and 23:30 UTC in summer: the firings the pack reads from its
    ``today`` on include a summer one, whichever day of the calendar it judges on."""
    def change(p):
        p["spec"].update(schedule="30 1 * * *", timeZone="Europe/Berlin")
    fx = golden().edit("nightly", change)
    [diag] = check(fx)
    assert (diag.policy, diag.urn, diag.message.split("\n", 1)[1]) == ("shared-pool-off-peak", fx.urn("nightly"), (
        "CronJob 'nightly' in namespace 'batch': spec.schedule: a batch workload can land on resident pool(s) 'web' "
        "and spec.schedule '30 1 * * *' (Europe/Berlin) fires at 23:30 UTC, outside the off-peak window 00:00-06:00 "
        "UTC. Fix: select the batch pool, or run it as a CronJob whose every firing lies within 00:00-06:00 UTC"))


def test_off_peak_window_is_configurable(check):
    fx = golden().edit("nightly", lambda p: p["spec"].update(schedule="0 9 * * *"))
    window = {"shared-pool-off-peak": {"offPeakWindow": {"start": "08:00", "end": "10:00", "timeZone": "UTC"}}}
    assert fired(check(fx, window)) == set()


def test_batch_deployment_on_the_resident_pool(check):
    batch = workload(DEPLOYMENT, "etl", "batch", {"replicas": 1.0, "template": pod_template("batch", {
        "priorityClassName": "nodepools-batch", "tolerations": [toleration(CLASS, "batch")],
        "containers": [container("1", "1Gi")]})})
    fx = golden().add(batch)
    diags = check(fx)
    assert fired(diags) == {("shared-pool-off-peak", fx.urn("etl"))}
    assert "can land on resident pool(s) 'web' at any time" in diags[0].message
    pinned = fx.edit("etl", lambda p: template_spec(p).update(nodeSelector={"nodepools.io/pool": "jobs"}))
    assert fired(check(pinned)) == set()


def test_gpu_job_admitting_two_accelerator_models(check):
    h100 = eks_pool("train-h100", "gpu-training", "p5.48xlarge", lo=0, hi=1, spot=True, gpu_model="nvidia-h100")
    fx = golden().add(h100, *asg_tags(h100, 8)).edit("finetune", lambda p: template_spec(p).pop("nodeSelector"))
    diags = check(fx)
    assert fired(diags) == {("gpu-model-selected", fx.urn("finetune"))}
    assert "admits GPU pools of 2 accelerator models (nvidia-a100, nvidia-h100)" in diags[0].message
    pinned = fx.edit("finetune", lambda p: template_spec(p).update(
        nodeSelector={"nodepools.io/accelerator": "nvidia-h100"}))
    assert fired(check(pinned)) == set()


def test_gpu_class_whose_pools_share_a_model_is_fine(check):
    more = eks_pool("train-2", "gpu-training", "p4d.24xlarge", lo=0, hi=1, spot=True, gpu_model="nvidia-a100")
    fx = golden().add(more, *asg_tags(more, 8)).edit("finetune", lambda p: template_spec(p).pop("nodeSelector"))
    assert fired(check(fx)) == set()


@pytest.mark.parametrize("selector, fires", [
    ({"nodepools.io/capacity": "spot"}, True), ({"eks.amazonaws.com/capacityType": "SPOT"}, True),
    ({"cloud.google.com/gke-spot": "true"}, True), ({"cloud.google.com/gke-preemptible": "true"}, True),
    ({"nodepools.io/capacity": "on-demand"}, False), ({}, False)])
def test_app_stack_batch_job_checkpoints_when_it_selects_spot(check, selector, fires):
    job = workload(DEPLOYMENT, "etl", "batch", {"replicas": 1.0, "template": pod_template("batch", {
        "priorityClassName": "nodepools-batch", "nodeSelector": selector, "containers": [container("1", "1Gi")]})})
    assert fired(check([job])) == ({("spot-checkpointing", job.urn)} if fires else set())
