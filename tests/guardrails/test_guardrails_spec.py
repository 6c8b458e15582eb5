"""GuardrailsSpec defaults and every rule, alone and against the pools: exact messages."""
import pytest
from pydantic import ValidationError

from nodepools.guardrails import GuardrailsSpec, check_guardrails
from nodepools.spec import PoolSpec, describe


def spec_errors(**fields) -> list[str]:
    with pytest.raises(ValidationError) as info:
        GuardrailsSpec(**fields)
    return describe(info.value)


def cross_errors(spec: GuardrailsSpec, pools: list[PoolSpec]) -> list[str]:
    with pytest.raises(ValidationError) as info:
        check_guardrails(spec, pools)
    return describe(info.value)


RESIDENT = PoolSpec(name="web", pool_class="resident", instance_types=["m6i.xlarge"])
BATCH = PoolSpec(name="jobs", pool_class="batch", instance_types=["c6i.2xlarge"])
TRAIN = PoolSpec(name="train", pool_class="gpu-training", instance_types=["p4d.24xlarge"])


def test_defaults_are_the_documented_ones():
    spec = GuardrailsSpec()
    assert {c.value: n for c, n in spec.namespace_names.items()} == {
        "resident": "services", "batch": "batch", "gpu-inference": "inference", "gpu-training": "training"}
    assert (spec.batch_quota_share, spec.kubernetes_version, spec.kueue.value) == (0.5, "1.35", "auto")
    assert spec.charts.model_dump() == {"nvidia_device_plugin": "0.20.0", "cluster_autoscaler": "9.59.0",
                                        "cluster_autoscaler_image": None, "kueue": "0.19.2", "karpenter": "1.14.1",
                                        "nvidia_dra_driver": "0.4.1"}
    assert spec.gpu_allocation is None  # the cloud's default for the minor (guardrails/gpu_allocation.py)
    assert spec.autoscaler_image == "v1.35.2"  # the autoscaler release of the cluster's minor


def test_namespace_overrides_keep_the_other_defaults():
    spec = GuardrailsSpec(namespaces={"batch": "jobs"})
    assert [n for n in spec.namespace_names.values()] == ["services", "jobs", "inference", "training"]


@pytest.mark.parametrize("share", [0.39, 0.61, 0.7, 0.0])
def test_batch_share_outside_40_to_60_percent(share):
    assert spec_errors(batch_quota_share=share) == [
        "batch_quota_share: batch_quota_share must be between 0.40 and 0.60 (the batch namespace's share of the "
        f"resident and batch pools' cpu and memory), got {share}"]


@pytest.mark.parametrize("share", [0.4, 0.45, 0.6])
def test_batch_share_bounds_are_inclusive(share):
    assert GuardrailsSpec(batch_quota_share=share).batch_quota_share == share


def test_duplicate_namespace_names():
    assert spec_errors(namespaces={"gpu-training": "batch"}) == [
        "namespaces['gpu-training']: namespace 'batch' is already the batch namespace; each workload class needs "
        "its own namespace (its quota and LimitRange differ)"]


def test_reserved_and_malformed_namespace_names():
    assert spec_errors(namespaces={"resident": "kube-system", "batch": "Batch_Jobs"}) == [
        "namespaces.resident: namespace 'kube-system' is reserved (reserved: kube-system, kube-public, "
        "kube-node-lease, default, kueue-system, nodepools-warm); workload classes need namespaces of their own",
        "namespaces.batch: namespace 'Batch_Jobs' is invalid: 1-63 lowercase letters, digits or '-', starting and "
        "ending with a letter or digit"]


def test_chart_ranges_are_refused():
    assert spec_errors(charts={"kueue": "^0.19", "cluster_autoscaler_image": "1.35"}) == [
        "charts.kueue: chart version '^0.19' must be an exact version MAJOR.MINOR.PATCH (ranges would let an "
        "add-on change under a running cluster)",
        "charts.cluster_autoscaler_image: image tag '1.35' must look like vMAJOR.MINOR.PATCH"]


def test_unsupported_kubernetes_version():
    assert spec_errors(kubernetes_version="1.29") == [
        "kubernetes_version: kubernetes_version '1.29' is not supported (allowed: 1.32, 1.33, 1.34, 1.35, 1.36)"]


def test_limit_range_request_above_limit():
    assert spec_errors(limit_range={"default_request_cpu_millicores": 2000}) == [
        "limit_range.default_request_cpu_millicores: default_request_cpu_millicores (2000) must be <= "
        "default_limit_cpu_millicores (1000)"]


def test_unknown_field_is_refused():
    assert spec_errors(batch_share=0.5) == [
        "batch_share: unknown field (allowed: namespaces, batch_quota_share, kubernetes_version, kueue, "
        "kueue_pods_ready_timeout_minutes, alerts, quota_priority_class_scopes, limit_range, charts, addons, "
        "atomic_provisioning, gpu_allocation)"]


def test_gpu_class_namespace_without_a_pool_of_that_class():
    spec = GuardrailsSpec(namespaces={"gpu-inference": "serving", "gpu-training": "train"})
    assert cross_errors(spec, [RESIDENT, BATCH, TRAIN]) == [
        "namespaces['gpu-inference']: namespace 'serving' is configured for class gpu-inference, but the cluster "
        "has no gpu-inference pool (pools: web (resident), jobs (batch), train (gpu-training)); add a gpu-inference "
        "pool or remove namespaces['gpu-inference']"]


def test_kueue_on_needs_a_training_pool():
    assert cross_errors(GuardrailsSpec(kueue="on"), [RESIDENT, BATCH]) == [
        "kueue: kueue 'on' needs a gpu-training pool: Kueue queues distributed training and its ClusterQueue's "
        "GPU quota is the training pools' max GPUs (here 0); use 'auto' or 'off' (pools: web (resident), "
        "jobs (batch))"]


def test_default_limit_larger_than_the_largest_serving_node():
    # c6i.2xlarge has 8 vCPU and 16 GiB: a default limit of 12 cores could never be admitted.
    spec = GuardrailsSpec(limit_range={"default_limit_cpu_millicores": 12000, "default_limit_memory_mib": 4096})
    assert cross_errors(spec, [RESIDENT, BATCH]) == [
        "limit_range.default_limit_cpu_millicores: default_limit_cpu_millicores (12000) is larger than the largest "
        "batch node (8000m, pools: jobs (batch)); the LimitRange max is one node"]


def test_batch_namespace_without_batch_pool_and_unused_gpu_defaults_are_fine():
    check_guardrails(GuardrailsSpec(namespaces={"batch": "offpeak"}), [RESIDENT])
    check_guardrails(GuardrailsSpec(kueue="off"), [RESIDENT, TRAIN])


# The newest patch of each minor at kubernetes/autoscaler's tags (upstream/autoscaler_releases.json).
@pytest.mark.parametrize("version, image", [("1.32", "v1.32.7"), ("1.33", "v1.33.6"), ("1.34", "v1.34.5"),
                                            ("1.35", "v1.35.2"), ("1.36", "v1.36.1")])
def test_the_autoscaler_image_follows_the_clusters_kubernetes_minor(version, image):
    assert GuardrailsSpec(kubernetes_version=version).autoscaler_image == image
    pinned = GuardrailsSpec(kubernetes_version=version, charts={"cluster_autoscaler_image": "v1.35.0"})
    assert pinned.autoscaler_image == "v1.35.0"
