"""The custom resources people run GPU work with are workloads (docs/design.md section 8), over the real pack:
LeaderWorkerSet, RayCluster / RayJob / RayService, MPIJob, TrainJob (through its runtime), Volcano Job and
KServe InferenceService. Each is judged at the exact path of its pod templates, counts its pods, and needs
a gang when it is multi-pod and requests GPUs."""
import copy

import pytest
from policy_builders import (CLASS, GPU, PROBE, UNKNOWN_WIRE, Resource, container, fired, golden, pod_template,
                             toleration, workload)

from nodepools.offline.engine import run_program

QUEUE = {"kueue.x-k8s.io/queue-name": "training"}
TRAIN_TOLERATIONS = [toleration(CLASS, "gpu-training"), toleration(GPU, "present")]
BLANKET = {"operator": "Exists"}
RUNTIME = "kubernetes:trainer.kubeflow.org/v1alpha1:ClusterTrainingRuntime"


def gpu_pod(gpus: int = 2) -> dict:
    """A gpu-training pod every rule passes on the golden stack's train pool."""
    return pod_template("gpu-training", {
        "priorityClassName": "nodepools-gpu-training", "nodeSelector": {"nodepools.io/pool": "train"},
        "tolerations": list(TRAIN_TOLERATIONS), "containers": [container("8", "64Gi", gpus)]}, annotations={
            "nodepools.io/checkpoint-interval": "15m",
            "kueue.x-k8s.io/podset-preferred-topology": "topology.k8s.aws/network-node-layer-3"})


def ray_cluster(workers: float = 2.0) -> dict:
    return {"headGroupSpec": {"rayStartParams": {}, "template": gpu_pod()},
            "workerGroupSpecs": [{"groupName": "gpu", "replicas": workers, "template": gpu_pod()}]}


def runtime(name: str = "torch-distributed", **spec) -> Resource:
    job = {"name": "node", "replicas": 1.0, "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": gpu_pod()}}}
    return Resource.of(RUNTIME, name, {"metadata": {"name": name}, "spec": {
        "mlPolicy": {"numNodes": 1.0, "torch": {"numProcPerNode": "auto"}},
        "template": {"spec": {"replicatedJobs": [job]}}, **spec}})


# kind -> (type token, name, spec, the path of the template edited below)
KINDS = {
    "LeaderWorkerSet": ("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "serve", {
        "replicas": 1.0, "leaderWorkerTemplate": {"size": 2.0, "workerTemplate": gpu_pod()}},
        "spec.leaderWorkerTemplate.workerTemplate.spec"),
    "RayCluster": ("kubernetes:ray.io/v1:RayCluster", "raycluster", ray_cluster(),
                   "spec.workerGroupSpecs[0].template.spec"),
    "RayJob": ("kubernetes:ray.io/v1:RayJob", "rayjob", {"entrypoint": "python train.py",
                                                          "rayClusterSpec": ray_cluster()},
               "spec.rayClusterSpec.workerGroupSpecs[0].template.spec"),
    "RayService": ("kubernetes:ray.io/v1:RayService", "rayservice", {"rayClusterConfig": ray_cluster()},
                   "spec.rayClusterConfig.workerGroupSpecs[0].template.spec"),
    "MPIJob": ("kubernetes:kubeflow.org/v2beta1:MPIJob", "mpi", {"mpiReplicaSpecs": {
        "Launcher": {"replicas": 1.0, "template": gpu_pod()}, "Worker": {"replicas": 2.0, "template": gpu_pod()}}},
        "spec.mpiReplicaSpecs.Worker.template.spec"),
    "Job": ("kubernetes:batch.volcano.sh/v1alpha1:Job", "vcjob", {"minAvailable": 3.0, "tasks": [
        {"name": "worker", "replicas": 3.0, "template": gpu_pod()}]}, "spec.tasks[0].template.spec"),
    "TrainJob": ("kubernetes:trainer.kubeflow.org/v1alpha1:TrainJob", "finetune-llm", {
        "runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2.0}},
        "ClusterTrainingRuntime 'torch-distributed' spec.template.spec.replicatedJobs[node].template.spec.template."
        "spec"),
}


def custom(kind: str, labels: dict | None = None, edit=None) -> Resource:
    type_, name, spec, _ = KINDS[kind]
    spec = copy.deepcopy(spec)
    if edit:
        edit(spec)
    return workload(type_, name, "training", spec, labels=labels)


