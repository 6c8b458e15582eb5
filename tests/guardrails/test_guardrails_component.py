"""The Guardrails component under the mock engine: the exact objects the engine receives."""
import pulumi
import pulumi_kubernetes as k8s
import pytest
from pydantic import ValidationError

from nodepools.components.guardrails import Guardrails
from nodepools.guardrails import GuardrailsSpec
from nodepools.offline.engine import run_program_capture
from nodepools.spec import describe
from nodepools.spec.cluster import ClusterPools
from nodepools import vocabulary as v
from nodepools.vocabulary import Cloud

BUILTIN = (v.TYPE_PRIORITY_CLASS, v.TYPE_NAMESPACE, v.TYPE_RESOURCE_QUOTA, v.TYPE_LIMIT_RANGE)
CUSTOM = (v.TYPE_KUEUE_RESOURCE_FLAVOR, v.TYPE_KUEUE_CLUSTER_QUEUE, v.TYPE_KUEUE_LOCAL_QUEUE, v.TYPE_PROMETHEUS_RULE)


def test_priority_classes_protect_services_and_keep_queued_work_autoscaled(aws_pools, to_object, guardrails_run, objects):
    classes = objects(guardrails_run(aws_pools), v.TYPE_PRIORITY_CLASS, to_object)
    assert {n: (o["value"], o["preemptionPolicy"], o["globalDefault"]) for n, o in classes.items()} == {
        "nodepools-resident": (1_000_000, "PreemptLowerPriority", False),
        "nodepools-gpu-inference": (900_000, "PreemptLowerPriority", False),
        "nodepools-batch": (0, "Never", False),
        "nodepools-gpu-training": (-5, "PreemptLowerPriority", False)}
    names = v.PRIORITY_CLASS_NAMES
    protected = [classes[names[c]]["value"] for c in (v.PoolClass.RESIDENT, v.PoolClass.GPU_INFERENCE)]
    queued = [classes[names[c]]["value"] for c in (v.PoolClass.BATCH, v.PoolClass.GPU_TRAINING)]
    assert min(protected) > max(queued)
    assert min(queued) >= v.AUTOSCALER_PRIORITY_CUTOFF


def test_namespaces_quotas_and_limit_ranges_derive_from_pool_sizes(aws_pools, to_object, guardrails_run, objects):
    run = guardrails_run(aws_pools, spec=GuardrailsSpec(batch_quota_share=0.45))
    assert {n: o["metadata"]["labels"] for n, o in objects(run, v.TYPE_NAMESPACE, to_object).items()} == {
        "services": {v.LABEL_WORKLOAD_CLASS: "resident"}, "batch": {v.LABEL_WORKLOAD_CLASS: "batch"},
        "inference": {v.LABEL_WORKLOAD_CLASS: "gpu-inference"}, "training": {v.LABEL_WORKLOAD_CLASS: "gpu-training"}}
    # Batch share of the CPU pools at max: 6 x (4 vCPU, 16 GiB) + 10 x (8 vCPU, 16 GiB) = 104 vCPU, 256 GiB;
    # 45% is 46.8 cores and 115.2 GiB = 117964.8 MiB, rounded down.
    assert {n: o["spec"] for n, o in objects(run, v.TYPE_RESOURCE_QUOTA, to_object).items()} == {
        "services/nodepools-quota": {"hard": {v.QUOTA_GPU_REQUESTS: "0"}},
        "batch/nodepools-quota": {"hard": {v.QUOTA_GPU_REQUESTS: "0", "requests.cpu": "46800m",
                                           "requests.memory": "117964Mi"}},
        "inference/nodepools-quota": {"hard": {v.QUOTA_GPU_REQUESTS: str(3 * 1)}},  # 3 x g6.xlarge, 1 GPU each
        "training/nodepools-quota": {"hard": {v.QUOTA_GPU_REQUESTS: str(4 * 8)}},  # 4 x p4d.24xlarge, 8 GPUs
    }
    defaults = {"type": "Container", "defaultRequest": {"cpu": "250m", "memory": "256Mi"},
                "default": {"cpu": "1", "memory": "1Gi"}}
    assert {n: o["spec"]["limits"] for n, o in objects(run, v.TYPE_LIMIT_RANGE, to_object).items()} == {
        "batch/nodepools-container-defaults": [{**defaults, "max": {"cpu": "8", "memory": "16Gi"}}],
        "training/nodepools-container-defaults": [{**defaults, "max": {"cpu": "96", "memory": "1152Gi"}}]}


