"""Karpenter NodePools over the real pack (gRPC): they are pools like node groups (ours or
hand-written), and the two Karpenter rules, pool-spend-cap and training-disruption."""
from karpenter_builders import CAPACITY, docs_default, k_taint, karpenter_golden, node_pool, req
from policy_builders import CLASS, GPU, fired, template_spec, toleration

NO_DISRUPT = "karpenter.sh/do-not-disrupt"


def test_the_compliant_karpenter_stack_fires_nothing(check):
    assert check(karpenter_golden()) == []


# ---- pool-spend-cap ---------------------------------------------------------------------

def test_a_node_pool_without_limits(check):
    fx = karpenter_golden().edit("jobs", lambda p: p["spec"].pop("limits"))
    diags = check(fx)
    assert fired(diags) == {("pool-spend-cap", fx.urn("jobs"))}
    [d] = diags
    assert (d.level, d.severity) == ("advisory", "high")
    assert ("NodePool 'jobs': spec.limits: the NodePool has no limits, so Karpenter can launch nodes (GPU nodes "
            "included) without bound") in d.message


def test_a_gpu_node_pool_whose_limits_omit_gpus(check):
    fx = karpenter_golden().edit("train", lambda p: p["spec"]["limits"].pop(GPU))
    diags = check(fx)
    assert fired(diags) == {("pool-spend-cap", fx.urn("train"))}
    assert "a GPU-capable NodePool whose limits omit nvidia.com/gpu can buy GPUs without bound" in diags[0].message


def test_gpu_capability_from_a_gpu_count_requirement_alone(check):
    pool = node_pool("gpus", [req("karpenter.k8s.aws/instance-gpu-count", "Gt", "0")],
                     taints=[k_taint(CLASS, "gpu-training"), k_taint(GPU, "present")],
                     labels={CLASS: "gpu-training"}, limits={"cpu": "100"})
    fx = karpenter_golden().add(pool)
    assert ("pool-spend-cap", fx.urn("gpus")) in fired(check(fx))


def test_the_docs_default_node_pool_caps_cpu_and_is_not_gpu_capable_but_is_a_second_default_pool(check):
    fx = karpenter_golden().add(docs_default())
    diags = check(fx)
    # Two untainted pools in one cluster: the one labelled resident ('web') stays the default
    # and the docs' unlabelled pool is reported (docs/design.md section 6, "The default pool").
    assert fired(diags) == {("pool-taints", fx.urn("default"))}
    assert "pool 'web' is already this cluster's one untainted resident/default pool" in diags[0].message


# ---- training-disruption ------------------------------------------------------------------

def test_consolidating_training_pool_evicts_an_unprotected_job(check):
    fx = karpenter_golden().edit("train", lambda p: p["spec"]["disruption"].update(
        consolidationPolicy="WhenEmptyOrUnderutilized"))
    diags = check(fx)
    assert fired(diags) == {("training-disruption", fx.urn("finetune"))}
    [d] = diags
    assert (d.level, d.severity) == ("advisory", "medium")
    assert ("Job 'finetune' in namespace 'training': spec.template.metadata.annotations: it can land on NodePool(s) "
            "'train', whose consolidationPolicy WhenEmptyOrUnderutilized evicts running pods") in d.message


def test_the_crd_default_policy_consolidates_too(check):
    fx = karpenter_golden().edit("jobs", lambda p: p["spec"].pop("disruption"))
    assert fired(check(fx)) == {("training-disruption", fx.urn("nightly"))}


def test_do_not_disrupt_protects_the_job(check):
    fx = karpenter_golden().edit("train", lambda p: p["spec"]["disruption"].update(
        consolidationPolicy="WhenEmptyOrUnderutilized"))
    fx = fx.edit("finetune", lambda p: p["spec"]["template"]["metadata"]["annotations"].update({NO_DISRUPT: "true"}))
    assert fired(check(fx)) == set()


def test_consolidating_inference_pools_are_fine(check):
    # golden's inference pool is WhenEmptyOrUnderutilized: serving replicas move, jobs are not killed.
    assert check(karpenter_golden()) == []


# ---- the existing pool rules apply to NodePools ----------------------------------------------

def test_untainted_karpenter_batch_pool(check):
    fx = karpenter_golden().edit("jobs", lambda p: p["spec"]["template"]["spec"].pop("taints"))
    diags = check(fx)
    assert fired(diags) == {("pool-taints", fx.urn("jobs"))}
    assert "NodePool 'jobs': spec.template.spec.taints: a batch pool has no NoSchedule/NoExecute taint" in \
        diags[0].message


def test_startup_taints_do_not_keep_pods_off(check):
    def startup_only(p):
        p["spec"]["template"]["spec"]["startupTaints"] = p["spec"]["template"]["spec"].pop("taints")
    fx = karpenter_golden().edit("jobs", startup_only)
    assert ("pool-taints", fx.urn("jobs")) in fired(check(fx))


