"""Verdicts and summaries over a stack's resources: fixed reason order, misconfigured workloads,
unknowns at preview, clusters and class resolution."""
import pytest

from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import StackModel
from nodepools.inventory.values import UNKNOWN
from nodepools.placement import Fit, Reason, analyze as analyze_model, judge
from placement_builders import CLASS_KEY, EKS, GPU_TAINT, class_taint, container, pod
from suite_dates import PINNED

CLUSTER = "aws:eks/cluster:Cluster"
PROVIDER = "pulumi:providers:kubernetes"


def analyze(resources):
    """The placement report of the stack model of ``resources`` (the date plays no part in placement)."""
    return analyze_model(StackModel(resources, today=PINNED))


def node_group(name, types, taints=(), labels=None, spot=False, cluster="prod", deps=()):
    props = {"clusterName": cluster, "nodeGroupName": name, "instanceTypes": list(types),
             "capacityType": "SPOT" if spot else "ON_DEMAND", "labels": {"nodepools.io/pool": name, **(labels or {})},
             "taints": list(taints)}
    return Resource.of(EKS, name, props, urn=f"urn:pulumi:dev::p::{EKS}::{name}", dependencies=deps)


def workload(name, spec, kind="apps/v1:Deployment", namespace="default", labels=None, provider="",
             property_dependencies=None):
    template = {"metadata": {"labels": labels or {}}, "spec": spec}
    body = {"replicas": 2.0, "template": template} if "Deployment" in kind else {"template": template}
    type_ = f"kubernetes:{kind}"
    return Resource.of(type_, name, {"metadata": {"name": name, "namespace": namespace}, "spec": body},
                       urn=f"urn:pulumi:dev::p::{type_}::{name}", provider=provider,
                       property_dependencies=property_dependencies)


WEB = node_group("web", ["m6i.xlarge"], labels={CLASS_KEY: "resident"})
JOBS = node_group("jobs", ["c6i.2xlarge"], [class_taint("batch")], {CLASS_KEY: "batch"}, spot=True)
INFER = node_group("infer", ["g6.xlarge"], [class_taint("gpu-inference"), GPU_TAINT],
                   {CLASS_KEY: "gpu-inference", "nvidia.com/gpu.present": "true"})
TRAIN = node_group("train", ["p4d.24xlarge"], [class_taint("gpu-training"), GPU_TAINT],
                   {CLASS_KEY: "gpu-training", "nvidia.com/gpu.present": "true"}, spot=True)
POOLS = [WEB, JOBS, INFER, TRAIN]
TOLERATE_INFER = {"key": CLASS_KEY, "operator": "Equal", "value": "gpu-inference", "effect": "NoSchedule"}


def cell(report, workload_name, pool_name):
    v = report.verdict(workload_name, pool_name)
    return v.fit, v.reason, v.detail


def test_reasons_come_in_fixed_order_taint_first():
    spec = pod(nodeSelector={"nodepools.io/pool": "web"})  # selector fails on jobs too, but the taint is reported
    report = analyze([JOBS, workload("w", spec)])
    assert cell(report, "w", "jobs") == (Fit.NO, Reason.TAINT, "untolerated taint nodepools.io/pool-class=batch:NoSchedule")


def test_node_selector_to_gpu_pool_without_toleration_hits_the_class_taint_then_the_gpu_taint():
    selector = {"nodepools.io/pool": "infer"}
    report = analyze([*POOLS, workload("bare", pod(nodeSelector=selector)),
                      workload("class-only", pod(nodeSelector=selector, tolerations=[TOLERATE_INFER])),
                      workload("gpu", pod(container("1", "4Gi", gpu="1"), nodeSelector=selector,
                                          tolerations=[TOLERATE_INFER]))])
    assert cell(report, "bare", "infer") == (
        Fit.NO, Reason.TAINT, "untolerated taint nodepools.io/pool-class=gpu-inference:NoSchedule")
    assert cell(report, "class-only", "infer") == (Fit.NO, Reason.TAINT, "untolerated taint nvidia.com/gpu=present:NoSchedule")
    # ExtendedResourceToleration: requesting nvidia.com/gpu tolerates the GPU taint.
    assert cell(report, "gpu", "infer") == (Fit.FITS, None, "")
    assert cell(report, "gpu", "web") == (Fit.NO, Reason.NODE_SELECTOR,
                                          "nodeSelector nodepools.io/pool=infer: the pool's nodes have nodepools.io/pool=web")
    assert [report.summary(n).unschedulable for n in ("bare", "class-only", "gpu")] == [True, True, False]