def test_namespaced_objects_depend_on_their_namespace_and_use_the_provider(aws_pools, guardrails_run):
    run = guardrails_run(aws_pools)
    ns_urn = {r.inputs["metadata"]["name"]: r.urn for r in run.of_type(v.TYPE_NAMESPACE)}
    for reg in run.of_type(v.TYPE_RESOURCE_QUOTA) + run.of_type(v.TYPE_LIMIT_RANGE):
        assert ns_urn[reg.inputs["metadata"]["namespace"]] in reg.dependencies
    (provider,) = run.of_type("pulumi:providers:kubernetes")
    children = [r for r in run.resources if r.custom and r.type != "pulumi:providers:kubernetes"]
    assert children and all(r.provider.startswith(provider.urn) for r in children)


def test_device_plugin_tolerates_exactly_the_gpu_taints_and_targets_gpu_nodes(aws_pools, guardrails_run, release):
    plugin = release(guardrails_run(aws_pools), "nvidia-device-plugin")
    assert (plugin["chart"], plugin["version"], plugin["repositoryOpts"], plugin["namespace"]) == (
        "nvidia-device-plugin", "0.20.0", {"repo": "https://nvidia.github.io/k8s-device-plugin"}, "kube-system")
    gpu_taints = [t.as_k8s() for p in aws_pools if p.has_gpu for t in p.node_taints]
    expected = []
    for taint in gpu_taints:
        toleration = {"operator": "Equal", **taint}
        if toleration not in expected:
            expected.append(toleration)
    assert plugin["values"]["tolerations"] == expected == [
        {"key": v.TAINT_POOL_CLASS_KEY, "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
        {"key": v.TAINT_GPU_KEY, "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": v.TAINT_POOL_CLASS_KEY, "operator": "Equal", "value": "gpu-training", "effect": "NoSchedule"}]
    assert plugin["values"]["affinity"] == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]}}}
    assert plugin["values"]["priorityClassName"] == "system-node-critical"


def test_cluster_autoscaler_flags_identity_and_placement(aws_pools, fake_cluster, guardrails_run, release):
    ca = release(guardrails_run(aws_pools), "cluster-autoscaler")
    assert (ca["chart"], ca["version"], ca["repositoryOpts"], ca["namespace"]) == (
        "cluster-autoscaler", "9.59.0", {"repo": "https://kubernetes.github.io/autoscaler"}, "kube-system")
    values = ca["values"]
    assert values["extraArgs"] == {
        "expendable-pods-priority-cutoff": "-10", "scale-down-unneeded-time": "10m",
        "scale-down-delay-after-add": "10m", "scale-down-utilization-threshold": "0.5",
        "scale-down-gpu-utilization-threshold": "0.5", "ignore-daemonsets-utilization": "true",
        "skip-nodes-with-local-storage": "false", "max-node-provision-time": "20m", "expander": "least-waste",
        # The training pool autoscales, so the autoscaler serves its gangs' ProvisioningRequests.
        "enable-provisioning-requests": "true", "kube-api-content-type": "application/json"}
    assert int(values["extraArgs"]["expendable-pods-priority-cutoff"]) == v.AUTOSCALER_PRIORITY_CUTOFF
    assert values["autoDiscovery"] == {"clusterName": "demo", "tags": [
        "k8s.io/cluster-autoscaler/enabled", "k8s.io/cluster-autoscaler/{{ .Values.autoDiscovery.clusterName }}"]}
    assert (values["cloudProvider"], values["awsRegion"], values["image"]) == ("aws", "us-west-2", {"tag": "v1.35.2"})
    assert values["rbac"] == {"serviceAccount": {"create": True, "name": "cluster-autoscaler",
                                                 "annotations": {"eks.amazonaws.com/role-arn": fake_cluster.ROLE_ARN}}}
    # On the system pool (the untainted resident pool), so nothing to tolerate.
    assert (values["nodeSelector"], values["tolerations"]) == ({v.LABEL_POOL: "web"}, [])
    assert values["priorityClassName"] == "system-cluster-critical"


def test_autoscaler_on_a_dedicated_resident_pool_tolerates_its_taint(aws_pools, guardrails_run, release):
    pools = [aws_pools[0].model_copy(update={"dedicated": True}), *aws_pools[1:]]
    values = release(guardrails_run(pools), "cluster-autoscaler")["values"]
    assert values["tolerations"] == [
        {"key": v.TAINT_POOL_CLASS_KEY, "operator": "Equal", "value": "resident", "effect": "NoSchedule"}]





def test_every_object_matches_its_schema(aws_pools, to_object, validate_builtin, validate_crd, guardrails_run):
    spec = GuardrailsSpec(quota_priority_class_scopes=True, kubernetes_version="1.35", alerts={
        "backend": "prometheus-operator", "namespace": "monitoring", "rule_labels": {"release": "kps"}})
    run = guardrails_run(aws_pools, spec=spec)
    builtin = [to_object(r) for t in BUILTIN for r in run.of_type(t)]
    custom = [to_object(r) for t in CUSTOM for r in run.of_type(t)]
    assert len(builtin) == 4 + 4 + 8 + 2 and len(custom) == 2 + 2 + 2 + 1
    for obj in builtin:
        validate_builtin(obj, spec.kubernetes_version)
    for obj in custom:
        validate_crd(obj)