def test_gpu_node_pool_without_gpu_taint(check):
    fx = karpenter_golden().edit("infer", lambda p: p["spec"]["template"]["spec"].update(
        taints=[k_taint(CLASS, "gpu-inference")]))
    assert fired(check(fx)) == {("gpu-pool-taint", fx.urn("infer"))}


def test_inference_node_pool_admitting_spot(check):
    fx = karpenter_golden().edit("infer", lambda p: p["spec"]["template"]["spec"]["requirements"].__setitem__(
        0, req(CAPACITY, "In", "spot", "on-demand")))
    diags = check(fx)
    assert fired(diags) == {("inference-on-demand", fx.urn("infer")), ("resident-off-spot", fx.urn("llm")),
                            ("spot-checkpointing", fx.urn("llm"))}
    pool = next(d for d in diags if d.policy == "inference-on-demand")
    assert "spec.template.spec.requirements: a gpu-inference pool is on spot/preemptible capacity" in pool.message


def test_no_capacity_type_requirement_means_on_demand(check):
    fx = karpenter_golden().edit("infer", lambda p: p["spec"]["template"]["spec"]["requirements"].pop(0))
    assert check(fx) == []


def test_not_in_on_demand_admits_spot(check):
    fx = karpenter_golden().edit("infer", lambda p: p["spec"]["template"]["spec"]["requirements"].__setitem__(
        0, req(CAPACITY, "NotIn", "on-demand")))
    assert ("inference-on-demand", fx.urn("infer")) in fired(check(fx))


def test_scale_to_zero_and_autoscaler_hints_do_not_apply(check):
    # Karpenter has no minimum and reads no ASG tags: nothing fires for its pools without either.
    assert not {p for p, _ in fired(check(karpenter_golden()))} & {"scale-to-zero", "autoscaler-hints"}


def test_schedulable_is_judged_against_the_largest_admitted_instance(check):
    # infer admits g6.xlarge and g6.2xlarge (8 vCPU at most): 12 cpu fits neither.
    fx = karpenter_golden().edit("llm", lambda p: template_spec(p)["containers"][0]["resources"].update(
        requests={"cpu": "12", "memory": "8Gi", GPU: 1.0}, limits={"cpu": "12", "memory": "8Gi", GPU: 1.0}))
    diags = check(fx)
    assert ("schedulable", fx.urn("llm")) in fired(diags)


def test_multi_value_requirement_matches_a_selector_on_one_of_its_values(check):
    def select(value):
        return lambda p: template_spec(p).update(nodeSelector={"karpenter.k8s.aws/instance-category": value})
    fits = karpenter_golden().edit("nightly", select("m"))
    assert check(fits) == []
    misses = karpenter_golden().edit("nightly", select("r"))
    assert fired(check(misses)) == {("schedulable", misses.urn("nightly"))}


def test_karpenter_nodepool_label_selects_a_docs_pool(check):
    fx = karpenter_golden().add(docs_default()).edit("nightly", lambda p: template_spec(p).update(
        nodeSelector={"karpenter.sh/nodepool": "default"}, tolerations=[toleration(CLASS, "batch")]))
    # It lands on the docs pool (no schedulable finding); only the two-defaults finding remains.
    assert fired(check(fx)) == {("pool-taints", fx.urn("default"))}


def test_gpu_node_pools_without_device_plugin(check):
    fx = karpenter_golden().drop("nvidia-device-plugin")
    assert fired(check(fx)) == {("gpu-device-plugin", fx.urn("infer")), ("gpu-device-plugin", fx.urn("train"))}


def test_untainted_gpu_node_pool_takes_cpu_work(check):
    fx = karpenter_golden().edit("infer", lambda p: p["spec"]["template"]["spec"].pop("taints"))
    assert fired(check(fx)) == {
        ("gpu-pool-taint", fx.urn("infer")), ("pool-taints", fx.urn("infer")),
        ("gpu-nodes-gpu-only", fx.urn("api")), ("gpu-nodes-gpu-only", fx.urn("nightly"))}


def test_gpu_job_admitting_node_pools_of_two_models(check):
    from karpenter_builders import ours
    h100 = ours("train-h100", "gpu-training", req(CAPACITY, "In", "spot"),
                req("karpenter.k8s.aws/instance-gpu-name", "In", "h100"), gpu_model="nvidia-h100",
                limits={"cpu": "192", "memory": "2048Gi", GPU: "8"})
    fx = karpenter_golden().add(h100).edit("finetune", lambda p: template_spec(p).pop("nodeSelector"))
    diags = check(fx)
    assert fired(diags) == {("gpu-model-selected", fx.urn("finetune"))}
    assert "admits GPU pools of 2 accelerator models (nvidia-a100, nvidia-h100)" in diags[0].message