def the_template(kind: str, spec: dict) -> dict:
    """The pod spec at the kind's edited path."""
    return {
        "LeaderWorkerSet": lambda: spec["leaderWorkerTemplate"]["workerTemplate"],
        "RayCluster": lambda: spec["workerGroupSpecs"][0]["template"],
        "RayJob": lambda: spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"],
        "RayService": lambda: spec["rayClusterConfig"]["workerGroupSpecs"][0]["template"],
        "MPIJob": lambda: spec["mpiReplicaSpecs"]["Worker"]["template"],
        "Job": lambda: spec["tasks"][0]["template"],
    }[kind]()["spec"]


def stack(*resources: Resource):
    return golden().add(runtime(), *resources)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_with_a_queue_is_clean(check, kind):
    """Compliant pods, a Kueue queue on the CR: every rule passes (Volcano's Job is its own gang)."""
    assert fired(check(stack(custom(kind, labels=None if kind == "Job" else QUEUE)))) == set()


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"TrainJob"}))
def test_a_blanket_toleration_in_a_custom_resource_is_reported_at_its_path(check, kind):
    res = custom(kind, QUEUE, lambda spec: the_template(kind, spec)["tolerations"].append(BLANKET))
    diags = check(stack(res))
    blanket = [d for d in diags if d.policy == "no-blanket-tolerations"]
    assert [d.urn for d in blanket] == [res.urn]
    name, path = KINDS[kind][1], KINDS[kind][3]
    assert f"{kind} '{name}' in namespace 'training': {path}.tolerations[2]: an empty key with operator Exists " \
           "tolerates every taint" in blanket[0].message


def test_a_blanket_toleration_in_a_training_runtime_is_reported_on_the_runtime(check):
    """A resource policy judges the runtime, where the TrainJobs' pod templates are written."""
    bad = runtime()
    bad.props["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"][
        "tolerations"].append(BLANKET)
    diags = check(golden().add(bad, custom("TrainJob", QUEUE)))
    blanket = [d for d in diags if d.policy == "no-blanket-tolerations"]
    assert [d.urn for d in blanket] == [bad.urn]
    assert "ClusterTrainingRuntime 'torch-distributed': spec.template.spec.replicatedJobs[node].template.spec." \
           "template.spec.tolerations[2]: an empty key with operator Exists tolerates every taint" in blanket[0].message
    # The stack rules judge the TrainJob's pods through the runtime, at the runtime's path.
    approval = next(d for d in diags if d.policy == "toleration-approval")
    assert approval.urn == custom("TrainJob").urn
    assert approval.message.split("\n")[1].startswith(
        "TrainJob 'finetune-llm' in namespace 'training': ClusterTrainingRuntime 'torch-distributed' spec.template."
        "spec.replicatedJobs[node].template.spec.template.spec.tolerations: tolerates 3 taints that are not of its "
        "own class (gpu-training)")


def test_a_gpu_worker_that_tolerates_no_gpu_pool_fits_nowhere(check):
    res = custom("RayJob", QUEUE, lambda spec: the_template("RayJob", spec).pop("tolerations"))
    diags = check(stack(res))
    assert fired(diags) == {("schedulable", res.urn)}
    assert diags[0].message.split("\n")[1].startswith(
        "RayJob 'rayjob' in namespace 'training': spec.rayClusterSpec.workerGroupSpecs[0].template.spec: fits no "
        "pool of its cluster")


def test_a_cpu_submitter_with_the_gpu_toleration_is_reported(check):
    submitter = pod_template("gpu-training", {"priorityClassName": "nodepools-gpu-training",
                                              "restartPolicy": "Never", "tolerations": list(TRAIN_TOLERATIONS),
                                              "nodeSelector": {"nodepools.io/pool": "train"},
                                              "containers": [container("1", "1Gi")]},
                             annotations={"nodepools.io/checkpoint-interval": "15m"})
    res = custom("RayJob", QUEUE, lambda spec: spec.update(submitterPodTemplate=submitter))
    diags = check(stack(res))
    assert fired(diags) == {("gpu-toleration-needs-gpu", res.urn), ("gpu-nodes-gpu-only", res.urn)}
    messages = {d.policy: d.message.split("\n")[1] for d in diags}
    assert messages["gpu-toleration-needs-gpu"].startswith(
        "RayJob 'rayjob' in namespace 'training': spec.submitterPodTemplate.spec.containers[].resources: tolerates "
        "nvidia.com/gpu=present:NoSchedule (spec.submitterPodTemplate.spec.tolerations[1]) and tolerates "
        "nodepools.io/pool-class=gpu-training:NoSchedule (spec.submitterPodTemplate.spec.tolerations[0]) and selects "
        "GPU nodes but requests no nvidia.com/gpu")
    assert messages["gpu-nodes-gpu-only"].startswith(
        "RayJob 'rayjob' in namespace 'training': spec.submitterPodTemplate.spec: requests no nvidia.com/gpu yet can "
        "land on GPU pool(s) 'train'")


