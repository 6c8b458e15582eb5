"""inference-scale-headroom and gpu-node-repair through the real pack over gRPC (docs/design.md sections 9.4, 9.5),
each violation beside its clean twin."""
import pytest

from karpenter_builders import CAPACITY, ours, req
from policy_builders import (CLASS, DEPLOYMENT, GPU, PROBE, UNKNOWN_WIRE, Resource, container, fired, golden,
                             pod_template, toleration, workload)

HEADROOM, REPAIR = "inference-scale-headroom", "gpu-node-repair"
HPA_V2, HPA_V1 = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "kubernetes:autoscaling/v1:HorizontalPodAutoscaler"
SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
INFERENCE_SERVICE = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
BUFFER_V1BETA1 = "kubernetes:autoscaling.x-k8s.io/v1beta1:CapacityBuffer"
BUFFER_V1ALPHA1 = "kubernetes:autoscaling.x-k8s.io/v1alpha1:CapacityBuffer"
POD_TEMPLATE = "kubernetes:core/v1:PodTemplate"
PRIORITY_CLASS = "kubernetes:scheduling.k8s.io/v1:PriorityClass"
HELM = "kubernetes:helm.sh/v3:Release"
INFER_TOLERATIONS = [toleration(CLASS, "gpu-inference"), toleration(GPU, "present")]


def hpa(target="llm", type_=HPA_V2, kind="Deployment", deps=()):
    ref = {"apiVersion": "apps/v1", "kind": kind, "name": target}
    return Resource.of(type_, "llm-hpa", {"metadata": {"name": "llm", "namespace": "inference"}, "spec": {
        "scaleTargetRef": ref, "minReplicas": 1.0, "maxReplicas": 4.0}}, dependencies=tuple(deps))


def scaled_object(**ref):
    return Resource.of(SCALED_OBJECT, "llm-keda", {"metadata": {"name": "llm", "namespace": "inference"},
                                                    "spec": {"scaleTargetRef": {"name": "llm", **ref}}})


def replica_spec(pool="infer", gpus=1, tolerations=None):
    return {"priorityClassName": "nodepools-overprovisioning", "nodeSelector": {"nodepools.io/pool": pool},
            "tolerations": INFER_TOLERATIONS if tolerations is None else tolerations,
            "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10", "resources": {
                "requests": {GPU: float(gpus)} if gpus else {}, "limits": {GPU: float(gpus)} if gpus else {}}}]}


def buffer(replicas=1.0, type_=BUFFER_V1BETA1, template="warm", **spec):
    ref = {"podTemplateRef": {"name": template}} if template else {}
    return Resource.of(type_, "warm-buffer", {"metadata": {"name": "warm", "namespace": "nodepools-warm"},
                                              "spec": {**ref, "replicas": replicas, **spec}})


def template(spec=None):
    return Resource.of(POD_TEMPLATE, "warm-template", {
        "metadata": {"name": "warm", "namespace": "nodepools-warm"},
        "template": {"metadata": {"labels": {"nodepools.io/placeholder": "true"}}, "spec": spec or replica_spec()}})


def placeholder(value=-9.0, policy="Never", replicas=1.0, **spec_changes):
    klass = Resource.of(PRIORITY_CLASS, "pc-overprovisioning", {
        "metadata": {"name": "nodepools-overprovisioning"}, "value": value, "preemptionPolicy": policy})
    pods = pod_template("gpu-inference", {**replica_spec(), **spec_changes}, labels={"nodepools.io/placeholder": "true"})
    deployment = workload(DEPLOYMENT, "warm-placeholder", "nodepools-warm", {"replicas": replicas, "template": pods})
    return klass, deployment


def message(diags, policy=HEADROOM):
    found = [d.message.split("\n", 1)[1] for d in diags if d.policy == policy and not d.cannot_judge]
    return found[0] if len(found) == 1 else found


COLD = ("Deployment 'llm' in namespace 'inference': spec.template.spec: autoscaled by HorizontalPodAutoscaler 'llm', "
        "but no pool it can land on keeps warm capacity ('infer'): the first replicas of a spike wait 900s (600s "
        "model load + 300s GPU node start). Fix: set warm: {replicas: N} on pool 'infer' (nodepools renders a "
        "CapacityBuffer, or placeholder pods where the autoscaler has none), or add a CapacityBuffer whose "
        "PodTemplate lands on it")


def test_both_policies_are_advisory_with_the_design_severities(pack):
    info = pack.info().policies
    assert (info[HEADROOM].level, info[HEADROOM].severity) == ("advisory", "high")
    assert (info[REPAIR].level, info[REPAIR].severity) == ("advisory", "medium")


def test_an_autoscaled_model_server_on_a_cold_pool_waits_for_a_node_and_its_model(check):
    fx = golden().add(hpa())
    diags = check(fx)
    assert fired(diags) == {(HEADROOM, fx.urn("llm"))}
    assert message(diags) == COLD


