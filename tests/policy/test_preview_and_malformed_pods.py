"""Two gaps the fuzzer found, closed: a pod the API server would reject gets a verdict
(``schedulable``), and an unknown list entry, pod template, label or namespace name
yields cannot-judge notes, never a violation the known value would not bring."""
import pytest
from policy_builders import (CLASS, NAMESPACE, UNKNOWN_WIRE, Resource, container, fired, golden,
                             template_spec, urn_for)

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


def notes(diags, policy):
    return [d.message for d in diags if d.policy == policy and d.cannot_judge]


@pytest.mark.parametrize("containers, field, problem", [
    ("<delete>", "containers", "no containers"),
    ([], "containers", "an empty containers list"),
    ("main", "containers", "not a list of containers (a string)"),
    ([{k: v for k, v in container("500m", "512Mi").items() if k != "name"}], "containers[0]",
     "a container without a name"),
])
def test_a_pod_without_valid_containers_is_not_schedulable(check, containers, field, problem):
    def edit(props):
        spec = template_spec(props)
        spec.pop("containers") if containers == "<delete>" else spec.update(containers=containers)
    fx = golden().edit("api", edit)
    diags = check(fx)
    assert fired(diags) == {("schedulable", fx.urn("api"))}
    [violation] = [d for d in diags if not d.cannot_judge]
    assert violation.level == "mandatory"
    assert violation.message.endswith(
        f"Deployment 'api' in namespace 'services': spec.template.spec.{field}: {problem}: the API server rejects "
        "such a pod, so it never runs anywhere. Fix: give the pod at least one container, each an object with a "
        "name and an image")


def test_a_gang_job_without_pod_templates_is_not_schedulable(check):
    job = Resource.of(JOBSET, "empty", {"metadata": {"name": "empty", "namespace": "training"},
                                        "spec": {"replicatedJobs": []}})
    diags = check(golden().add(job))
    assert ("schedulable", job.urn) in fired(diags)
    assert any("JobSet 'empty' in namespace 'training': spec.replicatedJobs: declares no pod template, so it runs "
               "no pod" in d.message for d in diags)


def test_an_unknown_container_entry_cannot_be_judged(check):
    fx = golden().edit("llm", lambda p: template_spec(p)["containers"].__setitem__(0, UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    assert [m for m in notes(diags, "schedulable") if "Deployment 'llm'" in m and
            "its pod spec or containers are unknown" in m]
    assert notes(diags, "gpu-toleration-needs-gpu") and notes(diags, "model-load-probes")


def test_an_unknown_pod_template_cannot_be_judged(check):
    fx = golden().edit("api", lambda p: p["spec"].update(template=UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    for policy in ("priority-class-assigned", "workload-class-declared", "schedulable", "topology-spread"):
        assert [m for m in notes(diags, policy) if "Deployment 'api'" in m], policy


def test_an_unknown_toleration_entry_is_not_a_missing_toleration(check):
    fx = golden().edit("nightly", lambda p: template_spec(p)["tolerations"].append(UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    [note] = notes(diags, "no-blanket-tolerations")
    assert note.endswith("during preview: cannot judge 1 item(s): CronJob 'nightly' in namespace 'batch': cannot "
                         "judge spec.jobTemplate.spec.template.spec.tolerations[1] during preview: the value is "
                         "unknown until the update runs")
    # A known blanket toleration beside an unknown one is still a violation.
    blanket = golden().edit("nightly", lambda p: template_spec(p).update(
        tolerations=[UNKNOWN_WIRE, {"operator": "Exists"}]))
    assert ("no-blanket-tolerations", blanket.urn("nightly")) in fired(check(blanket))


def test_an_unknown_pool_taint_entry_is_not_an_untainted_pool(check):
    fx = golden().edit("jobs", lambda p: p["taints"].__setitem__(0, UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    assert notes(diags, "pool-taints") and notes(diags, "autoscaler-hints")


def test_an_unknown_pool_class_label_leaves_the_batch_quota_share_undecided(check):
    fx = golden().edit("web", lambda p: p["labels"].update({CLASS: UNKNOWN_WIRE}))
    diags = check(fx)
    assert fired(diags) == set()
    assert [m for m in notes(diags, "namespace-quota") if "pool 'web': its nodepools.io/pool-class label is unknown" in m]
    assert notes(diags, "scale-to-zero") and notes(diags, "inference-on-demand") == []


def test_a_namespace_whose_name_is_unknown_may_hold_the_stack_quota(check):
    fx = golden().edit("ns-batch", lambda p: p["metadata"].update(name=UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    assert notes(diags, "namespace-quota") and notes(diags, "batch-limitrange")
    # Every quota lives in another namespace of the stack, so none can be in this one.
    extra = golden().add(Resource.of(NAMESPACE, "ns-extra", {"metadata": {"name": UNKNOWN_WIRE}}))
    assert ("namespace-quota", urn_for(NAMESPACE, "ns-extra")) in fired(check(extra))


def test_unknown_workload_labels_leave_gang_scheduling_undecided(check):
    fx = golden().edit("finetune", lambda p: p["metadata"].update(labels=UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    assert [m for m in notes(diags, "gang-scheduling") if "its gang labels are unknown" in m]


def test_an_unknown_cronjob_spec_is_not_an_unparsable_schedule(check):
    fx = golden().edit("nightly", lambda p: p.update(spec=UNKNOWN_WIRE))
    diags = check(fx)
    assert fired(diags) == set()
    assert notes(diags, "priority-class-assigned") and notes(diags, "schedulable")
