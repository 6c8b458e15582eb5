"""Topology-aware scheduling and all-or-nothing capacity in the guardrails: the exact Kueue objects,
the autoscaler's flags and the CRD, validated against the vendored schemas (docs/design.md section 9.3)."""
import pytest
from pydantic import ValidationError

from nodepools.guardrails import GuardrailsSpec
from nodepools.guardrails.checks import addon_problems
from nodepools.guardrails.kueue import kueue_values
from nodepools.spec import describe
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.pool import PoolSpec
from nodepools import vocabulary as v
from nodepools.vocabulary import Cloud

AWS_LEVELS = [{"nodeLabel": f"topology.k8s.aws/network-node-layer-{i}"} for i in (1, 2, 3)] + [
    {"nodeLabel": "kubernetes.io/hostname"}]
CHECK = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
         "metadata": {"name": "nodepools-atomic-provisioning"},
         "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request", "parameters": {
             "apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "nodepools-atomic-provisioning"}}}
CONFIG = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ProvisioningRequestConfig",
          "metadata": {"name": "nodepools-atomic-provisioning"},
          "spec": {"provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
                   "managedResources": ["nvidia.com/gpu"],
                   "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements"}}
NEW_TYPES = (v.TYPE_KUEUE_TOPOLOGY, v.TYPE_KUEUE_ADMISSION_CHECK, v.TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG)


def pool(name, pool_class, types, **fields):
    return PoolSpec(name=name, pool_class=pool_class, instance_types=types, **fields)


def test_eks_topology_flavor_check_flags_and_crd(aws_pools, guardrails_run, objects, to_object, release):
    run = guardrails_run(aws_pools)
    assert objects(run, v.TYPE_KUEUE_TOPOLOGY, to_object) == {"nodepools-aws-network-3": {
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "nodepools-aws-network-3"},
        "spec": {"levels": AWS_LEVELS}}}
    flavors = objects(run, v.TYPE_KUEUE_RESOURCE_FLAVOR, to_object)
    assert flavors["train-bc80e1cc"]["spec"]["topologyName"] == "nodepools-aws-network-3"
    assert "topologyName" not in flavors["jobs"]["spec"]  # batch pools are not placed by topology
    training = objects(run, v.TYPE_KUEUE_CLUSTER_QUEUE, to_object)["nodepools-gpu-training"]["spec"]
    assert training["admissionChecksStrategy"] == {"admissionChecks": [
        {"name": "nodepools-atomic-provisioning", "onFlavors": ["train-bc80e1cc"]}]}
    assert "admissionChecksStrategy" not in objects(run, v.TYPE_KUEUE_CLUSTER_QUEUE, to_object)["nodepools-batch"]["spec"]
    assert objects(run, v.TYPE_KUEUE_ADMISSION_CHECK, to_object) == {"nodepools-atomic-provisioning": CHECK}
    assert objects(run, v.TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG, to_object) == {"nodepools-atomic-provisioning": CONFIG}
    extra = release(run, "cluster-autoscaler")["values"]["extraArgs"]
    assert {k: extra[k] for k in ("enable-provisioning-requests", "kube-api-content-type")} == {
        "enable-provisioning-requests": "true", "kube-api-content-type": "application/json"}
    (crd,) = run.of_type(v.TYPE_CRD)
    assert (crd.inputs["metadata"]["name"], crd.inputs["spec"]["group"]) == (
        "provisioningrequests.autoscaling.x-k8s.io", "autoscaling.x-k8s.io")


def test_the_crd_goes_in_before_kueue_and_the_autoscaler_and_objects_wait_for_their_inputs(aws_pools, guardrails_run):
    run = guardrails_run(aws_pools)
    (crd,) = run.of_type(v.TYPE_CRD)
    releases = {r.inputs["name"]: r for r in run.of_type(v.TYPE_HELM_RELEASE)}
    assert crd.urn in releases["kueue"].dependencies and crd.urn in releases["cluster-autoscaler"].dependencies
    assert crd.urn not in releases["nvidia-device-plugin"].dependencies
    (topology,) = run.of_type(v.TYPE_KUEUE_TOPOLOGY)
    train = next(r for r in run.of_type(v.TYPE_KUEUE_RESOURCE_FLAVOR) if "topologyName" in r.inputs["spec"])
    assert topology.urn in train.dependencies
    (check,) = run.of_type(v.TYPE_KUEUE_ADMISSION_CHECK)
    (config,) = run.of_type(v.TYPE_KUEUE_PROVISIONING_REQUEST_CONFIG)
    (queue,) = [r for r in run.of_type(v.TYPE_KUEUE_CLUSTER_QUEUE) if r.inputs["metadata"]["name"] ==
                "nodepools-gpu-training"]
    assert config.urn in check.dependencies and {check.urn, train.urn} <= set(queue.dependencies)


def test_every_new_object_matches_its_schema(aws_pools, guardrails_run, to_object, validate_crd, validate_builtin):
    run = guardrails_run(aws_pools)
    objs = [to_object(r) for t in (*NEW_TYPES, v.TYPE_KUEUE_RESOURCE_FLAVOR, v.TYPE_KUEUE_CLUSTER_QUEUE)
            for r in run.of_type(t)]
    assert len(objs) == 1 + 1 + 1 + 2 + 2
    for obj in objs:
        validate_crd(obj)
    (crd,) = run.of_type(v.TYPE_CRD)
    validate_builtin(to_object(crd), "1.36")