def test_the_wait_follows_gpu_node_start_seconds_and_the_default_model_load(check):
    def no_annotation(props):
        props["spec"]["template"]["metadata"].pop("annotations")
    fx = golden().edit("llm", no_annotation).add(hpa())
    config = {HEADROOM: {"gpuNodeStartSeconds": 120, "defaultModelLoadSeconds": 90}}
    assert "wait 210s (90s model load + 120s GPU node start)" in message(check(fx, config))


def test_not_autoscaled_no_finding(check):
    assert fired(check(golden())) == set()
    other = golden().add(hpa(target="someone-else"))
    assert fired(check(other)) == set()


@pytest.mark.parametrize("scaler", [hpa(type_=HPA_V1), scaled_object(), scaled_object(kind="Deployment")],
                         ids=["hpa-v1", "keda-default-kind", "keda-deployment"])
def test_every_autoscaler_kind_of_the_contract_counts(check, scaler):
    fx = golden().add(scaler)
    assert fired(check(fx)) == {(HEADROOM, fx.urn("llm"))}


def test_a_keda_scaled_object_of_another_kind_is_not_this_deployment(check):
    assert fired(check(golden().add(scaled_object(kind="StatefulSet")))) == set()


def test_an_auto_named_target_is_followed_through_the_dependency(check):
    fx = golden()
    named_later = hpa(target=UNKNOWN_WIRE, deps=[fx.urn("llm")])
    assert fired(check(fx.add(named_later))) == {(HEADROOM, fx.urn("llm"))}
    # Neither a name nor a dependency: which Deployment it scales cannot be known at preview.
    diags = check(fx.add(hpa(target=UNKNOWN_WIRE)))
    assert fired(diags) == set()
    (note,) = [d for d in diags if d.policy == HEADROOM]
    assert note.cannot_judge and "whether HorizontalPodAutoscaler 'llm' scales it" in note.message


@pytest.mark.parametrize("warm", [
    lambda: [buffer(), template()],
    lambda: [buffer(type_=BUFFER_V1ALPHA1), template()],
    lambda: [buffer(template=None, scalableRef={"apiGroup": "apps", "kind": "Deployment", "name": "llm"},
                    percentage=20.0, replicas=1.0)],
    lambda: list(placeholder()),
], ids=["buffer-v1beta1", "buffer-v1alpha1", "buffer-scalable-ref", "placeholder"])
def test_a_warm_source_that_lands_on_the_pool_is_the_clean_twin(check, warm):
    assert fired(check(golden().add(hpa(), *warm()))) == set()


@pytest.mark.parametrize("cold", [
    lambda: [buffer(), template(replica_spec(gpus=0))],                       # holds no GPU
    lambda: [buffer(replicas=0.0), template()],                               # holds nothing
    lambda: [buffer(), template(replica_spec(pool="train"))],                 # lands elsewhere
    lambda: [buffer(), template(replica_spec(tolerations=[]))],               # lands nowhere
    lambda: list(placeholder(value=5.0)),                                     # not below every class
    lambda: list(placeholder(policy="PreemptLowerPriority")),                 # evicts what it displaces
    lambda: list(placeholder(replicas=0.0)),
], ids=["no-gpu", "zero-replicas", "other-pool", "untolerated", "positive-priority", "preempting", "no-replicas"])
def test_a_warm_source_that_holds_no_gpu_slot_on_the_pool_does_not_count(check, cold):
    fx = golden().add(hpa(), *cold())
    assert (HEADROOM, fx.urn("llm")) in fired(check(fx))


def test_a_pool_whose_min_equals_its_max_is_warm(check):
    fx = golden().edit("infer", lambda p: p["scalingConfig"].update(minSize=2.0, maxSize=2.0, desiredSize=2.0))
    assert fired(check(fx.add(hpa()))) == set()


def test_a_buffer_whose_template_is_not_in_the_stack_cannot_be_judged(check):
    diags = check(golden().add(hpa(), buffer(template="elsewhere")))
    assert fired(diags) == set()
    assert [d.cannot_judge for d in diags if d.policy == HEADROOM] == [True]


def inference_service(low=1.0, high=3.0, labels=None):
    # A predictor every workload rule passes (its pod is judged like any, docs/design.md section 8).
    probes = {"readinessProbe": PROBE, "startupProbe": {**PROBE, "periodSeconds": 10.0, "failureThreshold": 60.0}}
    predictor = {"minReplicas": low, "maxReplicas": high, "nodeSelector": {"nodepools.io/pool": "infer"},
                 "priorityClassName": "nodepools-gpu-inference", "tolerations": INFER_TOLERATIONS,
                 "model": {"modelFormat": {"name": "huggingface"}, "resources": container("2", "8Gi", 1)["resources"],
                           **probes}}
    if labels:
        predictor["labels"] = labels
    return Resource.of(INFERENCE_SERVICE, "chat", {"metadata": {"name": "chat", "namespace": "inference"},
                                                   "spec": {"predictor": predictor}})