GANG_MISSING = "pods requesting GPUs and no gang label or scheduling group, so they start one by one: a partial " \
               "gang holds GPUs while it waits for the rest"


@pytest.mark.parametrize("kind,pods", [("LeaderWorkerSet", 2), ("RayCluster", 3), ("RayJob", 3), ("MPIJob", 3),
                                       ("TrainJob", 2)])
def test_a_multi_pod_gpu_custom_resource_without_a_gang_is_reported(check, kind, pods):
    res = custom(kind)
    diags = check(stack(res))
    assert fired(diags) == {("gang-scheduling", res.urn)}
    name = KINDS[kind][1]
    assert f"{kind} '{name}' in namespace 'training': metadata.labels: {pods} {GANG_MISSING}" in diags[0].message
    # A queue label on a pod template serves as well as one on the CR.
    if kind != "TrainJob":
        labelled = custom(kind)
        for template in _templates(labelled):
            template["metadata"]["labels"].update(QUEUE)
        assert fired(check(stack(labelled))) == set()


def _templates(res: Resource) -> list[dict]:
    spec = res.props["spec"]
    cluster = spec.get("rayClusterSpec", spec)
    found = [cluster.get("headGroupSpec", {}).get("template")] + [g["template"] for g in
                                                                 cluster.get("workerGroupSpecs", [])]
    found += [r["template"] for r in spec.get("mpiReplicaSpecs", {}).values()]
    found += [spec["leaderWorkerTemplate"]["workerTemplate"]] if "leaderWorkerTemplate" in spec else []
    return [t for t in found if t]


