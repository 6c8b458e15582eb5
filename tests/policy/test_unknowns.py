"""Values unknown at preview never produce a violation: the pack says it cannot judge them (advisory)."""
import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from policy_builders import CLASS, GPU_Q, UNKNOWN_WIRE, fired, golden, template_spec, toleration

from nodepools.offline.engine import run_program


def cannot_judge(diags, policy):
    return [d for d in diags if d.policy == policy and d.cannot_judge]


def test_unknowns_everywhere_in_the_compliant_stack_yield_no_violation(check):
    fx = (golden()
          .edit("infer", lambda p: p.update(taints=UNKNOWN_WIRE))
          .edit("web", lambda p: p.update(capacityType=UNKNOWN_WIRE))
          .edit("jobs", lambda p: p["scalingConfig"].update(minSize=UNKNOWN_WIRE))
          .edit("prod", lambda p: p.update(version=UNKNOWN_WIRE))
          .edit("quota-services", lambda p: p["spec"].update(hard=UNKNOWN_WIRE))
          .edit("api", lambda p: template_spec(p).update(tolerations=UNKNOWN_WIRE))
          .edit("llm", lambda p: template_spec(p)["containers"][0].update(resources=UNKNOWN_WIRE))
          .edit("nightly", lambda p: p["spec"].update(schedule=UNKNOWN_WIRE))
          .edit("finetune", lambda p: p["spec"].update(parallelism=UNKNOWN_WIRE)))
    diags = check(fx)
    assert fired(diags) == set()
    assert diags and all(d.level == "advisory" and d.cannot_judge for d in diags)
    by_policy = {d.policy for d in diags}
    assert {"gpu-pool-taint", "inference-on-demand", "scale-to-zero", "cluster-version", "gpu-quota",
            "no-blanket-tolerations", "schedulable", "shared-pool-off-peak"} <= by_policy
    [taint] = cannot_judge(diags, "gpu-pool-taint")
    assert taint.urn == fx.urn("infer")
    assert "NodeGroup 'infer': cannot judge taints during preview" in taint.message


def test_unknown_namespace_turns_a_violation_into_cannot_judge(check):
    """The namespace might be an exempt one, so a blanket toleration there cannot be judged yet."""
    fx = golden().edit("api", lambda p: (p["metadata"].update(namespace=UNKNOWN_WIRE),
                                         template_spec(p).update(tolerations=[{"operator": "Exists"}])))
    diags = check(fx)
    assert ("no-blanket-tolerations", fx.urn("api")) not in fired(diags)
    [note] = cannot_judge(diags, "no-blanket-tolerations")
    assert "the namespace is unknown, so its exemption cannot be decided" in note.message


def test_unknown_tag_key_is_not_a_missing_tag_when_its_value_rules_it_out(check):
    fx = golden().edit("jobs-tag-1", lambda p: p["tag"].update(key=UNKNOWN_WIRE))
    # The label tag's key is unknown but its value "batch" could be the missing label tag.
    assert fired(check(fx)) == set()
    assert cannot_judge(check(fx), "autoscaler-hints")
    other = golden().edit("jobs-tag-1", lambda p: p["tag"].update(key=UNKNOWN_WIRE, value="owned"))
    assert fired(check(other)) == {("autoscaler-hints", other.urn("jobs"))}


def test_quota_namespace_unknown_makes_namespace_quota_undecided(check):
    fx = golden().edit("quota-services", lambda p: p["metadata"].update(namespace=UNKNOWN_WIRE))
    diags = check(fx)
    assert ("namespace-quota", fx.urn("ns-services")) not in fired(diags)
    assert cannot_judge(diags, "namespace-quota")


def _program(spot, taints, tolerations):
    def program():
        role = aws.iam.Role("node", assume_role_policy="{}")
        cluster = aws.eks.Cluster("prod", name="prod", role_arn=role.arn, version="1.35",
                                  vpc_config={"subnet_ids": ["subnet-0123456789abcdef0"]})
        # capacity type and taints derived from an output: unknown during preview.
        aws.eks.NodeGroup("infer", cluster_name=cluster.name, node_role_arn=role.arn,
                          subnet_ids=["subnet-0123456789abcdef0"], instance_types=["g6.xlarge"],
                          capacity_type=role.arn.apply(lambda _: spot), labels={CLASS: "gpu-inference"},
                          scaling_config={"min_size": 1, "max_size": 2, "desired_size": 1},
                          taints=role.arn.apply(lambda _: taints))
        k8s.core.v1.Namespace("ns", metadata={"name": "inference",
                                              "labels": {"nodepools.io/workload-class": "gpu-inference"}})
        k8s.core.v1.ResourceQuota("quota", metadata={"namespace": "inference"}, spec={"hard": {GPU_Q: "1"}})
        k8s.apps.v1.Deployment("web", metadata={"namespace": "inference"}, spec={
            "selector": {"match_labels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "containers": [{"name": "c", "image": "nginx"}],
                "tolerations": role.arn.apply(lambda _: tolerations)}}})
        pulumi.export("ok", True)
    return program


def test_mock_engine_preview_unknowns_then_update_verdicts(check):
    class_taint = [{"key": CLASS, "value": "gpu-inference", "effect": "NO_SCHEDULE"}]
    program = _program("SPOT", class_taint, [{"operator": "Exists"}])
    preview = run_program(program, preview=True)
    diags = check(preview)
    judged_on_unknowns = {"inference-on-demand", "gpu-pool-taint", "no-blanket-tolerations", "pool-taints"}
    # (The program breaks other rules on known values: no device plugin, probes, limits or PriorityClass.)
    assert not {p for p, _ in fired(diags)} & judged_on_unknowns
    assert {d.policy for d in diags if d.cannot_judge} >= judged_on_unknowns
    update = run_program(program, preview=False)
    pool, web = update.named("infer").urn, update.named("web").urn
    found = fired(check(update))
    assert {("inference-on-demand", pool), ("gpu-pool-taint", pool), ("no-blanket-tolerations", web)} <= found


def test_mock_engine_update_of_a_compliant_pool(check):
    program = _program("ON_DEMAND", [{"key": CLASS, "value": "gpu-inference", "effect": "NO_SCHEDULE"},
                                     {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}],
                       [toleration(CLASS, "gpu-inference")])
    run = run_program(program, preview=False)
    found = {p for p, _ in fired(check(run))}
    assert not found & {"inference-on-demand", "gpu-pool-taint", "no-blanket-tolerations", "pool-taints"}
