"""Taint effects as the managed-node-pool APIs spell them, both directions.

EKS (``AWS::EKS::Nodegroup`` ``Taint.Effect``) and GKE (``NodeTaint.effect``,
container/v1) use the same enum, so there is one table for both
(docs/kubernetes-facts.md sections 1.3 and 2). Kubernetes itself, Karpenter and the
cluster-autoscaler's node-template tags keep the CamelCase form. Pure: no provider SDK.
"""
from __future__ import annotations

from nodepools.vocabulary import TaintEffect

# Kubernetes CamelCase -> the cloud API's enum (node group ``taints[].effect``, ``nodeConfig.taints[].effect``).
TAINT_EFFECTS: dict[TaintEffect, str] = {
    TaintEffect.NO_SCHEDULE: "NO_SCHEDULE",
    TaintEffect.PREFER_NO_SCHEDULE: "PREFER_NO_SCHEDULE",
    TaintEffect.NO_EXECUTE: "NO_EXECUTE",
}
TAINT_EFFECT_OF: dict[str, TaintEffect] = {name: effect for effect, name in TAINT_EFFECTS.items()}