def test_the_vendored_schemas_catch_a_misspelt_field(validate_crd):
    import jsonschema
    for obj in ({**CHECK, "spec": {"controller": "x"}},
                {**CONFIG, "spec": {**CONFIG["spec"], "podSetMergePolicy": "Merge"}},
                {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "t"},
                 "spec": {"levels": [{"label": "x"}]}}):
        with pytest.raises(jsonschema.ValidationError):
            validate_crd(obj)


def test_gke_gets_the_check_without_flags_or_crd(gcp_pools, guardrails_run, objects, to_object):
    # a2 is not a machine type that reports its topology, and the pool is not explicitly compact: no Topology.
    run = guardrails_run(gcp_pools, cloud=Cloud.GCP)
    assert (run.of_type(v.TYPE_KUEUE_TOPOLOGY), run.of_type(v.TYPE_CRD)) == ([], [])
    assert "cluster-autoscaler" not in {r.inputs["name"] for r in run.of_type(v.TYPE_HELM_RELEASE)}
    training = objects(run, v.TYPE_KUEUE_CLUSTER_QUEUE, to_object)["nodepools-gpu-training"]["spec"]
    assert training["admissionChecksStrategy"]["admissionChecks"] == [
        {"name": "nodepools-atomic-provisioning", "onFlavors": ["train"]}]
    compact = [*gcp_pools[:3], pool("train", "gpu-training", ["a2-highgpu-8g"], max_nodes=2, placement="compact",
                                    zones=["us-central1-a"])]
    topologies = objects(guardrails_run(compact, cloud=Cloud.GCP), v.TYPE_KUEUE_TOPOLOGY, to_object)
    assert [level["nodeLabel"] for level in topologies["nodepools-gke-host"]["spec"]["levels"]] == [
        "cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gce-topology-host", "kubernetes.io/hostname"]


def test_karpenter_training_pools_get_the_topology_but_no_check(aws_pools, guardrails_run, objects, to_object, release):
    karpenter = [*aws_pools[:3], pool("train", "gpu-training", ["p4d.24xlarge"], max_nodes=4, provisioner="karpenter"),
                 pool("burst", "gpu-training", ["p5.48xlarge"], max_nodes=2)]
    run = guardrails_run(karpenter, spec=GuardrailsSpec(addons={"karpenter": {"existing": True}}))
    assert list(objects(run, v.TYPE_KUEUE_TOPOLOGY, to_object)) == ["nodepools-aws-network-3"]
    training = objects(run, v.TYPE_KUEUE_CLUSTER_QUEUE, to_object)["nodepools-gpu-training"]["spec"]
    [checked] = training["admissionChecksStrategy"]["admissionChecks"]
    assert [f.partition("-")[0] for f in checked["onFlavors"]] == ["burst"]  # the Karpenter flavor is left out


@pytest.mark.parametrize("mode, autoscaler, checks, flags", [
    ("auto", {"existing": True}, 0, False),  # an autoscaler nodepools does not run: its flags are unknown
    ("on", {"existing": True}, 1, False),  # trusted, but its flags and CRD are the user's
    ("off", {}, 0, False),
])
def test_atomic_provisioning_modes(aws_pools, guardrails_run, mode, autoscaler, checks, flags):
    spec = GuardrailsSpec(atomic_provisioning=mode, addons={"cluster_autoscaler": autoscaler})
    run = guardrails_run(aws_pools, spec=spec)
    assert len(run.of_type(v.TYPE_KUEUE_ADMISSION_CHECK)) == checks
    assert run.of_type(v.TYPE_CRD) == []
    for ca in (r for r in run.of_type(v.TYPE_HELM_RELEASE) if r.inputs["name"] == "cluster-autoscaler"):
        assert ("enable-provisioning-requests" in ca.inputs["values"]["extraArgs"]) is flags


def _problems(cloud, pools, **spec):
    problems = Problems()
    addon_problems(cloud, ClusterPools(cloud=cloud, pools=pools), "us-west-2", problems,
                   spec=GuardrailsSpec(**spec), spec_root=("guardrails",))
    try:
        problems.raise_if_any("x")
    except ValidationError as err:
        return describe(err)
    return []


def test_atomic_provisioning_on_a_karpenter_only_training_set_is_refused(aws_pools):
    pools = [*aws_pools[:3], pool("train", "gpu-training", ["p4d.24xlarge"], provisioner="karpenter")]
    assert _problems(Cloud.AWS, pools, atomic_provisioning="on", addons={"karpenter": {"existing": True}}) == [
        "guardrails.atomic_provisioning: atomic_provisioning 'on' asks for a ProvisioningRequest admission check, "
        "but every gpu-training pool (train) is provisioned by Karpenter, which does not serve ProvisioningRequests "
        "(allowed here: auto, off)"]
    assert _problems(Cloud.AWS, pools, addons={"karpenter": {"existing": True}}) == []  # auto: simply none


def test_a_kueue_too_old_for_its_objects_is_refused(aws_pools):
    assert _problems(Cloud.AWS, aws_pools, charts={"kueue": "0.14.2"}) == [
        "guardrails.charts.kueue: Kueue 0.14.2 is too old for what nodepools configures here (the "
        "kueue.x-k8s.io/v1beta2 queues and flavors, the Topology nodepools-aws-network-3), which needs Kueue 0.15.0 "
        "or newer (allowed: 0.15.0 and newer; the pinned default is 0.19.2)"]
    assert _problems(Cloud.AWS, aws_pools, charts={"kueue": "0.14.2"}, kueue="off") == []


def test_the_pinned_kueue_needs_no_feature_gate(aws_pools):
    values = kueue_values(GuardrailsSpec(), ClusterPools(cloud=Cloud.AWS, pools=aws_pools))
    assert "featureGates" not in values and "featureGates" not in values["managerConfig"]["controllerManagerConfigYaml"]
