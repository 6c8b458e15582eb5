"""training-topology and native gangs through the real pack over gRPC, clean twins included
(docs/design.md section 9.3)."""
from nodepools.inventory.resource import Resource

from policy_builders import (GPU, KUEUE, container, fired, golden, pod_template, template_spec, toleration,
                             workload)
from suite_dates import PINNED

PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
PODGROUP = "kubernetes:scheduling.k8s.io/v1alpha2:PodGroup"


def findings(diags, policy: str) -> list[str]:
    return [d.message.split("\n", 1)[1] for d in diags if d.policy == policy and not d.cannot_judge]


def notes(diags, policy: str) -> list[str]:
    return [d.message for d in diags if d.policy == policy and d.cannot_judge]


def annotations(props: dict) -> dict:
    return props["spec"]["template"]["metadata"]["annotations"]


def test_a_gang_asking_for_a_level_of_its_topology_is_clean(check):
    diags = check(golden())
    assert [d for d in diags if d.policy in ("training-topology", "gang-scheduling")] == []


def test_a_gang_asking_for_no_topology_may_spread_across_the_network(check):
    fx = golden().edit("finetune", lambda p: annotations(p).pop(PREFERRED))
    diags = check(fx)
    assert fired(diags) == {("training-topology", fx.urn("finetune"))}
    assert findings(diags, "training-topology") == [
        "Job 'finetune' in namespace 'training': spec.template.metadata.annotations: spec.template.metadata requests "
        "no topology (kueue.x-k8s.io/podset-required-topology or kueue.x-k8s.io/podset-preferred-topology), so the "
        "ranks may spread across the network of Topology 'aws-network'. Fix: annotate each GPU pod template "
        "kueue.x-k8s.io/podset-preferred-topology: <level>, a level of the Topology (e.g. "
        "topology.k8s.aws/network-node-layer-3)"]


def test_a_level_the_topology_does_not_have_is_reported_at_its_annotation(check):
    fx = golden().edit("finetune", lambda p: annotations(p).update({REQUIRED: "example.com/rack"}))
    assert findings(check(fx), "training-topology") == [
        "Job 'finetune' in namespace 'training': spec.template.metadata.annotations['kueue.x-k8s.io/podset-required-"
        "topology']: spec.template.metadata.annotations['kueue.x-k8s.io/podset-required-topology'] asks for level "
        "'example.com/rack', which Topology 'aws-network' does not have (levels: kubernetes.io/hostname, "
        "topology.k8s.aws/network-node-layer-1, topology.k8s.aws/network-node-layer-2, "
        "topology.k8s.aws/network-node-layer-3), so Kueue never admits it. Fix: annotate each GPU pod template "
        "kueue.x-k8s.io/podset-preferred-topology: <level>, a level of the Topology (e.g. "
        "topology.k8s.aws/network-node-layer-3)"]


def test_a_request_where_no_flavor_has_a_topology_is_never_admitted(check):
    fx = golden().edit("flavor-train", lambda p: p["spec"].pop("topologyName"))
    assert findings(check(fx), "training-topology") == [
        "Job 'finetune' in namespace 'training': spec.template.metadata.annotations['kueue.x-k8s.io/podset-preferred-"
        "topology']: spec.template.metadata.annotations['kueue.x-k8s.io/podset-preferred-topology'] asks for level "
        "'topology.k8s.aws/network-node-layer-3', but no flavor its queue admits through has a Topology, so Kueue "
        "never admits it. Fix: drop the topology annotations, or queue the workload where a flavor has a Topology"]
    # Its clean twin: no Topology, no request.
    assert findings(check(fx.edit("finetune", lambda p: annotations(p).pop(PREFERRED))), "training-topology") == []


def test_a_local_queue_outside_the_stack_cannot_be_judged_naming_it(check):
    diags = check(golden().drop("lq-training"))
    assert fired(diags) == set()
    assert notes(diags, "training-topology") == [
        "can't run policy 'training-topology' from policy pack 'nodepools@v0.0.1' during preview: cannot judge 1 "
        "item(s): Job 'finetune' in namespace 'training': cannot judge labels['kueue.x-k8s.io/queue-name'] during "
        "preview: LocalQueue 'training/training' is not in the stack, so the flavors it admits through are unknown"]


def jobset(annotate_workers: bool) -> Resource:
    worker_meta = {PREFERRED: "topology.k8s.aws/network-node-layer-3"} if annotate_workers else None
    gpu = {"priorityClassName": "nodepools-gpu-training", "restartPolicy": "Never",
           "nodeSelector": {"nodepools.io/pool": "train"},
           "tolerations": [toleration("nodepools.io/pool-class", "gpu-training"), toleration(GPU, "present")],
           "containers": [container("8", "64Gi", 8)]}
    launcher = {"priorityClassName": "nodepools-gpu-training", "restartPolicy": "Never",
                "containers": [container("1", "1Gi")]}

    def job(name: str, spec: dict, annotations: dict | None, parallelism: float) -> dict:
        meta = {"nodepools.io/checkpoint-interval": "15m", **(annotations or {})}
        return {"name": name, "replicas": 1.0, "template": {"spec": {"parallelism": parallelism, "template":
                                                                     pod_template("gpu-training", spec, meta)}}}
    return workload(JOBSET, "pretrain", "training", {"replicatedJobs": [
        job("launcher", launcher, None, 1.0), job("workers", gpu, worker_meta, 2.0), job("eval", gpu, worker_meta, 1.0)]},
        labels={"kueue.x-k8s.io/queue-name": "training"})


