"""Per-workload policies (tolerations, QoS, gang scheduling, probes, spreading) over the real pack."""
import pytest
from policy_builders import (CLASS, GPU, JOB, Resource, container, fired, golden, pod_template, template_spec,
                             toleration, workload)


def test_invalid_workload_class(check):
    fx = golden().edit("api", lambda p: p["spec"]["template"]["metadata"]["labels"].update(
        {"nodepools.io/workload-class": "web-tier"}))
    diags = check(fx)
    assert fired(diags) == {("workload-class-declared", fx.urn("api"))}
    assert "spec.template.metadata.labels: nodepools.io/workload-class is 'web-tier', not one of resident" \
        in diags[0].message


def test_class_resolves_from_the_namespace(check):
    fx = golden().edit("api", lambda p: p["spec"]["template"]["metadata"]["labels"].pop("nodepools.io/workload-class"))
    assert fired(check(fx)) == set()


def test_no_class_anywhere(check):
    fx = golden().edit("api", lambda p: (p["spec"]["template"]["metadata"]["labels"].pop("nodepools.io/workload-class"),
                                         p["metadata"].update(namespace="shop")))
    diags = check(fx)
    assert fired(diags) == {("workload-class-declared", fx.urn("api"))}
    assert "no nodepools.io/workload-class label on the pod template, the workload or its namespace" in diags[0].message


def test_blanket_toleration_is_caught_by_every_rule_it_breaks(check):
    fx = golden().edit("api", lambda p: template_spec(p).update(tolerations=[{"operator": "Exists"}]))
    diags = check(fx)
    assert fired(diags) == {(name, fx.urn("api")) for name in (
        "no-blanket-tolerations", "toleration-approval", "gpu-toleration-needs-gpu", "gpu-nodes-gpu-only",
        "resident-off-spot", "spot-checkpointing")}
    blanket = next(d for d in diags if d.policy == "no-blanket-tolerations")
    assert blanket.level == "mandatory"
    assert "Deployment 'api' in namespace 'services': spec.template.spec.tolerations[0]: an empty key with operator " \
           "Exists tolerates every taint" in blanket.message


def test_exists_on_the_pool_class_key(check):
    fx = golden().edit("nightly", lambda p: template_spec(p).update(tolerations=[toleration(CLASS)]))
    diags = check(fx)
    assert fired(diags) == {(n, fx.urn("nightly")) for n in (
        "no-blanket-tolerations", "toleration-approval", "gpu-toleration-needs-gpu")}
    assert any("Exists on nodepools.io/pool-class tolerates every pool class's taint" in d.message for d in diags)


def test_tolerating_another_class_pool_needs_approval(check):
    fx = golden().edit("api", lambda p: template_spec(p).update(tolerations=[toleration(CLASS, "batch")]))
    diags = check(fx)
    assert fired(diags) == {("toleration-approval", fx.urn("api"))}
    assert "tolerates nodepools.io/pool-class=batch:NoSchedule, which is not a taint of its own class (resident) and " \
           "namespace 'services' is not approved for it" in diags[0].message
    # A configured approval lists every namespace allowed, the taint's own class's included.
    assert fired(check(fx, {"toleration-approval": {"tolerationApprovals": {
        "nodepools.io/pool-class=batch": ["services"]}}})) == {("toleration-approval", fx.urn("nightly"))}
    assert fired(check(fx, {"toleration-approval": {"tolerationApprovals": {
        "nodepools.io/pool-class=batch": ["services", "batch"]}}})) == set()
    # A bare key approves for every value of it: here no class's own namespace is listed.
    assert fired(check(fx, {"toleration-approval": {"tolerationApprovals": {
        "nodepools.io/pool-class": ["analytics"]}}})) == {
            ("toleration-approval", fx.urn(n)) for n in ("api", "llm", "finetune", "nightly")}


def test_gpu_toleration_without_gpu_request(check):
    fx = golden().edit("nightly", lambda p: template_spec(p)["tolerations"].append(toleration(GPU)))
    diags = check(fx)
    assert fired(diags) == {("gpu-toleration-needs-gpu", fx.urn("nightly")), ("toleration-approval", fx.urn("nightly"))}
    gpu = next(d for d in diags if d.policy == "gpu-toleration-needs-gpu")
    assert gpu.level == "mandatory"
    assert ("tolerates nvidia.com/gpu=present:NoSchedule (spec.jobTemplate.spec.template.spec.tolerations[1]) but "
            "requests no nvidia.com/gpu") in gpu.message


