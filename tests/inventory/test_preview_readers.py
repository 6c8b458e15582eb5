"""Readers at preview: an unknown list entry, pod template, label map or pool class reads
as UNKNOWN (never as absent), and a pod the API server would reject says why."""
import pytest

from nodepools.inventory.podspec import container_problem, has_unknown_resources, tolerations
from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import UNKNOWN, known_list
from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import StackModel
from nodepools.inventory.workloads import UNKNOWN_ROLE, read_workload
from nodepools.placement.affinity import affinity_matches
from nodepools.placement.nodelabels import node_labels
from nodepools.vocabulary import PoolClass
from suite_dates import PINNED

UNKNOWN_WIRE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
CLASS = "nodepools.io/workload-class"
DEPLOYMENT, JOBSET = "kubernetes:apps/v1:Deployment", "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
EKS, GKE = "aws:eks/nodeGroup:NodeGroup", "gcp:container/nodePool:NodePool"


@pytest.mark.parametrize("value, expected", [
    ([1, UNKNOWN], UNKNOWN), (UNKNOWN, UNKNOWN), ([1, 2], [1, 2]), (None, []), ("x", []),
])
def test_known_list(value, expected):
    assert known_list(value) == expected


def test_an_unknown_toleration_or_quantity_makes_the_whole_answer_unknown():
    toleration = {"key": "nodepools.io/pool-class", "operator": "Equal", "value": "batch"}
    assert tolerations({"tolerations": [toleration, UNKNOWN]}) is UNKNOWN
    assert tolerations({"tolerations": [toleration, "junk"]}) == [toleration]
    gpu_unknown = {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": UNKNOWN}}}]}
    assert has_unknown_resources(gpu_unknown)
    assert has_unknown_resources({"containers": [{"name": "c"}, UNKNOWN]})
    assert has_unknown_resources(UNKNOWN)
    assert not has_unknown_resources({"containers": [{"name": "c", "resources": {"limits": {"cpu": "1"}}}]})


@pytest.mark.parametrize("spec, expected", [
    ({}, ("containers", "no containers")),
    ({"containers": None}, ("containers", "no containers")),
    ({"containers": []}, ("containers", "an empty containers list")),
    ({"containers": "main"}, ("containers", "not a list of containers (a string)")),
    ({"containers": [{"name": "a"}, 1.0]}, ("containers[1]", "not a container object (a number)")),
    ({"containers": [{"image": "nginx"}]}, ("containers[0]", "a container without a name")),
    ({"containers": [{"name": "a"}], "initContainers": [None]}, ("initContainers[0]", "not a container object (null)")),
    ({"containers": [UNKNOWN, 2.0]}, ("containers[1]", "not a container object (a number)")),
    ({"containers": [UNKNOWN]}, UNKNOWN),
    ({"containers": [{"name": UNKNOWN}]}, UNKNOWN),
    (UNKNOWN, UNKNOWN),
    ({"containers": [{"name": "a"}], "initContainers": []}, None),
])
def test_container_problem_names_the_field_the_api_server_rejects(spec, expected):
    assert container_problem(spec) == expected


def test_an_unknown_pod_template_is_unknown_not_empty():
    props = {"metadata": {"namespace": "shop", "labels": {"team": "a"}}, "spec": {"replicas": 2.0,
                                                                                 "template": UNKNOWN_WIRE}}
    [template] = read_workload(DEPLOYMENT, props, "urn", "web").templates
    assert (template.labels, template.annotations, template.spec, template.pods) == (UNKNOWN, UNKNOWN, UNKNOWN, 2.0)
    workload = read_workload(DEPLOYMENT, props, "urn", "web")
    assert workload.label(CLASS) is UNKNOWN
    shop = Resource.of("kubernetes:core/v1:Namespace", "shop", {"metadata": {"name": "shop", "labels": {CLASS: "resident"}}})
    assert StackModel([shop], today=PINNED).class_of(workload, "shop") is UNKNOWN


def test_unknown_workload_metadata_leaves_namespace_and_labels_unknown():
    props = {"metadata": UNKNOWN_WIRE, "spec": {"template": {"metadata": {}, "spec": {}}}}
    workload = read_workload(DEPLOYMENT, props, "urn", "web")
    assert (workload.name, workload.namespace, workload.labels) == ("web", UNKNOWN, UNKNOWN)
    assert workload.label("kueue.x-k8s.io/queue-name") is UNKNOWN
    # The template's own label still decides before the unknown workload labels.
    labelled = read_workload(DEPLOYMENT, {"metadata": UNKNOWN_WIRE, "spec": {"template": {
        "metadata": {"labels": {CLASS: "batch"}}}}}, "urn", "web")
    assert StackModel([], today=PINNED).class_of(labelled, UNKNOWN) is PoolClass.BATCH


def test_jobset_with_an_unknown_replicated_job_is_one_unknown_template():
    props = {"spec": {"replicatedJobs": [{"name": "w", "replicas": 1.0, "template": {}}, UNKNOWN_WIRE]}}
    [template] = read_workload(JOBSET, props, "urn", "train").templates
    assert (template.role, template.spec, template.pods) == (UNKNOWN_ROLE, UNKNOWN, UNKNOWN)
    assert read_workload(JOBSET, {"spec": {}}, "urn", "train").templates == []


def test_pool_with_an_unknown_taint_entry_or_class_label():
    pool = read_pool(EKS, {"clusterName": "prod", "instanceTypes": ["m6i.large"], "labels": {
        "nodepools.io/pool-class": UNKNOWN_WIRE}, "taints": [UNKNOWN_WIRE]}, "urn", "jobs")
    assert (pool.taints, pool.pool_class, pool.is_gpu) == (UNKNOWN, UNKNOWN, UNKNOWN)
    unlabelled = read_pool(EKS, {"instanceTypes": ["m6i.large"], "labels": UNKNOWN_WIRE}, "urn", "x")
    assert unlabelled.pool_class is UNKNOWN
    plain = read_pool(EKS, {"instanceTypes": ["m6i.large"], "labels": {}}, "urn", "x")
    assert (plain.pool_class, plain.is_gpu, plain.taints) == (None, False, [])


def test_gke_pool_with_unknown_node_config_knows_nothing_of_its_nodes():
    pool = read_pool(GKE, {"name": "jobs", "nodeConfig": UNKNOWN_WIRE}, "urn", "jobs")
    assert (pool.taints, pool.spot, pool.instance_types, pool.gpu_count, pool.pool_class) == (
        UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN)
    accelerators = read_pool(GKE, {"name": "g", "nodeConfig": {"machineType": "n1-standard-8",
                                                               "guestAccelerators": [UNKNOWN_WIRE]}})
    assert (accelerators.gpu_count, accelerators.is_gpu) == (UNKNOWN, UNKNOWN)


def test_an_unknown_node_selector_term_or_requirement_is_undecided_not_a_mismatch():
    labels = node_labels(read_pool(EKS, {"instanceTypes": ["m6i.large"], "labels": {}}, "urn", "x"))
    missing = {"matchExpressions": [{"key": "example.com/none", "operator": "In", "values": ["a"]}]}
    assert affinity_matches([missing, UNKNOWN], labels)[0] is UNKNOWN
    assert affinity_matches([{"matchExpressions": [UNKNOWN]}], labels)[0] is UNKNOWN
    assert affinity_matches([missing], labels)[0] is False


@pytest.mark.parametrize("value, known_str_, known_strs_, known_number_, has_unknown_", [
    ("SPOT", "SPOT", [], None, False),
    (["SPOT", 1.0, None], None, ["SPOT"], None, False),
    ({"a": [UNKNOWN]}, None, [], None, True),
    ([UNKNOWN, "x"], None, UNKNOWN, None, True),
    (UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, True),
    (True, None, [], None, False),
    (3.0, None, [], 3.0, False),
    (None, None, [], None, False),
])
def test_the_tolerant_accessors_take_every_shape(value, known_str_, known_strs_, known_number_, has_unknown_):
    from nodepools.inventory.values import has_unknown, known_number, known_str, known_strs
    assert (known_str(value), known_strs(value), known_number(value), has_unknown(value)) == (
        known_str_, known_strs_, known_number_, has_unknown_)


def _karpenter(requirements, limits=None):
    return {"metadata": {"name": "jobs"}, "spec": {"limits": limits or {"cpu": "80"}, "template": {"spec": {
        "requirements": requirements, "taints": [{"key": "nodepools.io/pool-class", "value": "batch",
                                                  "effect": "NoSchedule"}]}}}}


KARPENTER = "kubernetes:karpenter.sh/v1:NodePool"
CPU_ONLY = {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["c7i.2xlarge"]}


def test_a_karpenter_requirement_with_an_unknown_part_leaves_what_it_could_decide_unknown():
    known = read_pool(KARPENTER, _karpenter([CPU_ONLY]))
    assert (known.is_gpu, known.spot, known.instance_types, known.max_nodes) == (False, False, ["c7i.2xlarge"], 10.0)
    # An unknown key may be any requirement: the capacity type, the instances, any label.
    vague = read_pool(KARPENTER, _karpenter([CPU_ONLY, {"key": UNKNOWN, "operator": "In", "values": ["x"]}]))
    assert (vague.is_gpu, vague.spot, vague.instance_types, vague.labels_partial) == (UNKNOWN, UNKNOWN, UNKNOWN, True)
    # Unknown values of a label the instance table does not describe leave only that label unknown.
    label = read_pool(KARPENTER, _karpenter([CPU_ONLY, {"key": "example.com/team", "operator": "In",
                                                        "values": UNKNOWN}]))
    assert (label.is_gpu, label.instance_types, label.labels["example.com/team"]) == (False, ["c7i.2xlarge"], UNKNOWN)
    # An unknown limit is an unknown size, not zero nodes.
    assert read_pool(KARPENTER, _karpenter([CPU_ONLY], {"cpu": UNKNOWN})).max_nodes is UNKNOWN


@pytest.mark.parametrize("bad", [["x"], {"k": "v"}, 3.0, True, None])
def test_a_karpenter_requirement_of_the_wrong_shape_is_read_not_raised(bad):
    for field in ("key", "operator", "values"):
        read_pool(KARPENTER, _karpenter([{**CPU_ONLY, field: bad}]))
    assert read_pool(EKS, {"capacityType": bad}).spot is False  # mistyped: the default, ON_DEMAND
