"""Quotas, LimitRanges and PriorityClasses over the real pack."""
from policy_builders import GPU_Q, QUOTA, Resource, fired, golden, template_spec


def test_namespace_without_quota(check):
    fx = golden().drop("quota-services")
    diags = check(fx)
    assert fired(diags) == {("namespace-quota", fx.urn("ns-services"))}
    assert diags[0].level == "mandatory"
    assert "Namespace 'ns-services': ResourceQuota: the namespace has no ResourceQuota" in diags[0].message
    assert "Fix: add a ResourceQuota to namespace services" in diags[0].message


def test_quota_found_through_the_namespace_dependency_when_its_name_is_unknown(check):
    """A quota whose metadata.namespace is the Namespace's (unknown) output belongs to it."""
    fx = golden().drop("quota-services").add(Resource.of(
        QUOTA, "quota-services-linked", {"metadata": {"namespace": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"},
                                         "spec": {"hard": {GPU_Q: "0"}}},
        property_dependencies={"metadata": (golden().urn("ns-services"),)}))
    diags = check(fx)
    assert fired(diags) == set()


def test_batch_quota_above_its_share_of_the_cpu_pools(check):
    # resident 6 x 4 + batch 4 x 8 cores = 56; 0.6 x 56 = 33.6 cores.
    fx = golden().edit("quota-batch", lambda p: p["spec"]["hard"].update({"requests.cpu": "40"}))
    diags = check(fx)
    assert fired(diags) == {("namespace-quota", fx.urn("quota-batch"))}
    assert "spec.hard['requests.cpu']: the batch namespace may claim more than batchQuotaShare 0.6" in diags[0].message
    assert "Fix: lower it to at most 33.6 cores" in diags[0].message


def test_batch_quota_share_is_configurable(check):
    fx = golden()  # batch cpu quota 20 of 56 cores (0.36)
    share = {"namespace-quota": {"batchQuotaShare": 0.3}}
    assert fired(check(fx, share)) == {("namespace-quota", fx.urn("quota-batch"))}
    assert fired(check(fx, {"namespace-quota": {"batchQuotaShare": 0.4}})) == set()


def test_quota_without_gpu(check):
    fx = golden().edit("quota-services", lambda p: p["spec"]["hard"].pop(GPU_Q))
    diags = check(fx)
    assert fired(diags) == {("gpu-quota", fx.urn("quota-services"))}
    assert "ResourceQuota 'quota-services' in namespace 'services': spec.hard: no requests.nvidia.com/gpu" \
        in diags[0].message


def test_gpu_quota_under_limits_is_never_enforced(check):
    fx = golden().edit("quota-inference", lambda p: p["spec"].update(hard={"limits.nvidia.com/gpu": "2"}))
    diags = check(fx)
    assert fired(diags) == {("gpu-quota", fx.urn("quota-inference"))}
    # One finding per resource and policy (docs/design.md section 8): the useless limits. entry and
    # the missing requests. entry, each with its path, in one message.
    [diag] = diags
    assert "ResourceQuota 'quota-inference' in namespace 'inference': 2 problems: spec.hard['limits.nvidia.com/gpu']: " \
        in diag.message and "; spec.hard: no requests.nvidia.com/gpu" in diag.message
    assert "use requests.nvidia.com/gpu instead" in diag.message


def test_best_effort_scoped_quota_needs_no_gpu_entry(check):
    fx = golden().add(Resource.of(QUOTA, "quota-besteffort", {
        "metadata": {"namespace": "batch"}, "spec": {"hard": {"pods": "10"}, "scopes": ["BestEffort"]}}))
    assert fired(check(fx)) == set()


def test_batch_namespace_without_limitrange(check):
    fx = golden().drop("limits-batch")
    diags = check(fx)
    assert fired(diags) == {("batch-limitrange", fx.urn("ns-batch"))}
    assert "a batch namespace has no LimitRange" in diags[0].message


def test_training_namespace_without_limitrange(check):
    """(The golden stack's resident and inference namespaces have none, and pass.)"""
    assert fired(check(golden().drop("limits-training"))) == {("batch-limitrange", golden().urn("ns-training"))}


def test_workload_without_priority_class(check):
    fx = golden().edit("api", lambda p: template_spec(p).pop("priorityClassName"))
    diags = check(fx)
    assert fired(diags) == {("priority-class-assigned", fx.urn("api"))}
    assert "spec.template.spec.priorityClassName: no priorityClassName" in diags[0].message
    assert "nodepools-batch, nodepools-gpu-inference, nodepools-gpu-training, nodepools-resident" in diags[0].message


def test_priority_class_the_stack_does_not_define(check):
    fx = golden().edit("nightly", lambda p: template_spec(p).update(priorityClassName="gold"))
    diags = check(fx)
    assert fired(diags) == {("priority-class-assigned", fx.urn("nightly"))}
    assert "spec.jobTemplate.spec.template.spec.priorityClassName: names PriorityClass 'gold'" in diags[0].message


def test_system_priority_classes_are_accepted(check):
    fx = golden().edit("api", lambda p: template_spec(p).update(priorityClassName="system-cluster-critical"))
    assert fired(check(fx)) == set()


def test_app_stack_without_priority_classes_may_name_the_contract_classes(check):
    fx = golden()
    app = fx.drop(*(r.name for r in fx.items if r.name.startswith("pc-")))
    assert fired(check(app)) == set()
    renamed = app.edit("api", lambda p: template_spec(p).update(priorityClassName="gold"))
    assert fired(check(renamed)) == {("priority-class-assigned", fx.urn("api"))}