def test_a_kserve_inference_service_that_scales_is_autoscaled(check):
    service = inference_service()
    diags = check(golden().add(service))
    assert fired(diags) == {(HEADROOM, service.urn)}
    # Its class: the inference namespace's label, as any workload's; the wait uses the default load time.
    assert message(diags).startswith(
        "InferenceService 'chat' in namespace 'inference': spec.predictor: autoscaled by its predictor (its predictor "
        "scales from minReplicas 1 to maxReplicas 3), but no pool it can land on keeps warm capacity ('infer'): the "
        "first replicas of a spike wait 600s (300s model load + 300s GPU node start)")
    assert fired(check(golden().add(inference_service(low=2.0, high=2.0)))) == set()
    assert fired(check(golden().add(inference_service(high=3.0), buffer(), template()))) == set()


def test_placeholders_are_judged_by_schedulable_only(check):
    """A placeholder without class, probes or QoS is still only schedulable's business; one that fits no
    pool is reported by schedulable."""
    klass, deployment = placeholder(containers=[{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                                 "resources": {"limits": {GPU: 1.0}}}])
    del deployment.props["spec"]["template"]["metadata"]["labels"]["nodepools.io/workload-class"]
    assert fired(check(golden().add(klass, deployment))) == set()
    stuck_class, stuck = placeholder(nodeSelector={"nodepools.io/pool": "nowhere"})
    assert fired(check(golden().add(stuck_class, stuck))) == {("schedulable", stuck.urn)}


# --- gpu-node-repair ---------------------------------------------------------------------

REPAIR_OFF = ("aws:eks/nodeGroup:NodeGroup 'infer': nodeRepairConfig.enabled: a GPU pool with auto-repair off: a node "
              "whose GPU fails (an Xid error, a GPU fallen off the bus, a driver that never loads) stays in the pool "
              "with its GPUs out of service until someone replaces it. Fix: set nodeRepairConfig.enabled: true (EKS "
              "repairs only when it is true)")


@pytest.mark.parametrize("change", [lambda p: p.pop("nodeRepairConfig"),
                                    lambda p: p.update(nodeRepairConfig={"enabled": False})], ids=["absent", "false"])
def test_an_eks_gpu_node_group_without_repair(check, change):
    fx = golden().edit("infer", change)
    diags = check(fx)
    assert fired(diags) == {(REPAIR, fx.urn("infer"))}
    assert message(diags, REPAIR) == REPAIR_OFF


def test_cpu_pools_are_not_judged_and_unknown_repair_cannot_be(check):
    assert fired(check(golden())) == set()  # web and jobs carry no nodeRepairConfig
    diags = check(golden().edit("infer", lambda p: p.update(nodeRepairConfig=UNKNOWN_WIRE)))
    assert fired(diags) == set()
    assert [d.cannot_judge for d in diags if d.policy == REPAIR] == [True]


def gke_gpu_pool(management):
    config = {"machineType": "g2-standard-8", "labels": {CLASS: "gpu-inference"},
              "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0,
                                     "gpuDriverInstallationConfig": {"gpuDriverVersion": "DEFAULT"}}]}
    props = {"cluster": "dev", "name": "infer", "nodeConfig": config}
    if management is not None:
        props["management"] = management
    return Resource.of("gcp:container/nodePool:NodePool", "gke-infer", props)


@pytest.mark.parametrize("management, fires", [(None, False), ({"autoUpgrade": True}, False),
                                               ({"autoRepair": True}, False), ({"autoRepair": False}, True)])
def test_a_gke_gpu_pool_repairs_unless_told_not_to(check, management, fires):
    pool = gke_gpu_pool(management)
    diags = check([pool])
    assert ((REPAIR, pool.urn) in fired(diags)) is fires
    if fires:
        assert ("gcp:container/nodePool:NodePool 'infer': management.autoRepair: a GPU pool with auto-repair off"
                in message(diags, REPAIR))


def karpenter_release(gates=None):
    values = {"settings": {"clusterName": "prod", **({"featureGates": gates} if gates is not None else {})}}
    return Resource.of(HELM, "karpenter", {"chart": "oci://public.ecr.aws/karpenter/karpenter", "version": "1.14.1",
                                           "namespace": "kube-system", "values": values})


def gpu_node_pool():
    return ours("kinfer", "gpu-inference", req(CAPACITY, "In", "on-demand"),
                req("node.kubernetes.io/instance-type", "In", "g6.xlarge"), gpu_model="nvidia-l4",
                limits={"cpu": "8", "memory": "32Gi", GPU: "2"}, policy="WhenEmptyOrUnderutilized")


@pytest.mark.parametrize("release, fires", [(None, False), (karpenter_release(), True),
                                            (karpenter_release({"nodeRepair": False}), True),
                                            (karpenter_release({"nodeRepair": True}), False)],
                         ids=["no-release", "chart-default", "gate-off", "gate-on"])
def test_a_karpenter_gpu_nodepool_is_judged_by_the_karpenter_release(check, release, fires):
    nodepool = gpu_node_pool()
    diags = check(golden().add(nodepool, *([release] if release else [])))
    assert ((REPAIR, nodepool.urn) in fired(diags)) is fires
    if fires:
        assert message(diags, REPAIR).startswith(
            "NodePool 'kinfer': values.settings.featureGates.nodeRepair of the Karpenter "
            "release 'karpenter': a GPU pool with auto-repair off")
