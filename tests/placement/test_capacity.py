"""Resource fit against one node of the pool's type: table capacity minus the documented reservation."""
import pytest

from nodepools.inventory.pools import read_pool
from nodepools.inventory.values import UNKNOWN
from nodepools.placement.capacity import fits_pool, node_sizes, reserved_cpu, reserved_memory_bytes
from placement_builders import GKE, eks_pool

GIB = 2.0**30
MIB = 2.0**20


@pytest.mark.parametrize("cores, reserved", [
    (1, 0.06), (2, 0.07), (4, 0.08), (8, 0.09), (96, 0.08 + 92 * 0.0025),
])
def test_cpu_reservation_tiers(cores, reserved):
    # 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above 4.
    assert reserved_cpu(cores) == pytest.approx(reserved)


@pytest.mark.parametrize("memory_gib, reserved_gib", [
    (4, 1.0), (8, 1.8), (16, 2.6), (128, 2.6 + 112 * 0.06), (150, 2.6 + 6.72 + 22 * 0.02),
])
def test_memory_reservation_tiers_plus_eviction_threshold(memory_gib, reserved_gib):
    assert reserved_memory_bytes(memory_gib * GIB) == pytest.approx(reserved_gib * GIB + 100 * MIB)


def test_matches_gke_documented_example():
    # GKE's node-sizing page: a 150 GiB node has 140.1423 GiB allocatable.
    assert (150 * GIB - reserved_memory_bytes(150 * GIB)) / GIB == pytest.approx(140.1423, abs=1e-4)


def test_allocatable_of_table_types():
    (size,) = node_sizes(eks_pool("web", ["m6i.large"]))  # 2 vCPU, 8 GiB
    assert (size.cpu, size.memory / GIB, size.gpus) == (pytest.approx(1.93), pytest.approx(8 - 1.8 - 100 / 1024), 0.0)
    (gpu,) = node_sizes(eks_pool("train", ["p4d.24xlarge"]))
    assert gpu.gpus == 8.0


@pytest.mark.parametrize("requests, expected", [
    pytest.param({"cpu": 1.93, "memory": 6.0 * GIB}, (True, ""), id="a request equal to allocatable fits"),
    pytest.param({"cpu": 2.0}, (False, "too big for m6i.large: requests cpu 2 > allocatable 1.93"),
                 id="cpu over allocatable"),
    pytest.param({"memory": 8 * GIB}, (False, "too big for m6i.large: requests memory 8.00Gi > allocatable 6.10Gi"),
                 id="memory over allocatable"),
    pytest.param({"nvidia.com/gpu": 1.0}, (False, "too big for m6i.large: requests nvidia.com/gpu 1 > allocatable 0"),
                 id="a CPU node has no GPUs"),
    pytest.param({"ephemeral-storage": 500 * GIB, "pods": 1.0}, (True, ""), id="ephemeral storage is not modelled"),
    pytest.param({"example.com/fpga": 1.0}, (UNKNOWN, "example.com/fpga on m6i.large is not modelled: cannot judge size"),
                 id="other device plugins' resources cannot be judged"),
    pytest.param({"example.com/fpga": 1.0, "cpu": 4.0},
                 (False, "too big for m6i.large: requests cpu 4 > allocatable 1.93"),
                 id="a definite overflow wins over an unmodelled resource"),
])
def test_fit_on_one_node(requests, expected):
    assert fits_pool(requests, eks_pool("web", ["m6i.large"])) == expected


def test_mixed_pool_fits_when_one_type_fits_and_names_the_first_type_otherwise():
    pool = eks_pool("web", ["m6i.large", "m6i.2xlarge"])
    assert fits_pool({"cpu": 4.0}, pool) == (True, "")
    assert fits_pool({"cpu": 16.0}, pool) == (False, "too big for m6i.large: requests cpu 16 > allocatable 1.93")


def test_types_outside_the_table_cannot_be_sized_but_gke_accelerators_still_count():
    pool = read_pool(GKE, {"cluster": "c", "name": "t4", "nodeConfig": {
        "machineType": "n1-standard-8", "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}]}})
    assert fits_pool({"cpu": 1.0}, pool) == (
        UNKNOWN, "instance type n1-standard-8 is not in the instance table: cannot judge size")
    assert fits_pool({"cpu": 1.0, "nvidia.com/gpu": 2.0}, pool) == (
        False, "too big for n1-standard-8: requests nvidia.com/gpu 2 > allocatable 1")
    unknown_types = read_pool("aws:eks/nodeGroup:NodeGroup", {"clusterName": "c", "instanceTypes": UNKNOWN})
    assert fits_pool({"cpu": 1.0}, unknown_types) == (UNKNOWN, "instance types unknown at preview: cannot judge size")
