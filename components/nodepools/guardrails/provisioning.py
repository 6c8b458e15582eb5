"""All-or-nothing capacity for gangs: Kueue's ProvisioningRequest admission check on the
training ClusterQueue, and what the autoscaler needs to serve it (docs/design.md section 9.3).

With the check, Kueue reserves quota for a gang, then asks the autoscaler in one
ProvisioningRequest for every node the gang needs, and admits it only once the request
is ``Provisioned`` (kubernetes-sigs/kueue:
site/content/en/docs/concepts/admission_check/provisioning_request.md@v0.19.2). The class
``best-effort-atomic-scale-up.autoscaling.x-k8s.io`` scales up only when one scale-up can
cover the whole request; the AWS provider does not implement ``AtomicIncreaseSize`` at any
supported release (kubernetes/autoscaler: cluster-autoscaler/cloudprovider/aws/
aws_cloud_provider.go), so the ASG may still come up short: the request then fails, Kueue
releases the quota and retries, and no partial gang holds paid GPUs meanwhile.

- **EKS** (the cluster-autoscaler nodepools installs): ``--enable-provisioning-requests``,
  ``--kube-api-content-type=application/json`` (the CRD is served as JSON, not protobuf) and
  the ProvisioningRequest CRD, which neither the autoscaler nor its chart installs
  (kubernetes/autoscaler: cluster-autoscaler/FAQ.md "How can I use ProvisioningRequest to run
  batch workloads"@cluster-autoscaler-1.35.2; the chart's ClusterRole already grants
  ``provisioningrequests`` and ``podtemplates``). Kueue enables its provisioning controller
  only if that API is served when it starts (cmd/kueue/main.go@v0.19.2), so the CRD goes in
  before the Kueue and autoscaler releases.
- **GKE**: its built-in autoscaler serves ProvisioningRequests itself; no flag, no CRD.
- **Karpenter** pools get no check: Karpenter does not serve ProvisioningRequests (it launches
  nodes for pods that are already pending), so a check on their flavors would never turn
  ``Ready`` and no gang would ever be admitted.
"""
from __future__ import annotations

from typing import Any

from nodepools.guardrails import derive, upstream
from nodepools.guardrails.addon_modes import installs_cluster_autoscaler
from nodepools.guardrails.addons import CLOUD_ADDONS
from nodepools.guardrails.spec_fields import AtomicProvisioning, GuardrailsFields
from nodepools.spec.cluster import ClusterPools
from nodepools.spec.errors import Problems
from nodepools.spec.karpenter import is_karpenter
from nodepools.spec.pool import PoolSpec
from nodepools.vocabulary import GPU_RESOURCE, KUEUE_API_VERSION, PoolClass

NAME = "nodepools-atomic-provisioning"
CONTROLLER = "kueue.x-k8s.io/provisioning-request"
PROVISIONING_CLASS = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
# cluster-autoscaler flags (checked against each supported release's flags.go in tests/upstream).
AUTOSCALER_ARGS: dict[str, str] = {
    "enable-provisioning-requests": "true",
    "kube-api-content-type": "application/json",
}


def _kueue_on(spec: GuardrailsFields, cluster: ClusterPools) -> bool:
    return derive.kueue_enabled(spec, cluster.pools) and spec.addons.kueue.enabled


def _we_install_autoscaler(spec: GuardrailsFields, cluster: ClusterPools) -> bool:
    return installs_cluster_autoscaler(not CLOUD_ADDONS[cluster.cloud].cluster_autoscaler, spec.addons,
                                       cluster.pools)


def serving_autoscaler(spec: GuardrailsFields, cluster: ClusterPools) -> str | None:
    """Who would serve the ProvisioningRequests: "gke", "cluster-autoscaler" (ours),
    "existing cluster-autoscaler", or None."""
    if not CLOUD_ADDONS[cluster.cloud].cluster_autoscaler:
        return "gke"
    if _we_install_autoscaler(spec, cluster):
        return "cluster-autoscaler"
    if spec.addons.cluster_autoscaler.existing:
        return "existing cluster-autoscaler"
    return None