def test_schema_checks_catch_a_misspelt_field(validate_builtin, validate_crd):
    import jsonschema
    with pytest.raises(jsonschema.ValidationError):
        validate_builtin({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
                          "spec": {"hards": {}}})
    with pytest.raises(jsonschema.ValidationError):
        validate_crd({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q"},
                      "spec": {"clusterQueueName": "x"}})


def test_priority_class_scopes_refuse_foreign_priorities(aws_pools, to_object, guardrails_run, objects):
    run = guardrails_run(aws_pools, spec=GuardrailsSpec(quota_priority_class_scopes=True))
    scoped = {n: o["spec"] for n, o in objects(run, v.TYPE_RESOURCE_QUOTA, to_object).items() if "scopeSelector" in o["spec"]}
    assert scoped["batch/nodepools-foreign-priority"] == {
        "hard": {"pods": "0", v.QUOTA_GPU_REQUESTS: "0"},
        "scopeSelector": {"matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "NotIn", "values": ["nodepools-batch"]}]}}
    assert len(scoped) == 4


def test_gke_gets_neither_device_plugin_nor_autoscaler(gcp_pools, guardrails_run):
    run = guardrails_run(gcp_pools, cloud=Cloud.GCP, region=None, autoscaler_role_arn=None)
    assert [r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)] == ["kueue"]
    # a2-highgpu-8g x 2 = 16 GPUs in the training quota, g2-standard-8 x 2 = 2 for inference.
    quotas = {r.inputs["metadata"]["namespace"]: r.inputs["spec"]["hard"][v.QUOTA_GPU_REQUESTS]
              for r in run.of_type(v.TYPE_RESOURCE_QUOTA)}
    assert quotas == {"services": "0", "batch": "0", "inference": "2", "training": "16"}


def test_cpu_only_cluster_gets_no_gpu_add_ons_and_no_kueue(aws_pools, guardrails_run):
    run = guardrails_run(aws_pools[:2])
    assert [r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)] == ["cluster-autoscaler"]
    assert sorted(r.inputs["metadata"]["name"] for r in run.of_type(v.TYPE_NAMESPACE)) == ["batch", "services"]
    assert run.of_type(v.TYPE_KUEUE_CLUSTER_QUEUE) == []



def rejected(build) -> list[str]:
    run, error = run_program_capture(build)
    assert isinstance(error, ValidationError), error
    assert run.resources == []
    return describe(error)


def test_bad_arguments_register_nothing(aws_pools):
    def program():
        provider = k8s.Provider("k8s", kubeconfig="fake", opts=pulumi.ResourceOptions())
        Guardrails("g", ClusterPools(cloud=Cloud.AWS, pools=aws_pools[:2]), GuardrailsSpec(kueue="on"), Cloud.GCP,
                   "demo", provider)
    run, error = run_program_capture(program)
    assert isinstance(error, ValidationError)
    assert [r.type for r in run.resources] == ["pulumi:providers:kubernetes"]  # the caller's provider only
    assert describe(error) == [
        "cloud: cloud 'gcp' differs from the pools' cloud 'aws'",
        "spec.kueue: kueue 'on' needs a gpu-training pool: Kueue queues distributed training and its "
        "ClusterQueue's GPU quota is the training pools' max GPUs (here 0); use 'auto' or 'off' (pools: "
        "web (resident), jobs (batch))"]


def test_missing_region_on_eks_registers_nothing(aws_pools):
    assert rejected(lambda: Guardrails("g", ClusterPools(cloud=Cloud.AWS, pools=aws_pools), GuardrailsSpec(),
                                       Cloud.AWS, "demo", None)) == [
        "k8s_provider: k8s_provider must be a Kubernetes provider (pulumi_kubernetes.Provider, type "
        "pulumi:providers:kubernetes); got nothing: every in-cluster object is deployed through it, and anything "
        "else would send them to the default provider's cluster",
        "region: cluster-autoscaler on aws needs the cluster's region (its chart otherwise defaults to us-east-1 "
        "and would find no node groups)",
        # Standalone, the Kubernetes-only component cannot create the default backend's CloudWatch alarms.
        "spec.alerts.backend: alert backend 'cloudwatch' (the default on aws) creates CloudWatch alarms, which need "
        "register_alarms (Platform passes its EksCluster's); without one choose backend 'prometheus-operator' or "
        "set alerts.enabled false"]
