"""nodeSelector and required node affinity: each case names the Kubernetes matching rule it exercises
(labels.Requirement / nodeaffinity.LazyErrorNodeSelector; docs/kubernetes-facts.md section 5)."""
import pytest

from nodepools.inventory.values import UNKNOWN
from nodepools.placement.affinity import affinity_matches, requirement_matches, selector_matches, term_matches
from nodepools.placement.nodelabels import NodeLabels, node_labels
from placement_builders import GKE, eks_pool, gpu_pool
from nodepools.inventory.pools import read_pool

NODE = NodeLabels({"pool": "web", "size": "10", "word": "abc", "topology.kubernetes.io/zone": UNKNOWN},
                  open_prefixes=("cloud.google.com/",))


def req(key, operator, *values):
    return {"key": key, "operator": operator, **({"values": list(values)} if values else {})}


@pytest.mark.parametrize("requirement, expected", [
    pytest.param(req("pool", "In", "web", "jobs"), True, id="In: label value in values"),
    pytest.param(req("pool", "In", "jobs"), False, id="In: label value not in values"),
    pytest.param(req("team", "In", "ml"), False, id="In: an absent label never matches"),
    pytest.param(req("pool", "NotIn", "jobs"), True, id="NotIn: label value not in values"),
    pytest.param(req("pool", "NotIn", "web"), False, id="NotIn: label value in values"),
    pytest.param(req("team", "NotIn", "ml"), True, id="NotIn: matches a node without the label"),
    pytest.param(req("pool", "Exists"), True, id="Exists: label present"),
    pytest.param(req("team", "Exists"), False, id="Exists: label absent"),
    pytest.param(req("team", "DoesNotExist"), True, id="DoesNotExist: matches a node without the label"),
    pytest.param(req("pool", "DoesNotExist"), False, id="DoesNotExist: label present"),
    pytest.param(req("size", "Gt", "9"), True, id="Gt: int64 label value greater (numeric, not string, order)"),
    pytest.param(req("size", "Gt", "10"), False, id="Gt: equal is not greater"),
    pytest.param(req("size", "Lt", "11"), True, id="Lt: int64 label value lower"),
    pytest.param(req("word", "Gt", "1"), False, id="Gt: a label value that does not parse never matches"),
    pytest.param(req("team", "Lt", "5"), False, id="Lt: an absent label never matches"),
    pytest.param(req("size", "Gt", "1", "2"), False, id="Gt: more than one value is a parse error"),
    pytest.param(req("size", "Gt", "x"), False, id="Gt: a non-integer value is a parse error"),
    pytest.param(req("size", "Lt", "-5"), False,
                 id="Lt: NewRequirement also validates values as label values: '-5' is invalid"),
    pytest.param(req("team", "NotIn"), False, id="NotIn: empty values is a parse error, even without the label"),
    pytest.param(req("pool", "In"), False, id="In: empty values is a parse error"),
    pytest.param(req("pool", "Exists", "web"), False, id="Exists: values must be empty"),
    pytest.param(req("pool", "Equals", "web"), False, id="an unsupported operator is a parse error"),
    pytest.param(req("bad key!", "DoesNotExist"), False, id="an invalid label key is a parse error"),
    pytest.param(req("topology.kubernetes.io/zone", "Exists"), True,
                 id="per-node label (zone): present on every node"),
    pytest.param(req("topology.kubernetes.io/zone", "In", "us-east-1a"), UNKNOWN,
                 id="per-node label (zone): value differs between nodes of a pool"),
    pytest.param(req("cloud.google.com/machine-family", "In", "n2"), UNKNOWN,
                 id="a cloud-added label the reader does not model may be present"),
    pytest.param(req("cloud.google.com/gke-spot", "In", "true"), False,
                 id="a modelled cloud label (gke-spot) absent means absent"),
    pytest.param(req("pool", "In", UNKNOWN), UNKNOWN, id="an unknown value cannot be judged"),
    pytest.param(req("team", "In", UNKNOWN), False, id="In on an absent label is False whatever the values"),
    pytest.param(req("team", "DoesNotExist", UNKNOWN), UNKNOWN,
                 id="DoesNotExist with unknown values: may be a parse error"),
])
def test_requirement(requirement, expected):
    assert requirement_matches(requirement, NODE) is expected