def test_selecting_gpu_nodes_without_gpu_request(check):
    fx = golden().edit("api", lambda p: template_spec(p).update(nodeSelector={"nvidia.com/gpu.present": "true"}))
    diags = check(fx)
    assert fired(diags) == {("gpu-toleration-needs-gpu", fx.urn("api")), ("schedulable", fx.urn("api"))}
    assert any("selects GPU nodes but requests no nvidia.com/gpu" in d.message for d in diags)


def test_node_agent_tolerations_are_approved_by_node_agent_namespaces(check):
    """docs/design.md section 6: the GPU and capacity rules skip DaemonSets; the toleration rules judge
    them unless their namespace is in nodeAgentNamespaces."""
    agent = Resource.of("kubernetes:apps/v1:DaemonSet", "dcgm", {"metadata": {"namespace": "services"}, "spec": {
        "template": pod_template("resident", {"priorityClassName": "nodepools-resident",
                                             "tolerations": [toleration(GPU), toleration(CLASS, "gpu-inference")],
                                             "containers": [container("100m", "128Mi")]})}})
    fx = golden().add(agent)
    diags = check(fx)
    assert fired(diags) == {("toleration-approval", fx.urn("dcgm"))}
    # One finding lists both unapproved taints (docs/design.md section 8).
    assert [d.message.split("\n")[1] for d in diags] == [
        "DaemonSet 'dcgm' in namespace 'services': spec.template.spec.tolerations: tolerates 2 taints that are not "
        "of its own class (resident) and that namespace 'services' is not approved for "
        "(nodepools.io/pool-class=gpu-inference:NoSchedule at spec.template.spec.tolerations[1], "
        "nvidia.com/gpu=present:NoSchedule at spec.template.spec.tolerations[0]). Fix: remove those tolerations, or add 'services' to "
        "tolerationApprovals['nodepools.io/pool-class=gpu-inference'], ['nvidia.com/gpu=present'] "
        "(or to nodeAgentNamespaces) in the pack config"]
    assert check(fx, {"toleration-approval": {"nodeAgentNamespaces": ["services"]}}) == []


def test_blanket_toleration_of_a_node_agent(check):
    agent = Resource.of("kubernetes:apps/v1:DaemonSet", "logs", {"metadata": {"namespace": "logging"}, "spec": {
        "template": pod_template("resident", {"priorityClassName": "nodepools-resident",
                                             "tolerations": [{"operator": "Exists"}],
                                             "containers": [container("100m", "128Mi")]})}})
    fx = golden().add(agent)
    assert [d.message.split("\n")[1] for d in check(fx) if d.policy == "no-blanket-tolerations"] == [
        "DaemonSet 'logs' in namespace 'logging': spec.template.spec.tolerations[0]: an empty key with operator "
        "Exists tolerates every taint, so the pod can land on any pool, GPU and spot pools included. Fix: list the "
        "taints of the pools it must reach, each with key, operator Equal and value (or, for a node agent, list its "
        "namespace in nodeAgentNamespaces in the pack config)"]
    from nodepools.policies.config import spread
    assert [d.policy for d in check(fx, spread({"nodeAgentNamespaces": ["logging"]}))] == []


@pytest.mark.parametrize("resources, gap", [
    ({"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": "1", "memory": "512Mi"}},
     "requests.cpu 500m != limits.cpu 1"),
    ({"requests": {"cpu": "500m", "memory": "512Mi"}}, "no limits.cpu; no limits.memory"),
])
def test_resident_container_not_guaranteed(check, resources, gap):
    fx = golden().edit("api", lambda p: template_spec(p)["containers"][0].update(resources=resources))
    diags = check(fx)
    assert fired(diags) == {("resident-guaranteed-qos", fx.urn("api"))}
    assert f"spec.template.spec.containers[0].resources: not Guaranteed QoS ({gap})" in diags[0].message


def test_init_container_counts_for_qos_and_equal_quantities_in_other_units_pass(check):
    fx = golden().edit("llm", lambda p: template_spec(p).update(initContainers=[
        {"name": "fetch", "resources": {"limits": {"cpu": "1000m", "memory": "1Gi"},
                                        "requests": {"cpu": "1", "memory": "1024Mi"}}}]))
    assert fired(check(fx)) == set()
    broken = fx.edit("llm", lambda p: template_spec(p)["initContainers"][0].update(resources={}))
    diags = check(broken)
    assert fired(diags) == {("resident-guaranteed-qos", fx.urn("llm"))}
    assert "spec.template.spec.initContainers[0].resources" in diags[0].message


