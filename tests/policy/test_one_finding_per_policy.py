"""docs/design.md section 8, "One finding per resource and policy": a resource with several offending
elements gets one finding per policy, listing every element with its path."""
from nodepools.policies.registry import POLICIES

from policy_builders import CLASS, GPU, Resource, container, golden, template_spec, toleration, workload
from policy_builders import pod_template

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
BLANKET = {"operator": "Exists"}


def violations(diagnostics) -> list[tuple[str, str, str]]:
    return sorted((d.policy, d.urn.rsplit("::", 1)[-1], d.message.split("\n", 1)[-1]) for d in diagnostics
                  if not d.cannot_judge)


def only(diagnostics, policy: str, name: str) -> list[str]:
    return [m for p, n, m in violations(diagnostics) if (p, n) == (policy, name)]


def tolerating(*tolerations):
    return lambda p: template_spec(p)["tolerations"].extend(tolerations)


def jobset_of_strays() -> Resource:
    """Two roles, each selecting a pool that does not exist."""
    def job(name: str, pool: str) -> dict:
        spec = {"priorityClassName": "nodepools-batch", "restartPolicy": "Never", "nodeSelector": {
            "nodepools.io/pool": pool}, "tolerations": [toleration(CLASS, "batch")], "containers": [container("1", "1Gi")]}
        return {"name": name, "replicas": 1.0, "template": {"spec": {"template": pod_template("batch", spec)}}}
    return workload(JOBSET, "strays", "batch", {"replicatedJobs": [job("a", "nowhere"), job("b", "elsewhere")]})


def test_every_policy_reports_a_resource_at_most_once():
    # The registry's checks all merge their findings per resource (policies.base.one_per_resource).
    assert [p.name for p in POLICIES if not hasattr(p.check, "__wrapped__")] == []


API = "Deployment 'api' in namespace 'services'"
T = "spec.template.spec.tolerations"


def sloppy_api(p: dict) -> None:
    """Two blanket tolerations, a batch one and a GPU one; containers (init included) without limits."""
    spec = template_spec(p)
    spec["tolerations"] = [BLANKET, {"key": CLASS, "operator": "Exists"}, toleration(CLASS, "batch"), toleration(GPU)]
    spec["containers"] = [{"name": "a", "image": "x", "resources": {"requests": {"cpu": "1"}}},
                          {"name": "b", "image": "x"}]
    spec["initContainers"] = [{"name": "init", "image": "x"}]


def sloppy():
    return golden().edit("api", sloppy_api).add(jobset_of_strays())


def test_every_blanket_toleration_is_listed_in_one_finding(check):
    assert only(check(sloppy()), "no-blanket-tolerations", "api") == [
        f"{API}: 2 problems: {T}[0]: an empty key with operator Exists tolerates every taint, so the pod can land on "
        f"any pool, GPU and spot pools included; {T}[1]: Exists on nodepools.io/pool-class tolerates every pool "
        "class's taint. Fix: list the taints of the pools it must reach, each with key, operator Equal and value; "
        "use operator Equal with value: <the workload's class>"]


def test_every_unapproved_taint_is_listed_with_the_tolerations_that_tolerate_it(check):
    assert only(check(sloppy()), "toleration-approval", "api") == [
        f"{API}: {T}: tolerates 4 taints that are not of its own class (resident) and that namespace 'services' is "
        f"not approved for (nodepools.io/pool-class=batch:NoSchedule at {T}[0] and {T}[1] and {T}[2], "
        f"nodepools.io/pool-class=gpu-inference:NoSchedule at {T}[0] and {T}[1], "
        f"nodepools.io/pool-class=gpu-training:NoSchedule at {T}[0] and {T}[1], "
        f"nvidia.com/gpu=present:NoSchedule at {T}[0] and {T}[3]). Fix: remove those tolerations, or add 'services' "
        "to tolerationApprovals['nodepools.io/pool-class=batch'], ['nodepools.io/pool-class=gpu-inference'], "
        "['nodepools.io/pool-class=gpu-training'], ['nvidia.com/gpu=present'] in the pack config"]


def test_every_gpu_toleration_is_listed_with_its_path(check):
    assert only(check(sloppy()), "gpu-toleration-needs-gpu", "api") == [
        f"{API}: spec.template.spec.containers[].resources: tolerates nvidia.com/gpu=present:NoSchedule ({T}[0] and "
        f"{T}[3]) and tolerates nodepools.io/pool-class=gpu-inference:NoSchedule ({T}[0] and {T}[1]) and tolerates "
        f"nodepools.io/pool-class=gpu-training:NoSchedule ({T}[0] and {T}[1]) but requests no nvidia.com/gpu, so it "
        "can take a GPU node without using its GPU. Fix: request nvidia.com/gpu in a container's resources.limits, "
        "or drop the GPU tolerations and selectors"]


def test_every_container_without_limits_is_listed_in_one_finding(check):
    assert only(check(sloppy()), "resident-guaranteed-qos", "api") == [
        f"{API}: spec.template.spec.initContainers[0].resources, spec.template.spec.containers[0].resources, "
        "spec.template.spec.containers[1].resources: not Guaranteed QoS (no limits.cpu; no limits.memory), so the "
        "pod is evicted and throttled before lower classes. Fix: set cpu and memory limits equal to requests"]


def test_every_template_that_fits_no_pool_is_listed_in_one_finding(check):
    def why(role: str, pool: str) -> str:
        return (f"fits no pool of its cluster (web/{role}: nodeSelector nodepools.io/pool={pool}: the pool's nodes "
                f"have nodepools.io/pool=web; jobs/{role}: nodeSelector nodepools.io/pool={pool}: the pool's nodes have "
                f"nodepools.io/pool=jobs; infer/{role}: untolerated taint nodepools.io/pool-class=gpu-inference:"
                f"NoSchedule; train/{role}: untolerated taint nodepools.io/pool-class=gpu-training:NoSchedule)")
    assert only(check(sloppy()), "schedulable", "strays") == [
        f"JobSet 'strays' in namespace 'batch': 2 problems: spec.replicatedJobs[a].template.spec.template.spec: "
        f"{why('a', 'nowhere')}; spec.replicatedJobs[b].template.spec.template.spec: {why('b', 'elsewhere')}. Fix: "
        "tolerate the target pool's taints, select labels its nodes carry, and request at most one node's "
        "allocatable"]


def test_no_policy_reports_a_resource_twice(check):
    found = violations(check(sloppy().edit("finetune", lambda p: template_spec(p).update(tolerations=[
        BLANKET, BLANKET], containers=[container("8", "64Gi"), container("8", "64Gi")]))))
    pairs = [(policy, name) for policy, name, _ in found]
    assert len(pairs) == len(set(pairs)) and len(pairs) >= 10