def terms(*groups):
    return [{"matchExpressions": list(g)} for g in groups]


@pytest.mark.parametrize("node_terms, expected", [
    pytest.param(None, True, id="no required affinity matches every node"),
    pytest.param(terms([req("pool", "In", "jobs")], [req("pool", "In", "web")]), True,
                 id="nodeSelectorTerms are ORed: the second term matches"),
    pytest.param(terms([req("pool", "In", "web"), req("size", "Lt", "5")]), False,
                 id="expressions in a term are ANDed: one fails"),
    pytest.param([{}], False, id="an empty term matches no node"),
    pytest.param([{"matchExpressions": [], "matchFields": []}], False, id="a term with empty lists matches no node"),
    pytest.param([], False, id="no terms at all matches no node"),
    pytest.param(terms([req("pool", "In")], [req("pool", "Exists")]), True,
                 id="a term with a parse error never matches, the others still count"),
    pytest.param([{"matchFields": [req("metadata.name", "In", "node-1")]}], UNKNOWN,
                 id="matchFields metadata.name: a pool's future node names are unknown"),
    pytest.param([{"matchExpressions": [req("pool", "In", "jobs")],
                   "matchFields": [req("metadata.name", "In", "node-1")]}], False,
                 id="matchFields cannot rescue a term whose expressions fail"),
    pytest.param([{"matchFields": [req("metadata.uid", "In", "x")]}], False,
                 id="matchFields supports only metadata.name: parse error"),
    pytest.param([{"matchFields": [req("metadata.name", "In", "a", "b")]}], False,
                 id="matchFields takes exactly one value: parse error"),
    pytest.param(UNKNOWN, UNKNOWN, id="unknown affinity at preview"),
])
def test_required_affinity(node_terms, expected):
    assert affinity_matches(node_terms, NODE)[0] is expected


def test_affinity_mismatch_explains_each_term():
    answer, why = affinity_matches(terms([req("pool", "In", "jobs")], [req("team", "Exists")]), NODE)
    assert (answer, why) == (False, "required node affinity matches no node of the pool (term 0: pool In ['jobs'] "
                                    "but the nodes have pool=web; term 1: team Exists [] but the nodes have no label team)")


@pytest.mark.parametrize("selector, expected", [
    pytest.param({}, (True, ""), id="nodeSelector: empty selects every node"),
    pytest.param({"pool": "web", "size": "10"}, (True, ""), id="nodeSelector: every key with the same value"),
    pytest.param({"pool": "web", "team": "ml"}, (False, "nodeSelector team=ml: the pool's nodes have no label team"),
                 id="nodeSelector: all must match; a missing label fails"),
    pytest.param({"pool": "jobs"}, (False, "nodeSelector pool=jobs: the pool's nodes have pool=web"),
                 id="nodeSelector: a different value fails"),
    pytest.param({"pool": UNKNOWN}, (UNKNOWN, "nodeSelector pool: its value is unknown until the update runs"),
                 id="nodeSelector: unknown value"),
    pytest.param({"topology.kubernetes.io/zone": "us-east-1a", "pool": "jobs"},
                 (False, "nodeSelector pool=jobs: the pool's nodes have pool=web"),
                 id="nodeSelector: a definite mismatch wins over an undecided key"),
    pytest.param(UNKNOWN, (UNKNOWN, "nodeSelector unknown at preview"), id="nodeSelector: unknown map"),
])
def test_node_selector(selector, expected):
    assert selector_matches(selector, NODE) == expected


