"""EKS's spellings, both directions: capacity types, the accelerator label (taint effects:
``nodepools.clouds.taints``, shared with GKE).

Enum values are the EKS API's (``AWS::EKS::Nodegroup``; docs/kubernetes-facts.md
section 1.3). Pure: no provider SDK.
"""
from __future__ import annotations

from nodepools import vocabulary as v
from nodepools.spec.instances import GpuModel
from nodepools.vocabulary import CapacityType

# Node group ``capacityType``; also the value of the ``eks.amazonaws.com/capacityType`` node label.
CAPACITY_TYPES: dict[CapacityType, str] = {
    CapacityType.ON_DEMAND: "ON_DEMAND",
    CapacityType.SPOT: "SPOT",
}
CAPACITY_TYPE_OF: dict[str, CapacityType] = {name: capacity for capacity, name in CAPACITY_TYPES.items()}
# What EKS assumes when a node group sets no capacityType / no instanceTypes.
DEFAULT_CAPACITY_TYPE = CAPACITY_TYPES[CapacityType.ON_DEMAND]
DEFAULT_INSTANCE_TYPE = "t3.medium"
# The tags a pool adds to the cluster's on everything it creates (they count toward AWS's 50).
POOL_TAG_KEYS = (v.LABEL_POOL, v.LABEL_POOL_CLASS)


def accelerator_label(model: GpuModel) -> str:
    """The ``k8s.amazonaws.com/accelerator`` value (cluster-autoscaler's GPU label on AWS) for ``model``."""
    return model.value


def gpu_model_of_accelerator_label(value: str) -> GpuModel | None:
    """The model an ``k8s.amazonaws.com/accelerator`` value names; None when it is not ours."""
    return next((m for m in GpuModel if accelerator_label(m) == value), None)