def test_a_ray_job_on_an_existing_cluster_runs_no_pod_of_its_own(check):
    res = custom("RayJob", edit=lambda spec: (spec.pop("rayClusterSpec"), spec.update(
        clusterSelector={"ray.io/cluster": "shared"})))
    assert check(golden().add(res)) == []
    # A JobSet with no replicated jobs runs nothing either, and says so.
    empty = workload("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "empty", "training", {"replicatedJobs": []})
    diags = check(golden().add(empty))
    assert fired(diags) == {("schedulable", empty.urn)}
    assert "JobSet 'empty' in namespace 'training': spec.replicatedJobs: declares no pod template" in diags[0].message


def test_worker_groups_unknown_at_preview_are_not_judged(check):
    res = custom("RayCluster", QUEUE, lambda spec: spec.update(workerGroupSpecs=UNKNOWN_WIRE))
    diags = check(stack(res))
    assert fired(diags) == set()
    notes = {d.policy: d.message for d in diags if d.cannot_judge}
    assert "RayCluster 'raycluster' in namespace 'training': cannot judge spec.workerGroupSpecs[*].template.spec." \
           "tolerations during preview" in notes["no-blanket-tolerations"]
    assert "RayCluster 'raycluster' in namespace 'training': cannot judge pod count (replicas/parallelism) during " \
           "preview" in notes["gang-scheduling"]


def test_the_class_comes_from_the_custom_resource_when_its_pod_templates_have_none(check):
    def unlabel(spec):
        for replica in spec["mpiReplicaSpecs"].values():
            replica["template"]["metadata"]["labels"].pop("nodepools.io/workload-class")
    res = custom("MPIJob", {**QUEUE, "nodepools.io/workload-class": "gpu-training"}, unlabel)
    res.props["metadata"]["namespace"] = "default"  # no class there
    assert fired(check(stack(res))) == set()
    res.props["metadata"]["labels"].pop("nodepools.io/workload-class")
    diags = check(stack(res))
    assert fired(diags) == {("workload-class-declared", res.urn), ("toleration-approval", res.urn)}
    declared = next(d for d in diags if d.policy == "workload-class-declared")
    assert "MPIJob 'mpi' in namespace 'default': spec.mpiReplicaSpecs.Launcher.template.metadata.labels: no " \
           "nodepools.io/workload-class label on the pod template, the workload or its namespace" in declared.message


def test_a_leader_worker_set_of_single_pod_groups_is_no_gang(check):
    """Each group is a gang: size 1 with three replicas is three independent pods."""
    res = custom("LeaderWorkerSet", edit=lambda spec: (spec.update(replicas=3.0),
                                                       spec["leaderWorkerTemplate"].update(size=1.0)))
    assert fired(check(stack(res))) == set()


def test_a_leader_worker_set_counts_its_group_size(check):
    leader = gpu_pod()
    res = custom("LeaderWorkerSet", edit=lambda spec: (spec.update(replicas=2.0), spec["leaderWorkerTemplate"].update(
        size=4.0, leaderTemplate=leader)))
    diags = check(stack(res))
    assert fired(diags) == {("gang-scheduling", res.urn)}
    assert f"metadata.labels: 4 {GANG_MISSING}" in diags[0].message


@pytest.mark.parametrize("minimum,gang", [(3.0, True), (None, True), (2.0, False)])
def test_volcano_min_available_must_cover_every_pod(check, minimum, gang):
    def edit(spec):
        if minimum is None:
            spec.pop("minAvailable")  # Volcano's webhook defaults it to the sum of the tasks' replicas
        else:
            spec["minAvailable"] = minimum
    res = custom("Job", edit=edit)
    diags = check(stack(res))
    if gang:
        assert fired(diags) == set()
        return
    assert fired(diags) == {("gang-scheduling", res.urn)}
    assert "Job 'vcjob' in namespace 'training': metadata.labels: 3 pods requesting GPUs and Volcano's minimum 2 " \
           "of 3 pods (spec.minAvailable) lets part of them start, so they start one by one" in diags[0].message
    assert diags[0].message.endswith("(coscheduling), or set spec.minAvailable to 3 (Volcano)")


def test_a_volcano_job_under_another_scheduler_needs_a_gang(check):
    res = custom("Job", edit=lambda spec: spec.update(schedulerName="default-scheduler"))
    diags = check(stack(res))
    assert fired(diags) == {("gang-scheduling", res.urn)}
    assert f"metadata.labels: 3 {GANG_MISSING}" in diags[0].message


def test_an_mpijob_on_volcano_with_min_available_is_a_gang(check):
    def edit(spec):
        for replica in spec["mpiReplicaSpecs"].values():
            replica["template"]["spec"]["schedulerName"] = "volcano"
    assert fired(check(stack(custom("MPIJob", edit=edit)))) == set()
    short = custom("MPIJob", edit=lambda spec: (edit(spec), spec.update(
        runPolicy={"schedulingPolicy": {"minAvailable": 1.0}})))
    diags = check(stack(short))
    assert fired(diags) == {("gang-scheduling", short.urn)}
    assert "Volcano's minimum 1 of 3 pods (spec.runPolicy.schedulingPolicy.minAvailable)" in diags[0].message


def test_a_runtime_pod_group_policy_makes_its_train_jobs_gangs(check):
    grouped = runtime(podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 120.0}})
    assert fired(check(golden().add(grouped, custom("TrainJob")))) == set()


def test_train_job_pods_come_from_its_runtime_with_num_nodes_and_resources(check):
    """numNodes sets the trainer step's pods; resourcesPerNode its container's resources."""
    one = custom("TrainJob", edit=lambda spec: spec["trainer"].update(numNodes=1.0))
    assert fired(check(stack(one))) == set()  # a single pod: no gang needed
    # 16 GPUs on one pod: more than a p4d.24xlarge node holds.
    big = {"requests": {"cpu": "8", "memory": "64Gi", GPU: 16.0}, "limits": {"cpu": "8", "memory": "64Gi", GPU: 16.0}}
    huge = custom("TrainJob", QUEUE, lambda spec: spec["trainer"].update(resourcesPerNode=big))
    diags = check(stack(huge))
    assert fired(diags) == {("schedulable", huge.urn)}
    assert "train/node: too big for p4d.24xlarge: requests nvidia.com/gpu 16 > allocatable 8" in diags[0].message


