"""Taints vs tolerations: each case names the ToleratesTaint / scheduler / admission rule it exercises
(docs/kubernetes-facts.md section 5)."""
import pytest

from nodepools.inventory.values import UNKNOWN
from nodepools.placement.taints import (MAYBE_EXTENDED, admission_tolerations, effective_tolerations,
                                        is_extended_resource, tolerates, untolerated)
from placement_builders import container, pod

GPU = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
BATCH = {"key": "nodepools.io/pool-class", "value": "batch", "effect": "NoSchedule"}


@pytest.mark.parametrize("toleration, taint, expected", [
    pytest.param({"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}, GPU, True,
                 id="Equal: key, value and effect all equal"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}, GPU, False,
                 id="Equal: a different value does not tolerate"),
    pytest.param({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}, GPU, True,
                 id="empty operator means Equal"),
    pytest.param({"key": "nvidia.com/gpu", "value": "", "effect": "NoSchedule"}, GPU, False,
                 id="empty operator means Equal: empty value only equals an empty taint value"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, GPU, True,
                 id="Exists: any taint value"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Exists", "value": "x"}, GPU, True,
                 id="Exists: the toleration value is not compared"),
    pytest.param({"operator": "Exists"}, BATCH, True, id="empty key with Exists matches every key and effect"),
    pytest.param({"key": "", "operator": "Exists", "effect": "NoExecute"}, BATCH, False,
                 id="empty key matches every key but a set effect must still equal"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Exists"}, {**GPU, "effect": "NoExecute"}, True,
                 id="empty effect matches every effect"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                 {**GPU, "effect": "NoExecute"}, False, id="a set effect must equal the taint's effect"),
    pytest.param({"key": "nodepools.io/pool-class", "operator": "Exists"}, GPU, False,
                 id="a set key must equal the taint's key"),
    pytest.param({"key": "", "operator": "Equal", "value": "batch"}, BATCH, True,
                 id="ToleratesTaint itself: empty key with Equal compares values only (API validation forbids it)"),
    pytest.param({"key": "n", "operator": "Lt", "value": "5"}, {"key": "n", "value": "3", "effect": "NoSchedule"},
                 True, id="Lt: taint value lower than toleration value"),
    pytest.param({"key": "n", "operator": "Lt", "value": "5"}, {"key": "n", "value": "5", "effect": "NoSchedule"},
                 False, id="Lt: equal values do not match"),
    pytest.param({"key": "n", "operator": "Gt", "value": "5"}, {"key": "n", "value": "7", "effect": "NoSchedule"},
                 True, id="Gt: taint value higher than toleration value"),
    pytest.param({"key": "n", "operator": "Gt", "value": "-5"}, {"key": "n", "value": "-1", "effect": "NoSchedule"},
                 True, id="Gt: int64 compare accepts signs"),
    pytest.param({"key": "n", "operator": "Gt", "value": "9"}, {"key": "n", "value": "10", "effect": "NoSchedule"},
                 True, id="Gt: numeric, not string, compare"),
    pytest.param({"key": "n", "operator": "Lt", "value": "5"}, {"key": "n", "value": "abc", "effect": "NoSchedule"},
                 False, id="Lt: a taint value that does not parse never matches"),
    pytest.param({"key": "n", "operator": "Lt", "value": " 5"}, {"key": "n", "value": "3", "effect": "NoSchedule"},
                 False, id="Lt: ParseInt rejects spaces"),
    pytest.param({"key": "n", "operator": "Gt", "value": "1_0"}, {"key": "n", "value": "30", "effect": "NoSchedule"},
                 False, id="Gt: ParseInt rejects underscores"),
    pytest.param({"key": "n", "operator": "Gt", "value": "1"},
                 {"key": "n", "value": "9223372036854775808", "effect": "NoSchedule"}, False,
                 id="Gt: a value beyond int64 is a parse error"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "In", "value": "present"}, GPU, False,
                 id="any other operator never matches"),
])
def test_tolerates_taint(toleration, taint, expected):
    assert tolerates(toleration, taint) is expected


def test_lt_gt_never_match_with_the_comparison_gate_off():
    # TaintTolerationComparisonOperators is alpha (1.35): with the gate off Lt/Gt fall to "other operator".
    assert tolerates({"key": "n", "operator": "Lt", "value": "5"}, {"key": "n", "value": "3", "effect": "NoSchedule"},
                     comparison_operators=False) is False