def _autoscaled(pool: PoolSpec) -> bool:
    return pool.pool_class is PoolClass.GPU_TRAINING and not is_karpenter(pool) and pool.min_nodes < pool.max_nodes


def atomic_pools(spec: GuardrailsFields, cluster: ClusterPools) -> list[PoolSpec]:
    """The gpu-training pools whose flavors carry the admission check."""
    if spec.atomic_provisioning is AtomicProvisioning.OFF or not _kueue_on(spec, cluster):
        return []
    server = serving_autoscaler(spec, cluster)
    if server is None or (server.startswith("existing") and spec.atomic_provisioning is AtomicProvisioning.AUTO):
        return []
    return [p for p in cluster.pools if _autoscaled(p)]


def config_object() -> dict[str, Any]:
    # managedResources: only pod sets that request GPUs go into the request (a CPU launcher
    # needs no new GPU node); identical pod sets merge into one PodTemplate (Kueue 0.12+).
    return {"apiVersion": KUEUE_API_VERSION, "kind": "ProvisioningRequestConfig", "metadata": {"name": NAME},
            "spec": {"provisioningClassName": PROVISIONING_CLASS, "managedResources": [GPU_RESOURCE],
                     "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements"}}


def check_object() -> dict[str, Any]:
    return {"apiVersion": KUEUE_API_VERSION, "kind": "AdmissionCheck", "metadata": {"name": NAME},
            "spec": {"controllerName": CONTROLLER, "parameters": {
                "apiGroup": KUEUE_API_VERSION.split("/")[0], "kind": "ProvisioningRequestConfig", "name": NAME}}}


def admission_checks_strategy(flavor_names: list[str]) -> dict[str, Any]:
    """The training ClusterQueue's ``admissionChecksStrategy``: the check on these flavors only."""
    return {"admissionChecks": [{"name": NAME, "onFlavors": list(flavor_names)}]}


def autoscaler_args(spec: GuardrailsFields, cluster: ClusterPools) -> dict[str, str]:
    """Flags the cluster-autoscaler nodepools installs runs with to serve the check."""
    if atomic_pools(spec, cluster) and serving_autoscaler(spec, cluster) == "cluster-autoscaler":
        return dict(AUTOSCALER_ARGS)
    return {}


def provisioning_crd(spec: GuardrailsFields, cluster: ClusterPools) -> dict[str, Any] | None:
    """The ProvisioningRequest CRD, where nodepools installs the autoscaler that serves it."""
    return upstream.provisioning_crd() if autoscaler_args(spec, cluster) else None


def provisioning_problems(spec: GuardrailsFields, cluster: ClusterPools, problems: Problems,
                          spec_root: tuple[str | int, ...]) -> None:
    """``atomic_provisioning: on`` where no training pool can be provisioned atomically."""
    if spec.atomic_provisioning is not AtomicProvisioning.ON or atomic_pools(spec, cluster):
        return
    training = derive.of_class(cluster.pools, PoolClass.GPU_TRAINING)
    karpenter = [p.name for p in training if is_karpenter(p)]
    if not _kueue_on(spec, cluster):
        why = "Kueue is off, and the check lives on its training ClusterQueue"
    elif karpenter and len(karpenter) == len(training):
        why = (f"every gpu-training pool ({', '.join(karpenter)}) is provisioned by Karpenter, which does not "
               "serve ProvisioningRequests")
    elif not any(_autoscaled(p) for p in training):
        why = "no gpu-training pool is autoscaled (a managed pool with min_nodes < max_nodes)"
    else:
        why = ("no cluster-autoscaler serves the requests (addons.cluster_autoscaler is disabled; set existing: "
               "true if the cluster runs one)")
    problems.add(spec_root + ("atomic_provisioning",), f"atomic_provisioning 'on' asks for a ProvisioningRequest "
                 f"admission check, but {why} (allowed here: auto, off)", spec.atomic_provisioning.value)