def test_every_gpu_template_without_a_request_is_listed_in_one_finding(check):
    diags = check(golden().add(jobset(annotate_workers=False)))
    assert [m.split(": ", 2)[2].split(". Fix")[0] for m in findings(diags, "training-topology")] == [
        "spec.replicatedJobs[workers].template.spec.template.metadata, "
        "spec.replicatedJobs[eval].template.spec.template.metadata request no topology "
        "(kueue.x-k8s.io/podset-required-topology or kueue.x-k8s.io/podset-preferred-topology), so the ranks may "
        "spread across the network of Topology 'aws-network'"]
    assert findings(check(golden().add(jobset(annotate_workers=True))), "training-topology") == []


# --- native gangs -----------------------------------------------------------------------------

def native(props: dict, group: str = "finetune-workers") -> None:
    props["metadata"]["labels"] = {}  # no Kueue queue: the native scheduling group is the gang
    template_spec(props)["schedulingGroup"] = {"podGroupName": group}


def pod_group(policy: dict) -> Resource:
    return Resource.of(PODGROUP, "finetune-workers", {
        "metadata": {"name": "finetune-workers", "namespace": "training"},
        "spec": {"schedulingPolicy": policy}})


def at(version: str):
    return golden().edit("finetune", native).edit("prod", lambda p: p.update(version=version))


def test_a_native_scheduling_group_is_a_gang_on_136(check):
    diags = check(at("1.36").add(pod_group({"gang": {"minCount": 2.0}})))
    assert [d for d in diags if d.policy in ("gang-scheduling", "cluster-version", "training-topology")] == []


def test_a_native_scheduling_group_on_135_needs_136(check):
    """Judged on a day 1.35 is in standard support (test_cluster_version_support.py judges the calendar)."""
    fx = at("1.35").add(pod_group({"gang": {"minCount": 2.0}}))
    assert sorted(findings(check(fx, {"cluster-version": {"today": PINNED.isoformat()}}), "cluster-version")) == [
        "Job 'finetune' in namespace 'training': pod spec.schedulingGroup: uses native gang scheduling (a "
        "scheduling.k8s.io PodGroup, pod spec.schedulingGroup), which needs Kubernetes 1.36; cluster 'prod' runs "
        "1.35. Fix: upgrade cluster 'prod' to 1.36 or newer, or stop using it",
        "PodGroup 'finetune-workers' in namespace 'training': apiVersion: uses native gang scheduling (a "
        "scheduling.k8s.io PodGroup, pod spec.schedulingGroup), which needs Kubernetes 1.36; cluster 'prod' runs "
        "1.35. Fix: upgrade cluster 'prod' to 1.36 or newer, or stop using it"]


def test_a_basic_pod_group_is_no_gang(check):
    fx = at("1.36").add(pod_group({"basic": {}}))
    diags = check(fx)
    assert fired(diags) == {("gang-scheduling", fx.urn("finetune"))}
    assert findings(diags, "gang-scheduling") == [
        "Job 'finetune' in namespace 'training': metadata.labels: 2 pods requesting GPUs and its native scheduling "
        "group names PodGroup 'finetune-workers', whose schedulingPolicy is basic (no gang), so they start one by "
        "one: a partial gang holds GPUs while it waits for the rest. Fix: add label kueue.x-k8s.io/queue-name: "
        "<LocalQueue> (Kueue) or scheduling.x-k8s.io/pod-group: <PodGroup> (coscheduling)"]


def test_a_pod_group_made_by_a_controller_is_taken_as_a_gang(check):
    assert fired(check(at("1.36"))) == set()


def test_kueue_objects_of_the_golden_stack(check):
    """The golden stack's Kueue chain: LocalQueue -> ClusterQueue -> flavor -> Topology (policy_builders)."""
    kinds = sorted(r.type.rsplit(":", 1)[-1] for r in golden().items if r.type.startswith(KUEUE))
    assert kinds == ["ClusterQueue", "LocalQueue", "ResourceFlavor", "Topology"]


def test_placement_knows_which_pools_carry_the_topology_labels(check):
    """The cloud sets them; nodepools declares them: p4d nodes carry the layers, g6 nodes none."""
    def near(props):
        template_spec(props)["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.k8s.aws/network-node-layer-3", "operator": "Exists"}]}]}}}
    fx = golden().edit("finetune", near)
    assert fired(check(fx)) == set()
    on_g6 = fx.edit("train", lambda p: p.update(instanceTypes=["g6.48xlarge"]))
    assert ("schedulable", on_g6.urn("finetune")) in fired(check(on_g6))