def test_multi_pod_training_job_without_gang(check):
    fx = golden().edit("finetune", lambda p: p["metadata"].update(labels={}))
    diags = check(fx)
    assert fired(diags) == {("gang-scheduling", fx.urn("finetune"))}
    assert "2 pods requesting GPUs and no gang label or scheduling group, so they start one by one" in diags[0].message
    assert "Fix: add label kueue.x-k8s.io/queue-name: <LocalQueue>" in diags[0].message


def test_single_pod_or_coscheduled_training_needs_no_queue(check):
    solo = golden().edit("finetune", lambda p: (p["metadata"].update(labels={}), p["spec"].update(parallelism=1.0)))
    assert fired(check(solo)) == set()
    grouped = golden().edit("finetune", lambda p: (p["metadata"].update(labels={}), p["spec"]["template"]["metadata"][
        "labels"].update({"scheduling.x-k8s.io/pod-group": "ft"})))
    assert fired(check(grouped)) == set()


def test_pytorchjob_requesting_gpus_is_a_gang_even_without_a_class(check):
    replica = {"template": pod_template("gpu-training", {"priorityClassName": "nodepools-gpu-training",
                                                         "nodeSelector": {"nodepools.io/pool": "train"},
                                                         "tolerations": [toleration(CLASS, "gpu-training")],
                                                         "containers": [container("8", "64Gi", 8)]},
                                        annotations={"nodepools.io/checkpoint-interval": "10m"})}
    job = workload("kubernetes:kubeflow.org/v1:PyTorchJob", "ddp", "training", {"pytorchReplicaSpecs": {
        "Master": {"replicas": 1.0, **replica}, "Worker": {"replicas": 3.0, **replica}}})
    fx = golden().add(job)
    assert fired(check(fx)) == {("gang-scheduling", fx.urn("ddp"))}


def test_inference_without_readiness_probe(check):
    fx = golden().edit("llm", lambda p: template_spec(p)["containers"][0].pop("readinessProbe"))
    diags = check(fx)
    assert fired(diags) == {("model-load-probes", fx.urn("llm"))}
    assert "spec.template.spec.containers[0].readinessProbe: no readinessProbe" in diags[0].message


def test_startup_budget_shorter_than_model_load(check):
    fx = golden().edit("llm", lambda p: template_spec(p)["containers"][0]["startupProbe"].update(failureThreshold=30.0))
    diags = check(fx)
    assert fired(diags) == {("model-load-probes", fx.urn("llm"))}
    assert "startupProbe: allows 300s before the kubelet restarts the container, shorter than the model load " \
           "time 600s" in diags[0].message
    assert "failureThreshold >= 60 at periodSeconds 10" in diags[0].message


def test_liveness_budget_counts_without_startup_probe_and_default_load_is_configurable(check):
    fx = golden().edit("llm", lambda p: (template_spec(p)["containers"][0].pop("startupProbe"),
                                         p["spec"]["template"]["metadata"].pop("annotations")))
    # livenessProbe with Kubernetes defaults: 0 + 10 x 3 = 30s, under the default 300s load time.
    assert fired(check(fx)) == {("model-load-probes", fx.urn("llm"))}
    assert fired(check(fx, {"model-load-probes": {"defaultModelLoadSeconds": 30}})) == set()


def test_resident_replicas_without_spread(check):
    fx = golden().edit("api", lambda p: template_spec(p).pop("topologySpreadConstraints"))
    diags = check(fx)
    assert fired(diags) == {("topology-spread", fx.urn("api"))}
    assert "3 replicas with no spread can all land on one node or zone" in diags[0].message
    single = fx.edit("api", lambda p: p["spec"].update(replicas=1.0))
    assert fired(check(single)) == set()
    anti = fx.edit("api", lambda p: template_spec(p).update(affinity={"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname",
                                                             "labelSelector": {"matchLabels": {"app": "x"}}}]}}))
    assert fired(check(anti)) == set()


def test_job_kind_for_gang_uses_parallelism(check):
    job = workload(JOB, "solo", "training", {"template": pod_template("gpu-training", {
        "priorityClassName": "nodepools-gpu-training", "nodeSelector": {"nodepools.io/pool": "train"},
        "tolerations": [toleration(CLASS, "gpu-training")], "containers": [container("8", "64Gi", 8)]},
        annotations={"nodepools.io/checkpoint-interval": "30m"})})
    assert fired(check(golden().add(job))) == set()
