"""Invariants of the placement semantics, checked with hypothesis (modest example counts: shared CPUs)."""
import copy

from hypothesis import given, settings, strategies as st

from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import UNKNOWN
from nodepools.placement import Fit, Reason, judge
from nodepools.placement.affinity import affinity_matches, selector_matches
from nodepools.placement.capacity import fits_pool
from nodepools.placement.nodelabels import node_labels
from nodepools.placement.taints import tolerates
from nodepools.inventory.podspec import pod_requests, required_node_terms

SETTINGS = settings(max_examples=100, deadline=None)
KEYS = ["a", "b", "nodepools.io/pool-class", "nvidia.com/gpu"]
VALUES = ["", "x", "y", "1", "5", "10"]
EFFECTS = ["NoSchedule", "NoExecute", "PreferNoSchedule"]
TYPES = ["m6i.large", "m6i.2xlarge", "g6.xlarge", "p4d.24xlarge"]

a_taint = st.fixed_dictionaries({"key": st.sampled_from(KEYS), "value": st.sampled_from(VALUES),
                                 "effect": st.sampled_from(EFFECTS)})
taints = st.lists(a_taint, max_size=2)
tolerations = st.fixed_dictionaries({}, optional={
    "key": st.sampled_from(["", *KEYS]), "operator": st.sampled_from(["", "Equal", "Exists", "Lt", "Gt"]),
    "value": st.sampled_from(VALUES), "effect": st.sampled_from(["", *EFFECTS])})
label_maps = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y", "1", "10"]), max_size=3)
requirements = st.builds(
    lambda key, op, values: {"key": key, "operator": op,
                             **({"values": values} if op in ("In", "NotIn") else
                                {"values": values[:1]} if op in ("Gt", "Lt") else {})},
    st.sampled_from(["a", "b", "c"]), st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    st.lists(st.sampled_from(["x", "y", "1", "5"]), min_size=1, max_size=2))
terms = st.lists(st.fixed_dictionaries({"matchExpressions": st.lists(requirements, min_size=1, max_size=2)}),
                 min_size=1, max_size=2)


@st.composite
def pods(draw):
    # Biased towards pods that fit somewhere, so the implications below are exercised often.
    resources = {"requests": {"cpu": draw(st.sampled_from(["100m", "500m", "1", "4", "200"])),
                              "memory": draw(st.sampled_from(["128Mi", "1Gi", "4Gi", "4Ti"]))}}
    if draw(st.booleans()):
        resources["limits"] = {"nvidia.com/gpu": draw(st.sampled_from(["0", "1", "8"]))}
    spec = {"containers": [{"name": "c", "resources": resources}],
            "tolerations": draw(st.lists(tolerations, max_size=3)),
            "nodeSelector": draw(st.one_of(st.just({}), label_maps))}
    if draw(st.integers(0, 2)) == 0:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": draw(terms)}}}
    return spec


@st.composite
def pools(draw, pool_taints=taints):
    props = {"clusterName": "c", "nodeGroupName": "p", "instanceTypes": [draw(st.sampled_from(TYPES))],
             "labels": draw(label_maps), "taints": draw(pool_taints)}
    return read_pool("aws:eks/nodeGroup:NodeGroup", props, "urn:p", "p")


@SETTINGS
@given(pods(), pools(), tolerations)
def test_adding_a_toleration_never_removes_a_fitting_pool(spec, pool, extra):
    more = {**spec, "tolerations": [*spec["tolerations"], extra]}
    if judge(spec, pool).fit is Fit.FITS:
        assert judge(more, pool).fit is Fit.FITS


@SETTINGS
@given(pods(), pools(), st.sampled_from(["a", "b", "c", "d"]), st.sampled_from(["x", "y", "1"]), requirements)
def test_adding_a_required_selector_never_adds_a_fitting_pool(spec, pool, key, value, requirement):
    narrower = copy.deepcopy(spec)
    narrower["nodeSelector"].setdefault(key, value)
    node_terms = required_node_terms(narrower)
    for term in node_terms or []:
        term["matchExpressions"].append(requirement)
    if node_terms is None:
        narrower["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [requirement]}]}}}
    if judge(narrower, pool).fit is Fit.FITS:
        assert judge(spec, pool).fit is Fit.FITS


@SETTINGS
@given(pods(), pools(pool_taints=st.just([])))
def test_an_untainted_pool_admits_any_workload_whose_selectors_affinity_and_resources_fit(spec, pool):
    labels = node_labels(pool)
    fits = (selector_matches(spec["nodeSelector"], labels)[0] is True
            and affinity_matches(required_node_terms(spec), labels)[0] is True
            and fits_pool(pod_requests(spec), pool)[0] is True)
    verdict = judge(spec, pool)
    assert verdict.reason is not Reason.TAINT
    assert (verdict.fit is Fit.FITS) == fits


@SETTINGS
@given(pods(), pools())
def test_an_unknown_input_never_turns_a_verdict_into_its_opposite(spec, pool):
    known = judge(spec, pool).fit
    unknown_taints = read_pool(pool.type, {"clusterName": "c", "nodeGroupName": "p", "instanceTypes": pool.instance_types,
                                           "labels": {k: x for k, x in pool.labels.items() if k in ("a", "b", "c")},
                                           "taints": UNKNOWN}, "urn:p", "p")
    for fit in (judge(spec, unknown_taints).fit, judge({**spec, "tolerations": UNKNOWN}, pool).fit):
        assert fit in (known, Fit.UNKNOWN)


def facts_sketch(tol, taint):
    """The checker sketched in docs/kubernetes-facts.md section 5, verbatim in behaviour."""
    if tol.get("effect") and tol["effect"] != taint["effect"]:
        return False
    if tol.get("key") and tol["key"] != taint["key"]:
        return False
    op = tol.get("operator") or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return (tol.get("value") or "") == (taint.get("value") or "")
    if op in ("Lt", "Gt"):
        try:
            t, v = int(taint.get("value", "")), int(tol.get("value", ""))
        except ValueError:
            return False
        return t < v if op == "Lt" else t > v
    return False


@settings(max_examples=150, deadline=None)
@given(tolerations, a_taint)
def test_tolerates_agrees_with_the_reference_checker(toleration, taint):
    assert tolerates(toleration, taint) is facts_sketch(toleration, taint)