def test_toleration_without_selector_on_a_cpu_job_reaches_gpu_and_spot_pools():
    tolerations = [{"key": CLASS_KEY, "operator": "Exists"}, {"key": "nvidia.com/gpu", "operator": "Exists"}]
    report = analyze([*POOLS, workload("crunch", pod(container("2", "4Gi"), tolerations=tolerations), "batch/v1:Job",
                                       labels={"nodepools.io/workload-class": "batch"}),
                      workload("api", pod(container("1", "2Gi"), tolerations=tolerations),
                               labels={"nodepools.io/workload-class": "resident"})])
    crunch, api = report.summary("crunch"), report.summary("api")
    assert (crunch.reachable, crunch.gpu_pools_without_gpu, crunch.spot_pools_while_resident) == (
        ("web", "jobs", "infer", "train"), ("infer", "train"), ())
    assert (api.workload_class.value, api.spot_pools_while_resident, api.gpu_pools_without_gpu) == (
        "resident", ("jobs", "train"), ("infer", "train"))


def test_request_larger_than_any_node_is_unschedulable_naming_resource_and_numbers():
    report = analyze([*POOLS, workload("huge", pod(container("1", "4096Gi"), tolerations=[{"operator": "Exists"}]))])
    summary = report.summary("huge")
    assert summary.unschedulable is True and summary.reachable == ()
    assert summary.why_not == (
        "web: too big for m6i.xlarge: requests memory 4096.00Gi > allocatable 13.30Gi",
        "jobs: too big for c6i.2xlarge: requests memory 4096.00Gi > allocatable 13.30Gi",
        "infer: too big for g6.xlarge: requests memory 4096.00Gi > allocatable 13.30Gi",
        # 1152 GiB - (1 + 0.8 + 0.8 + 6.72 + 1024 x 2%) GiB - 100 MiB
        "train: too big for p4d.24xlarge: requests memory 4096.00Gi > allocatable 1122.10Gi")


@pytest.mark.parametrize("spec, expected", [
    pytest.param(pod(container("1"), initContainers=[container("3")]),
                 (Fit.NO, Reason.SIZE, "too big for m6i.large: requests cpu 3 > allocatable 1.93"),
                 id="init containers: the pod needs the max of any init container and the app containers"),
    pytest.param(pod(container("1.5"), initContainers=[container("1")]), (Fit.FITS, None, ""),
                 id="a regular init container finishes before the app starts: max, not sum"),
    pytest.param(pod(container("1.5"), initContainers=[container("1", restartPolicy="Always")]),
                 (Fit.NO, Reason.SIZE, "too big for m6i.large: requests cpu 2.5 > allocatable 1.93"),
                 id="a sidecar (restartPolicy Always) runs beside the app: sum"),
])
def test_effective_requests(spec, expected):
    pool = node_group("small", ["m6i.large"])
    report = analyze([pool, workload("w", spec)])
    assert cell(report, "w", "small") == expected


def test_unknown_taints_are_undecided_but_a_definite_mismatch_still_decides():
    unknown = Resource.of(EKS, "jobs", {**JOBS.props, "taints": UNKNOWN}, urn=JOBS.urn)
    report = analyze([unknown, workload("plain", pod()),
                      workload("pinned", pod(nodeSelector={"nodepools.io/pool": "web"}))])
    assert cell(report, "plain", "jobs") == (Fit.UNKNOWN, Reason.TAINT, "cannot judge the pool's taints at preview")
    assert report.summary("plain").unschedulable is UNKNOWN
    assert cell(report, "pinned", "jobs")[:2] == (Fit.NO, Reason.NODE_SELECTOR)
    assert report.summary("pinned").unschedulable is True


def test_unknown_workload_fields_never_give_a_false_verdict():
    spec = pod({"name": "c", "resources": UNKNOWN}, tolerations=UNKNOWN)
    report = analyze([*POOLS, workload("w", spec)])
    assert {v.pool.name: (v.fit, v.reason) for v in report.verdicts} == {
        "web": (Fit.UNKNOWN, Reason.SIZE), "jobs": (Fit.UNKNOWN, Reason.TAINT),
        "infer": (Fit.UNKNOWN, Reason.TAINT), "train": (Fit.UNKNOWN, Reason.TAINT)}
    summary = report.summary("w")
    assert (summary.unschedulable, summary.requests_gpu, summary.gpu_pools_without_gpu) == (UNKNOWN, UNKNOWN, ())


def test_judge_requires_both_selector_and_affinity():
    spec = pod(nodeSelector={CLASS_KEY: "resident"}, affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "nodepools.io/pool", "operator": "NotIn", "values": ["web"]}]}]}}})
    from nodepools.inventory.pools import read_pool
    web = read_pool(EKS, WEB.props, WEB.urn, "web")
    judgement = judge(spec, web)
    assert (judgement.fit, judgement.reason) == (Fit.NO, Reason.AFFINITY)


def test_a_stack_without_pools_judges_nothing():
    report = analyze([workload("w", pod())])
    assert (report.verdicts, report.summary("w").unschedulable) == ((), UNKNOWN)


