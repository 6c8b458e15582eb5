"""Warm capacity (docs/design.md section 9.4): what holds a warm pool's replicas on each autoscaler,
the exact objects, their validity against the real schemas, and the autoscaler's flags and RBAC."""
from __future__ import annotations

import pytest

from nodepools import vocabulary as v
from nodepools.guardrails import GuardrailsSpec, upstream
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.autoscaler import autoscaler_values
from nodepools.guardrails.karpenter import feature_gates
from nodepools.guardrails.warm import BUFFER_FLAGS, BUFFER_RBAC_RULES, DRY_RUN_FLAG, Mechanism, Server, warm_choices
from nodepools.guardrails.warm_objects import warm_plan
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import Cloud

TYPE_BUFFER = v.TYPE_CAPACITY_BUFFER_V1BETA1


def pool(name, pool_class, instance_types, **fields) -> PoolSpec:
    return PoolSpec(name=name, pool_class=pool_class, instance_types=instance_types, **fields)

INFER_TOLERATIONS = [
    {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]


def eks(version: str = "1.35", *warm_pools, **spec) -> tuple[ClusterPools, GuardrailsSpec]:
    pools = [pool("web", "resident", ["m6i.xlarge"], min_nodes=2, max_nodes=6),
             pool("infer", "gpu-inference", ["g6.xlarge"], max_nodes=3, warm={"replicas": 2}), *warm_pools]
    return ClusterPools(cloud=Cloud.AWS, pools=pools), GuardrailsSpec(kubernetes_version=version, **spec)


def gke(version: str) -> tuple[ClusterPools, GuardrailsSpec]:
    pools = [pool("web", "resident", ["n2-standard-4"], max_nodes=4),
             pool("infer", "gpu-inference", ["g2-standard-8"], max_nodes=2, warm={"replicas": 1})]
    return ClusterPools(cloud=Cloud.GCP, pools=pools), GuardrailsSpec(kubernetes_version=version)


@pytest.mark.parametrize("version, mechanism, api", [
    ("1.32", Mechanism.PLACEHOLDER, None), ("1.33", Mechanism.PLACEHOLDER, None),
    ("1.34", Mechanism.CAPACITY_BUFFER, "autoscaling.x-k8s.io/v1alpha1"),
    ("1.35", Mechanism.CAPACITY_BUFFER, "autoscaling.x-k8s.io/v1beta1"),
    ("1.36", Mechanism.CAPACITY_BUFFER, "autoscaling.x-k8s.io/v1beta1")])
def test_cluster_autoscaler_serves_buffers_from_1_34_in_the_version_its_release_serves(version, mechanism, api):
    (choice,) = warm_choices(*eks(version))
    assert (choice.mechanism, choice.api_version) == (mechanism, api)
    image = GuardrailsSpec(kubernetes_version=version).autoscaler_image
    crd = upstream.capacity_buffer_crd(image)
    if api is None:
        assert crd is None and choice.served_by == (
            f"placeholder pods: cluster-autoscaler {image} serves no CapacityBuffer (from 1.34)")
    else:
        assert api.rsplit("/", 1)[1] in [x["name"] for x in crd["spec"]["versions"] if x["served"]]
        assert choice.server is Server.CLUSTER_AUTOSCALER


@pytest.mark.parametrize("version", SUPPORTED_KUBERNETES_VERSIONS)
def test_autoscaler_flags_exist_in_the_release_we_run_and_only_buffers_turn_them_on(version):
    cluster, spec = eks(version)
    values = autoscaler_values(cluster, spec, CLOUD_ADDONS[Cloud.AWS], "demo", "us-west-2")
    flags = upstream.autoscaler_flags(spec.autoscaler_image)
    ours = {k: val for k, val in values["extraArgs"].items() if k.startswith("capacity-buffer")}
    if version in ("1.32", "1.33"):
        assert ours == {} and "additionalRules" not in values["rbac"]
        return
    expected = {flag: "true" for flag in BUFFER_FLAGS}
    if version == "1.36":  # its dry-run would need "create" on pods: off
        expected[DRY_RUN_FLAG] = "false"
    assert ours == expected
    assert set(ours) <= set(flags["flags"]) and not set(ours) & set(flags["deprecated"])
    assert values["rbac"]["additionalRules"] == list(BUFFER_RBAC_RULES)
    # A stack without warm pools passes exactly the flags it passed before.
    plain = autoscaler_values(ClusterPools(cloud=Cloud.AWS, pools=[cluster.pools[0]]), spec, CLOUD_ADDONS[Cloud.AWS],
                              "demo", "us-west-2")
    assert not any(k.startswith("capacity-buffer") for k in plain["extraArgs"])
    assert "additionalRules" not in plain["rbac"]


def _granted(rules):
    return {(group, resource, verb) for r in rules for group in r["apiGroups"] for resource in r["resources"]
            for verb in r["verbs"] if "resourceNames" not in r}


def test_the_buffer_controller_gets_what_it_reads_and_the_chart_lacks():
    """The pinned chart (9.59.0) grants capacitybuffers, their status and podtemplates; ResourceQuotas
    (read from 1.35 to bound buffers by quota) and scale subresources it does not, so we add them."""
    chart = _granted(upstream.chart("cluster-autoscaler")["clusterrole_rules"])
    needed = {("autoscaling.x-k8s.io", "capacitybuffers", verb) for verb in ("get", "list", "watch")} | {
        ("autoscaling.x-k8s.io", "capacitybuffers/status", "update"), ("", "podtemplates", "create"),
        ("", "podtemplates", "update"), ("", "podtemplates", "list"), ("", "resourcequotas", "list"),
        ("", "resourcequotas", "watch"), ("apps", "deployments/scale", "get")}
    assert needed - chart == {("", "resourcequotas", "list"), ("", "resourcequotas", "watch"),
                              ("apps", "deployments/scale", "get")}
    assert needed <= chart | _granted(BUFFER_RBAC_RULES)
    # Read-only: no verb beyond get, list and watch, and no pod creation.
    assert {verb for _, _, verb in _granted(BUFFER_RBAC_RULES)} == {"get", "list", "watch"}


def test_gke_serves_buffers_from_1_35_and_installs_its_own_crd():
    placeholder, buffer = warm_choices(*gke("1.34"))[0], warm_choices(*gke("1.35"))[0]
    assert placeholder.served_by == "placeholder pods: GKE serves CapacityBuffers from 1.35 (this cluster: 1.34)"
    assert (buffer.mechanism, buffer.api_version, buffer.server) == (
        Mechanism.CAPACITY_BUFFER, "autoscaling.x-k8s.io/v1beta1", Server.GKE)
    assert warm_plan(*gke("1.35")).crd is None


def test_karpenter_serves_its_warm_pools_and_turns_its_gate_on():
    karp = pool("kinfer", "gpu-inference", ["g6.xlarge"], max_nodes=2, provisioner="karpenter", warm={"replicas": 1})
    cluster, spec = eks("1.35", karp)
    choices = {c.pool.name: c for c in warm_choices(cluster, spec)}
    assert (choices["kinfer"].server, choices["kinfer"].api_version) == (Server.KARPENTER, "autoscaling.x-k8s.io/v1beta1")
    assert feature_gates(cluster, spec) == {"nodeRepair": True, "capacityBuffer": True}
    # Karpenter's chart ships the CRD (v1beta1): the guardrails install none, and the managed pool's
    # 1.35 autoscaler speaks v1beta1 too.
    assert upstream.chart("karpenter")["crds"]["capacitybuffers.autoscaling.x-k8s.io"] == ["v1beta1"]
    assert choices["infer"].server is Server.CLUSTER_AUTOSCALER and warm_plan(cluster, spec).crd is None
    # At 1.34 the autoscaler speaks only v1alpha1, which Karpenter's CRD does not serve: placeholders.
    old = {c.pool.name: c for c in warm_choices(*eks("1.34", karp))}
    assert old["infer"].served_by == ("placeholder pods: Karpenter's CapacityBuffer CRD serves v1beta1, "
                                      "cluster-autoscaler v1.34.5 speaks v1alpha1")
    # A Karpenter the cluster runs itself: its gate is not ours to set.
    own = {c.pool.name: c for c in warm_choices(*eks("1.35", karp, addons={"karpenter": {"existing": True}}))}
    assert own["kinfer"].mechanism is Mechanism.PLACEHOLDER


def test_the_chart_of_the_pinned_karpenter_has_both_gates_we_set():
    karpenter = upstream.chart("karpenter")
    assert (karpenter["published_version"], karpenter["_source"]["ref"]) == ("1.14.1", "v1.14.1")
    assert {"NodeRepair": "nodeRepair", "CapacityBuffer": "capacityBuffer"}.items() <= karpenter["feature_gates"].items()
    assert {"nodeRepair", "capacityBuffer"} <= set(karpenter["keys"]["settings"]["featureGates"])


def test_buffer_objects_are_one_replica_of_the_pool_in_the_warm_namespace(validate_builtin, validate_crd):
    plan = warm_plan(*eks("1.35"))
    (template,), (buffer,) = plan.pod_templates, plan.buffers
    assert plan.placeholders == []
    assert buffer == {
        "apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
        "metadata": {"name": "nodepools-warm-infer", "namespace": "nodepools-warm",
                     "labels": {"app.kubernetes.io/name": "nodepools-warm"}},
        "spec": {"provisioningStrategy": "buffer.x-k8s.io/active-capacity", "podTemplateRef": {"name": "nodepools-warm-infer"},
                 "replicas": 2}}
    pod = template["template"]
    assert pod["metadata"]["labels"] == {
        "app.kubernetes.io/name": "nodepools-warm", "app.kubernetes.io/instance": "nodepools-warm-infer",
        "nodepools.io/placeholder": "true", "nodepools.io/workload-class": "gpu-inference"}
    spec = pod["spec"]
    assert spec["tolerations"] == INFER_TOLERATIONS
    assert spec["nodeSelector"] == {"nodepools.io/pool": "infer"}
    assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "nodepools.io/pool", "operator": "In", "values": ["infer"]}]}]}
    assert spec["priorityClassName"] == "nodepools-overprovisioning"
    assert spec["containers"][0]["resources"] == {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    for version in ("1.35", "1.36"):
        validate_builtin(template, version)
    validate_crd(buffer)
    # The CRD's CEL rules jsonschema cannot run: a podTemplateRef needs replicas (or limits), never with scalableRef.
    assert "replicas" in buffer["spec"] and "scalableRef" not in buffer["spec"]
    # The CRD we install is the autoscaler release's own, a valid apiextensions object.
    assert plan.crd == upstream.capacity_buffer_crd("v1.35.2")
    validate_builtin(plan.crd, "1.35")


def test_v1alpha1_buffers_validate_against_the_1_34_schema(validate_crd):
    plan = warm_plan(*eks("1.34"))
    assert plan.buffers[0]["apiVersion"] == "autoscaling.x-k8s.io/v1alpha1"
    validate_crd(plan.buffers[0])
    assert plan.crd == upstream.capacity_buffer_crd("v1.34.5")


def test_placeholders_are_pause_pods_that_every_class_preempts(validate_builtin):
    plan = warm_plan(*eks("1.33"))
    (deployment,) = plan.placeholders
    assert plan.buffers == plan.pod_templates == [] and plan.crd is None
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/instance": "nodepools-warm-infer"}}
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.k8s.io/pause:3.10"
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 0
    validate_builtin(deployment, "1.33")
    priority = plan.priority_class
    assert (priority["metadata"]["name"], priority["value"], priority["preemptionPolicy"]) == (
        "nodepools-overprovisioning", -9, "Never")
    assert v.AUTOSCALER_PRIORITY_CUTOFF < priority["value"] < -5  # below training (-5), scaled up for
    validate_builtin(priority, "1.33")


def test_the_warm_quota_counts_exactly_the_warm_gpus_and_placeholder_pods(validate_builtin):
    mig = pool("slices", "gpu-inference", ["p4de.24xlarge"], max_nodes=2,
               gpu_sharing={"mode": "mig", "profile": "1g.10gb"}, warm={"replicas": 3})
    plan = warm_plan(*eks("1.33", mig))
    assert plan.quota["metadata"] == {"name": "nodepools-quota", "namespace": "nodepools-warm",
                                      "labels": {"app.kubernetes.io/name": "nodepools-warm"}}
    assert plan.quota["spec"]["hard"] == {"requests.nvidia.com/gpu": "2", "requests.nvidia.com/mig-1g.10gb": "3",
                                          "pods": "5"}
    validate_builtin(plan.quota, "1.33")
    assert plan.namespace["metadata"]["labels"] == {"nodepools.io/workload-class": "gpu-inference"}
    # Buffers run no pod: with them the quota admits no pod at all, and still bounds the buffers' GPUs.
    buffered = warm_plan(*eks("1.35", mig))
    assert buffered.quota["spec"]["hard"]["pods"] == "0"
    slices = next(t for t in buffered.pod_templates if t["metadata"]["name"] == "nodepools-warm-slices")
    assert slices["template"]["spec"]["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-1g.10gb": "1"}


def test_a_replica_shape_with_cpu_and_memory():
    shaped = pool("big", "gpu-inference", ["g6.12xlarge"], max_nodes=2,
                  warm={"replicas": 2, "gpus_per_replica": 2, "cpu_millicores": 8000, "memory_mib": 32768})
    plan = warm_plan(*eks("1.35", shaped))
    template = next(t for t in plan.pod_templates if t["metadata"]["name"] == "nodepools-warm-big")
    assert template["template"]["spec"]["containers"][0]["resources"]["requests"] == {
        "nvidia.com/gpu": "2", "cpu": "8", "memory": "32Gi"}
    assert plan.quota["spec"]["hard"]["requests.nvidia.com/gpu"] == "6"  # 2 x 1 (infer) + 2 x 2 (big)


def test_no_warm_pool_no_warm_objects(aws_pools):
    assert warm_plan(ClusterPools(cloud=Cloud.AWS, pools=aws_pools), GuardrailsSpec()) is None


def test_the_component_registers_buffers_after_their_crd(guardrails_run, objects):
    cluster, spec = eks("1.36")
    run = guardrails_run(cluster.pools, spec=spec)
    by_name = {r.name: r for r in run.resources}
    buffer = by_name["g-warm-buffer-infer"]
    assert buffer.type == TYPE_BUFFER
    crd, namespace = by_name["g-crd-capacitybuffers"], by_name["g-ns-warm"]
    assert {crd.urn, namespace.urn, by_name["g-quota-warm"].urn, by_name["g-pc-nodepools-overprovisioning"].urn} <= set(
        buffer.dependencies)
    assert crd.inputs["metadata"]["name"] == "capacitybuffers.autoscaling.x-k8s.io"
    assert objects(run, v.TYPE_POD_TEMPLATE).keys() == {"nodepools-warm/nodepools-warm-infer"}