def test_train_job_pod_template_overrides_reach_its_pods(check):
    """A runtime without tolerations, the TrainJob's override adding them to the trainer step."""
    bare = runtime()
    pod = bare.props["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod.pop("tolerations")
    stuck = custom("TrainJob", QUEUE)
    diags = check(golden().add(bare, stuck))
    assert fired(diags) == {("schedulable", stuck.urn)}
    overridden = custom("TrainJob", QUEUE, lambda spec: spec.update(podTemplateOverrides=[
        {"targetJobs": [{"name": "node"}], "spec": {"tolerations": list(TRAIN_TOLERATIONS)}}]))
    assert fired(check(golden().add(bare, overridden))) == set()


def test_a_train_job_whose_runtime_is_not_in_the_stack_cannot_be_judged(check):
    res = custom("TrainJob", QUEUE, lambda spec: spec.update(runtimeRef={"name": "deepspeed", "kind": RUNTIME[
        RUNTIME.rindex(":") + 1:]}))
    diags = check(golden().add(res))
    assert fired(diags) == set()
    notes = {d.policy: d.message for d in diags if d.cannot_judge}
    why = "its runtime ClusterTrainingRuntime 'deepspeed' is not in the stack, so its pods are unknown"
    assert f"TrainJob 'finetune-llm' in namespace 'training': cannot judge spec.runtimeRef during preview: {why}" \
        in notes["schedulable"]
    assert f"TrainJob 'finetune-llm' in namespace 'training': cannot judge pod count (replicas/parallelism) during " \
           f"preview: {why}" in notes["gang-scheduling"]
    # Every rule that cannot judge it says why, whichever field it read.
    assert len(notes) >= 8 and all(why in note for note in notes.values())
    # A namespaced TrainingRuntime is looked up in the TrainJob's namespace.
    local = custom("TrainJob", QUEUE, lambda spec: spec.update(runtimeRef={"name": "torch-distributed",
                                                                           "kind": "TrainingRuntime"}))
    notes = {d.policy: d.message for d in check(stack(local)) if d.cannot_judge}
    assert "its runtime TrainingRuntime 'torch-distributed' in namespace 'training' is not in the stack" \
        in notes["schedulable"]


def inference_service(tolerations: list) -> Resource:
    probes = {"readinessProbe": PROBE, "startupProbe": {**PROBE, "periodSeconds": 10.0, "failureThreshold": 60.0}}
    predictor = {"nodeSelector": {"nodepools.io/pool": "infer"}, "priorityClassName": "nodepools-gpu-inference",
                 "tolerations": tolerations, "model": {"modelFormat": {"name": "huggingface"},
                                                       "resources": container("2", "8Gi", 1)["resources"], **probes}}
    return Resource.of("kubernetes:serving.kserve.io/v1beta1:InferenceService", "chat", {
        "metadata": {"name": "chat", "namespace": "inference"}, "spec": {"predictor": predictor}})


def test_an_inference_service_requesting_a_gpu_is_gpu_inference_and_judged_at_its_predictor(check):
    """With no class label on the predictor, the CR or its namespace ("default"), its GPU makes it gpu-inference;
    in the inference namespace it takes the namespace's class. Its predictor is its pod spec."""
    tolerations = [toleration(CLASS, "gpu-inference"), toleration(GPU, "present")]
    service = inference_service(tolerations)
    del service.props["metadata"]["namespace"]  # "default": no class label there
    assert fired(check(golden().add(service))) == set()
    blanket = inference_service(tolerations + [BLANKET])
    diags = check(golden().add(blanket))
    found = [d for d in diags if d.policy == "no-blanket-tolerations"]
    assert [d.urn for d in found] == [blanket.urn]
    assert "InferenceService 'chat' in namespace 'inference': spec.predictor.tolerations[2]: an empty key with " \
           "operator Exists tolerates every taint" in found[0].message


def test_an_inference_service_model_is_judged_where_it_is_written(check):
    """The model becomes the pod's kserve-container; findings on it point at spec.predictor.model."""
    service = inference_service([toleration(CLASS, "gpu-inference"), toleration(GPU, "present")])
    model = service.props["spec"]["predictor"]["model"]
    model["resources"] = {"requests": {"cpu": "2", "memory": "8Gi", GPU: 1.0}, "limits": {GPU: 1.0}}
    model.pop("readinessProbe")
    diags = check(golden().add(service))
    assert fired(diags) == {("resident-guaranteed-qos", service.urn), ("model-load-probes", service.urn)}
    messages = {d.policy: d.message.split("\n")[1] for d in diags}
    assert messages["resident-guaranteed-qos"].startswith(
        "InferenceService 'chat' in namespace 'inference': spec.predictor.model.resources: not Guaranteed QoS (no "
        "limits.cpu; no limits.memory)")
    assert messages["model-load-probes"].startswith(
        "InferenceService 'chat' in namespace 'inference': spec.predictor.model.readinessProbe: no readinessProbe")


@pytest.mark.parametrize("component", ["ConfigGroup", "ConfigFile"])
def test_a_config_group_rendered_custom_resource_reaches_the_pack(check, tmp_path, component):
    """Children of a ConfigGroup or ConfigFile carry the same type tokens: the pack judges them like typed
    resources."""
    import pulumi_kubernetes as k8s
    import yaml

    bad = custom("RayJob", edit=lambda spec: the_template("RayJob", spec)["tolerations"].append(BLANKET))
    manifest = yaml.safe_dump({"apiVersion": "ray.io/v1", "kind": "RayJob", **bad.props})
    (tmp_path / "ray.yaml").write_text(manifest)
    if component == "ConfigGroup":
        run = run_program(lambda: k8s.yaml.ConfigGroup("ray", yaml=[manifest]))
    else:
        run = run_program(lambda: k8s.yaml.ConfigFile("ray", file=str(tmp_path / "ray.yaml")))
    child = next(r for r in run.resources if r.type == "kubernetes:ray.io/v1:RayJob")
    assert child.parent.endswith(f"kubernetes:yaml:{component}::ray")
    diags = check(golden().add(runtime()).items + tuple([child]))
    assert {d.policy for d in diags if not d.cannot_judge and d.urn == child.urn} >= {
        "no-blanket-tolerations", "gang-scheduling"}
    blanket = next(d for d in diags if d.policy == "no-blanket-tolerations")
    assert "RayJob 'rayjob' in namespace 'training': spec.rayClusterSpec.workerGroupSpecs[0].template.spec." \
           "tolerations[2]: an empty key with operator Exists" in blanket.message


VOLCANO_POD_GROUP = "kubernetes:scheduling.volcano.sh/v1beta1:PodGroup"


def volcano_job(annotations: dict) -> Resource:
    """A batch/v1 Job of 3 GPU pods under the volcano scheduler."""
    pod = gpu_pod()
    pod["spec"]["schedulerName"] = "volcano"
    pod["spec"]["restartPolicy"] = "Never"
    res = workload("kubernetes:batch/v1:Job", "ranks", "training", {"parallelism": 3.0, "template": pod})
    res.props["metadata"]["annotations"] = annotations
    return res


@pytest.mark.parametrize("annotations,group,gang", [
    ({"scheduling.volcano.sh/group-min-member": "3"}, None, True),
    ({"scheduling.volcano.sh/group-min-member": "2"}, None, False),
    ({"scheduling.k8s.io/group-name": "ranks"}, 3.0, True),
    ({"scheduling.k8s.io/group-name": "ranks"}, 1.0, False),
    ({}, None, False),
], ids=["min-member-covers", "min-member-short", "pod-group-covers", "pod-group-short", "no-group"])
def test_volcano_on_a_built_in_kind(check, annotations, group, gang):
    """Pods naming the volcano scheduler are a gang when their PodGroup's size covers every pod."""
    res = volcano_job(annotations)
    extra = [Resource.of(VOLCANO_POD_GROUP, "pg", {"metadata": {"name": "ranks", "namespace": "training"},
                                                   "spec": {"minMember": group}})] if group else []
    diags = check(golden().add(res, *extra))
    if gang:
        assert fired(diags) == set()
        return
    assert fired(diags) == {("gang-scheduling", res.urn)}
    if annotations:
        where = ("annotation scheduling.volcano.sh/group-min-member" if "scheduling.volcano.sh/group-min-member" in
                 annotations else "spec.minMember of Volcano PodGroup 'ranks'")
        minimum = 2 if group is None else 1
        assert f"Job 'ranks' in namespace 'training': metadata.labels: 3 pods requesting GPUs and Volcano's minimum " \
               f"{minimum} of 3 pods ({where}) lets part of them start" in diags[0].message
        assert diags[0].message.endswith(f"or set {where} to 3 (Volcano)")
    else:
        assert f"metadata.labels: 3 {GANG_MISSING}" in diags[0].message


def test_a_volcano_pod_group_outside_the_stack_cannot_be_judged(check):
    res = volcano_job({"scheduling.k8s.io/group-name": "elsewhere"})
    diags = check(golden().add(res))
    assert fired(diags) == set()
    notes = [d.message for d in diags if d.cannot_judge and d.policy == "gang-scheduling"]
    assert "Job 'ranks' in namespace 'training': cannot judge metadata.labels during preview: its gang " \
           "(spec.minMember of Volcano PodGroup 'elsewhere') is unknown" in notes[0]