@pytest.mark.parametrize("toleration, expected", [
    pytest.param({"key": "nvidia.com/gpu", "operator": "Equal", "value": UNKNOWN}, UNKNOWN,
                 id="an unknown value that decides the match is UNKNOWN"),
    pytest.param({"key": UNKNOWN, "operator": "Exists", "effect": "NoExecute"}, False,
                 id="an unknown key does not matter once the effect differs"),
    pytest.param({"key": "nvidia.com/gpu", "operator": UNKNOWN}, UNKNOWN, id="an unknown operator is UNKNOWN"),
])
def test_unknown_toleration_fields(toleration, expected):
    assert tolerates(toleration, GPU) is expected


@pytest.mark.parametrize("tolerations, taints, expected", [
    pytest.param([], [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}], (True, None),
                 id="PreferNoSchedule only scores: it never blocks"),
    pytest.param([], [{"key": "k", "value": "v", "effect": "NoExecute"}],
                 (False, {"key": "k", "value": "v", "effect": "NoExecute"}), id="NoExecute is a hard filter"),
    pytest.param([{"key": "nodepools.io/pool-class", "value": "batch"}], [BATCH, GPU], (False, GPU),
                 id="every hard taint must be tolerated; the first untolerated one is named"),
    pytest.param([], [BATCH, GPU], (False, BATCH), id="taints are checked in the node's order"),
    pytest.param([], [], (True, None), id="a node without taints admits every pod"),
    pytest.param([], UNKNOWN, (UNKNOWN, None), id="unknown taints cannot be judged"),
    pytest.param([{"operator": "Exists"}], UNKNOWN, (True, None), id="a blanket toleration tolerates even unknown taints"),
    pytest.param(UNKNOWN, [BATCH], (UNKNOWN, BATCH), id="unknown tolerations cannot be judged"),
    pytest.param(UNKNOWN, [{"key": "k", "effect": "PreferNoSchedule"}], (True, None),
                 id="unknown tolerations do not matter against soft taints"),
])
def test_untolerated(tolerations, taints, expected):
    assert untolerated(tolerations, taints) == expected


@pytest.mark.parametrize("name, extended", [
    ("nvidia.com/gpu", True), ("example.com/foo", True), ("cpu", False), ("memory", False),
    ("ephemeral-storage", False), ("hugepages-2Mi", False), ("kubernetes.io/something", False),
    ("requests.nvidia.com/gpu", False),
])
def test_extended_resource_names_follow_IsExtendedResourceName(name, extended):
    assert is_extended_resource(name) is extended


def test_admission_adds_exists_noschedule_per_extended_resource_sorted():
    spec = pod(container("1", "1Gi", gpu="1"),
               initContainers=[{"name": "i", "resources": {"requests": {"example.com/fpga": "1", "cpu": "1"}}}])
    assert admission_tolerations(spec) == [
        {"key": "example.com/fpga", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


@pytest.mark.parametrize("resources, expected", [
    pytest.param({"limits": {"nvidia.com/gpu": 1.0}}, ["nvidia.com/gpu"], id="limit-only: defaulting copies it to requests"),
    pytest.param({"requests": {"nvidia.com/gpu": "0"}}, ["nvidia.com/gpu"], id="a zero request still names the resource"),
    pytest.param({"requests": {"cpu": "1", "memory": "1Gi"}}, [], id="native resources add nothing"),
])
def test_admission_reads_requests_after_defaulting(resources, expected):
    spec = pod({"name": "c", "resources": resources})
    assert [t["key"] for t in admission_tolerations(spec)] == expected


def test_gpu_pod_tolerates_the_gpu_taint_through_admission_only_for_noschedule():
    spec = pod(container(gpu="1"))
    tols = effective_tolerations(spec, [])
    assert untolerated(tols, [GPU]) == (True, None)
    assert untolerated(tols, [{**GPU, "effect": "NoExecute"}]) == (False, {**GPU, "effect": "NoExecute"})
    assert untolerated(effective_tolerations(pod(container("1")), []), [GPU]) == (False, GPU)


def test_unknown_resources_may_tolerate_only_extended_resource_taints():
    spec = pod({"name": "c", "resources": UNKNOWN})
    tols = effective_tolerations(spec, [])
    assert tols == [MAYBE_EXTENDED]
    assert untolerated(tols, [GPU]) == (UNKNOWN, GPU)
    # Any domain-prefixed key is a possible extended resource name, so the class taint stays undecided too;
    # a key without a domain (native name) or a NoExecute taint is never admission-tolerated.
    assert untolerated(tols, [BATCH]) == (UNKNOWN, BATCH)
    dedicated = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    assert untolerated(tols, [GPU, dedicated]) == (False, dedicated)
    assert untolerated(tols, [{**GPU, "effect": "NoExecute"}]) == (False, {**GPU, "effect": "NoExecute"})