def test_class_resolves_from_the_stacks_namespaces_named_or_depended_on():
    def namespace(name, cls):
        return Resource.of("kubernetes:core/v1:Namespace", f"ns-{name}",
                           {"metadata": {"name": name, "labels": {"nodepools.io/workload-class": cls}}})
    serving, other = namespace("serving", "gpu-inference"), namespace("other", "resident")
    tolerate_all = [{"operator": "Exists"}]
    # "c" names its namespace by the Namespace's output: unknown at preview, a property dependency on metadata.
    resources = [*POOLS, serving, other, workload("a", pod(tolerations=tolerate_all), namespace="serving"),
                 workload("b", pod(tolerations=tolerate_all), namespace="other"),
                 workload("c", pod(tolerations=tolerate_all), namespace=UNKNOWN,
                          property_dependencies={"metadata": [other.urn]}),
                 workload("d", pod(tolerations=tolerate_all), namespace="elsewhere")]
    report = analyze(resources)
    assert report.summary("a").workload_class.value == "gpu-inference"
    assert report.summary("a").spot_pools_while_resident == ("jobs", "train")
    assert report.summary("b").workload_class.value == "resident"
    assert (report.summary("c").namespace, report.summary("c").workload_class.value) == ("other", "resident")
    assert report.summary("c").spot_pools_while_resident == ("jobs", "train")
    assert (report.summary("d").namespace, report.summary("d").workload_class) == ("elsewhere", None)


def test_each_pod_template_of_a_gang_job_must_fit():
    jobset = Resource.of("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "gang", {
        "metadata": {"name": "gang"}, "spec": {"replicatedJobs": [
            {"name": "driver", "replicas": 1.0, "template": {"spec": {"template": {"spec": pod()}}}},
            {"name": "workers", "replicas": 2.0, "template": {"spec": {"parallelism": 4.0, "template": {
                "spec": pod(container("1", "1Gi", gpu="16"), tolerations=[{"key": CLASS_KEY, "operator": "Exists"}])}}}}]}},
        urn="urn:js")
    report = analyze([*POOLS, jobset])
    assert report.summary("gang").unschedulable is True
    assert report.verdict("gang", "web", "driver").fit is Fit.FITS
    assert report.summary("gang").why_not[-1] == (
        "train/workers: too big for p4d.24xlarge: requests nvidia.com/gpu 16 > allocatable 8")


def cluster(name):
    return Resource.of(CLUSTER, name, {}, urn=f"urn:pulumi:dev::p::{CLUSTER}::{name}")


def provider(name, cluster_urn):
    return Resource.of(PROVIDER, name, {"kubeconfig": UNKNOWN}, urn=f"urn:pulumi:dev::p::{PROVIDER}::{name}",
                       dependencies=[cluster_urn])


def test_workloads_are_judged_against_the_pools_of_their_own_cluster():
    a, b = cluster("a"), cluster("b")
    pa, pb = provider("ka", a.urn), provider("kb", b.urn)
    big_a = node_group("big-a", ["m6i.8xlarge"], cluster=UNKNOWN, deps=[a.urn])
    small_b = node_group("small-b", ["m6i.large"], cluster=UNKNOWN, deps=[b.urn])
    wide = container("8", "16Gi")
    report = analyze([a, b, pa, pb, big_a, small_b,
                      workload("in-a", pod(wide), provider=pa.urn),
                      workload("in-b", pod(wide), provider=pb.urn),
                      workload("nowhere", pod(wide))])
    assert [v.pool.name for v in report.verdicts if v.workload.name == "in-a"] == ["big-a"]
    assert report.summary("in-a").reachable == ("big-a",)
    assert report.summary("in-b").unschedulable is True
    # Cluster unknown with two clusters: judged everywhere, but only "fits nowhere" would be concluded.
    nowhere = report.summary("nowhere")
    assert (nowhere.unschedulable, nowhere.reachable) == (UNKNOWN, ())
    assert {v.pool.name: v.same_cluster for v in report.verdicts if v.workload.name == "nowhere"} == {
        "big-a": UNKNOWN, "small-b": UNKNOWN}


def test_a_pool_whose_taints_are_unknown_at_preview_cannot_be_judged_by_taint():
    from pulumi.runtime import rpc

    unknown_taints = Resource.of(EKS, "jobs", {**JOBS.props, "taints": UNKNOWN}, urn=JOBS.urn)
    report = analyze([WEB, unknown_taints, workload("w", pod())])
    assert cell(report, "w", "web") == (Fit.FITS, None, "")
    assert cell(report, "w", "jobs") == (Fit.UNKNOWN, Reason.TAINT, "cannot judge the pool's taints at preview")
    # The engine's sentinel, as a hand-built resource may carry it, reads the same.
    assert Resource.of(EKS, "jobs", {**JOBS.props, "taints": rpc.UNKNOWN}).props == unknown_taints.props