def test_node_labels_add_what_kubelet_and_cloud_set():
    labels = node_labels(eks_pool("web", ["m6i.large"], labels={"nodepools.io/pool": "web"}))
    assert labels.lookup("kubernetes.io/os") == (True, "linux")
    assert labels.lookup("beta.kubernetes.io/arch") == (True, "amd64")
    assert labels.lookup("node.kubernetes.io/instance-type") == (True, "m6i.large")
    assert labels.lookup("kubernetes.io/hostname") == (True, UNKNOWN)
    assert labels.lookup("eks.amazonaws.com/nodegroup") == (True, "web")
    assert labels.lookup("eks.amazonaws.com/nodegroup-image") == (UNKNOWN, UNKNOWN)
    assert labels.lookup("nvidia.com/gpu.product") == (False, None)
    # docs/design.md section 6: agents' labels are absent unless nodeLabelSources names their prefix.
    assert node_labels(gpu_pool()).lookup("nvidia.com/gpu.product") == (False, None)
    assert node_labels(gpu_pool()).lookup("feature.node.kubernetes.io/pci-10de.present") == (False, None)
    sourced = node_labels(gpu_pool(), ("nvidia.com/gpu.", "feature.node.kubernetes.io/"))
    assert sourced.lookup("nvidia.com/gpu.product") == (UNKNOWN, UNKNOWN)
    assert sourced.why_unknown("nvidia.com/gpu.product") == (
        "node label nvidia.com/gpu.product is added at run time by an agent (nodeLabelSources 'nvidia.com/gpu.')")


NFD = "feature.node.kubernetes.io/pci-10de.present"


@pytest.mark.parametrize("operator, values, expected", [
    ("In", ["true"], False), ("Exists", None, False), ("NotIn", ["true"], True), ("DoesNotExist", None, True)])
def test_an_undeclared_label_is_absent(operator, values, expected):
    requirement = {"key": NFD, "operator": operator, **({"values": values} if values else {})}
    assert requirement_matches(requirement, node_labels(gpu_pool())) is expected
    assert requirement_matches(requirement, node_labels(gpu_pool(), ("feature.node.kubernetes.io/",))) is UNKNOWN


def test_cannot_judge_wording_names_the_value():
    sourced = node_labels(gpu_pool(), ("feature.node.kubernetes.io/",))
    assert affinity_matches(terms([req(NFD, "In", "true")]), sourced) == (
        UNKNOWN, f"required node affinity: {NFD} In: node label {NFD} is added at run time by an agent "
                 "(nodeLabelSources 'feature.node.kubernetes.io/')")
    assert selector_matches({"kubernetes.io/hostname": "n1"}, node_labels(gpu_pool())) == (
        UNKNOWN, "nodeSelector kubernetes.io/hostname=n1: node label kubernetes.io/hostname is each node's "
                 "own identity")
    assert affinity_matches(terms([req("kubernetes.io/hostname", "In", "n1")]), node_labels(gpu_pool())) == (
        UNKNOWN, "required node affinity: kubernetes.io/hostname In: node label kubernetes.io/hostname is each "
                 "node's own identity")
    assert affinity_matches([{"matchFields": [req("metadata.name", "In", "node-1")]}], node_labels(gpu_pool())) == (
        UNKNOWN, "required node affinity: matchFields metadata.name names a node, and a pool's future node names "
                 "are not known")


def test_windows_and_unknown_label_maps():
    windows = eks_pool("win", ["m6i.large"], amiType="WINDOWS_CORE_2022_x86_64")
    assert node_labels(windows).lookup("kubernetes.io/os") == (True, "windows")
    partial = read_pool(GKE, {"cluster": "c", "name": "p", "nodeConfig": {"machineType": "n2-standard-4",
                                                                         "labels": UNKNOWN}})
    assert node_labels(partial).lookup("team") == (UNKNOWN, UNKNOWN)
    assert term_matches({"matchExpressions": [req("team", "In", "ml")]}, node_labels(partial)) is UNKNOWN
