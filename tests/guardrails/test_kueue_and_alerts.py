"""Kueue (flavors, queues, chart config) and the throttling alerts, under the mock engine."""
import yaml

from nodepools.guardrails import GuardrailsSpec
from nodepools import vocabulary as v

CUSTOM = (v.TYPE_KUEUE_RESOURCE_FLAVOR, v.TYPE_KUEUE_CLUSTER_QUEUE, v.TYPE_KUEUE_LOCAL_QUEUE, v.TYPE_PROMETHEUS_RULE)


def test_kueue_flavors_mirror_pools_and_queues_hold_their_capacity(aws_pools, to_object, guardrails_run, objects, release):
    run = guardrails_run(aws_pools)
    kueue = release(run, "kueue")
    assert (kueue["chart"], kueue["version"], kueue["namespace"], kueue["createNamespace"]) == (
        "oci://registry.k8s.io/kueue/charts/kueue", "0.19.2", "kueue-system", True)
    assert "repositoryOpts" not in kueue
    config = yaml.safe_load(kueue["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert (config["apiVersion"], config["kind"]) == ("config.kueue.x-k8s.io/v1beta2", "Configuration")
    assert config["waitForPodsReady"] == {"timeout": "20m", "blockAdmission": False, "requeuingStrategy": {
        "timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}}
    assert kueue["values"]["controllerManager"] == {"nodeSelector": {v.LABEL_POOL: "web"}, "tolerations": []}

    # Batch and training pools; inference is served, not queued. The training pool (p4d, which EKS labels
    # with its network position) points at the Topology and is named after its immutable fields.
    flavors = {name.rsplit("-", 1)[0] if name.startswith("train-") else name: flavor
               for name, flavor in objects(run, v.TYPE_KUEUE_RESOURCE_FLAVOR, to_object).items()}
    by_name = {p.name: p for p in aws_pools}
    assert sorted(flavors) == ["jobs", "train"]
    assert flavors["train"]["metadata"]["name"] == "train-bc80e1cc"
    for name, flavor in flavors.items():
        labels = flavor["spec"]["nodeLabels"]
        assert labels.items() <= by_name[name].node_labels.items() and labels[v.LABEL_POOL] == name
        assert flavor["spec"]["tolerations"] == [{"operator": "Equal", **t.as_k8s()} for t in by_name[name].node_taints]
    assert flavors["train"]["spec"]["nodeLabels"] == {
        v.LABEL_POOL_CLASS: "gpu-training", v.LABEL_POOL: "train", v.LABEL_CAPACITY: "spot",
        v.LABEL_ACCELERATOR: "nvidia-a100", v.LABEL_GPU_PRESENT: "true"}

    queues = objects(run, v.TYPE_KUEUE_CLUSTER_QUEUE, to_object)
    training = queues["nodepools-gpu-training"]["spec"]
    assert training["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "training"}}
    [group] = training["resourceGroups"]
    assert group == {"coveredResources": ["cpu", "memory", "nvidia.com/gpu"], "flavors": [{"name": "train-bc80e1cc", "resources": [
        {"name": "cpu", "nominalQuota": str(4 * 96)}, {"name": "memory", "nominalQuota": f"{4 * 1152}Gi"},
        {"name": "nvidia.com/gpu", "nominalQuota": str(4 * 8)}]}]}
    [batch_group] = queues["nodepools-batch"]["spec"]["resourceGroups"]
    assert batch_group["coveredResources"] == ["cpu", "memory"]
    # The CRD's CEL rule (not evaluated offline): each flavor lists every covered resource, in order.
    for q in queues.values():
        for g in q["spec"]["resourceGroups"]:
            assert all([r["name"] for r in f["resources"]] == g["coveredResources"] for f in g["flavors"])
    assert {n: o["spec"] for n, o in objects(run, v.TYPE_KUEUE_LOCAL_QUEUE, to_object).items()} == {
        "training/gpu-training": {"clusterQueue": "nodepools-gpu-training"},
        "batch/batch": {"clusterQueue": "nodepools-batch"}}

def test_kueue_objects_wait_for_the_kueue_release(aws_pools, guardrails_run):
    run = guardrails_run(aws_pools)
    (kueue,) = [r for r in run.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "kueue"]
    kueue_objects = [r for t in CUSTOM[:3] for r in run.of_type(t)]
    assert len(kueue_objects) == 2 + 2 + 2
    assert all(kueue.urn in r.dependencies for r in kueue_objects if r.type != v.TYPE_KUEUE_LOCAL_QUEUE)
    queue_urns = {r.urn for r in run.of_type(v.TYPE_KUEUE_CLUSTER_QUEUE)}
    assert all(queue_urns & set(r.dependencies) for r in run.of_type(v.TYPE_KUEUE_LOCAL_QUEUE))

def test_throttling_alerts_watch_cfs_throttling_and_steal(aws_pools, to_object, guardrails_run, objects):
    spec = GuardrailsSpec(alerts={"backend": "prometheus-operator", "namespace": "monitoring",
                                  "rule_labels": {"release": "kube-prometheus-stack"}})
    (rule,) = objects(guardrails_run(aws_pools, spec=spec), v.TYPE_PROMETHEUS_RULE, to_object).values()
    assert rule["metadata"] == {"name": "nodepools-cpu-contention", "namespace": "monitoring",
                                "labels": {"release": "kube-prometheus-stack"}}
    throttled, steal = rule["spec"]["groups"][0]["rules"]
    assert "container_cpu_cfs_throttled_periods_total" in throttled["expr"]
    assert "/ sum by (namespace, pod, container) (rate(container_cpu_cfs_periods_total" in throttled["expr"]
    assert throttled["expr"].endswith("> 0.25") and throttled["for"] == "15m"
    assert 'node_cpu_seconds_total{mode="steal"}' in steal["expr"] and steal["expr"].endswith("> 0.1")

def test_alerts_off_and_kueue_off(aws_pools, guardrails_run):
    run = guardrails_run(aws_pools, spec=GuardrailsSpec(alerts={"enabled": False}, kueue="off"))
    assert [r for t in CUSTOM for r in run.of_type(t)] == []
    assert sorted(r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)) == [
        "cluster-autoscaler", "nvidia-device-plugin"]
