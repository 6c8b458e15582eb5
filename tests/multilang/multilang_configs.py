"""One platform config per cloud, as a TypeScript program sends it (wire: camelCase,
numbers as doubles) and as the Python API spells it, and the Python API's program."""
from nodepools.backends.aws import EksCluster
from nodepools.backends.gcp import GkeCluster
from nodepools.components.platform import Platform

OIDC_ARN = "arn:aws:iam::111122223333:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"
OIDC_URL = "https://oidc.eks.us-west-2.amazonaws.com/id/ABC"

EKS_WIRE = {
    "clusterName": "demo", "region": "us-west-2", "subnetIds": ["subnet-0000000a", "subnet-0000000b"],
    "clusterSecurityGroupId": "sg-00000c1a", "oidcProviderArn": OIDC_ARN, "oidcIssuerUrl": OIDC_URL,
    "tags": {"team": "platform"},
    "pools": [
        {"name": "web", "poolClass": "resident", "instanceTypes": ["m6i.xlarge"], "minNodes": 2.0, "maxNodes": 6.0,
         "labels": {"tier": "web"}},
        {"name": "jobs", "poolClass": "batch", "instanceTypes": ["c6i.2xlarge"], "maxNodes": 10.0, "capacity": "spot",
         "taints": [{"key": "example.com/noisy", "effect": "NoExecute"}]},
        {"name": "train", "poolClass": "gpu-training", "instanceTypes": ["p4d.24xlarge"], "maxNodes": 4.0,
         "diskSizeGib": 500.0},
    ],
    "guardrails": {"batchQuotaShare": 0.45, "kubernetesVersion": "1.34", "namespaces": {"gpu-training": "ml"},
                   "alerts": {"backend": "prometheus-operator", "namespace": "monitoring",
                              "ruleLabels": {"release": "kube-prometheus"}, "forMinutes": 10.0},
                   "limitRange": {"defaultLimitMemoryMib": 2048.0}},
}
# The same config as the Python API spells it.
EKS_POOLS = [
    {"name": "web", "pool_class": "resident", "instance_types": ["m6i.xlarge"], "min_nodes": 2, "max_nodes": 6,
     "labels": {"tier": "web"}},
    {"name": "jobs", "pool_class": "batch", "instance_types": ["c6i.2xlarge"], "max_nodes": 10, "capacity": "spot",
     "taints": [{"key": "example.com/noisy", "effect": "NoExecute"}]},
    {"name": "train", "pool_class": "gpu-training", "instance_types": ["p4d.24xlarge"], "max_nodes": 4,
     "disk_size_gib": 500},
]
EKS_GUARDRAILS = {"batch_quota_share": 0.45, "kubernetes_version": "1.34", "namespaces": {"gpu-training": "ml"},
                  "alerts": {"backend": "prometheus-operator", "namespace": "monitoring",
                             "rule_labels": {"release": "kube-prometheus"}, "for_minutes": 10},
                  "limit_range": {"default_limit_memory_mib": 2048}}

GKE_WIRE = {
    "clusterName": "demo", "project": "acme-ml-prod", "location": "us-central1",
    "defaultZones": ["us-central1-a", "us-central1-b"], "resourceLabels": {"team": "ml"},
    "gpuDriverVersion": "LATEST",
    "pools": [
        {"name": "web", "poolClass": "resident", "instanceTypes": ["n2-standard-4"], "maxNodes": 4.0},
        {"name": "infer", "poolClass": "gpu-inference", "instanceTypes": ["g2-standard-8"], "maxNodes": 2.0,
         "zones": ["us-central1-a"]},
    ],
    "guardrails": {"kueue": "off", "quotaPriorityClassScopes": True},
}
GKE_POOLS = [
    {"name": "web", "pool_class": "resident", "instance_types": ["n2-standard-4"], "max_nodes": 4},
    {"name": "infer", "pool_class": "gpu-inference", "instance_types": ["g2-standard-8"], "max_nodes": 2,
     "zones": ["us-central1-a"]},
]


def eks_python(k8s_provider):
    cluster = EksCluster("demo", ["subnet-0000000a", "subnet-0000000b"], cluster_security_group_id="sg-00000c1a",
                         oidc_provider_arn=OIDC_ARN, oidc_issuer_url=OIDC_URL, tags={"team": "platform"})
    return Platform("p", cluster, {"pools": EKS_POOLS, "guardrails": EKS_GUARDRAILS, "region": "us-west-2"},
                    k8s_provider)


def gke_python(k8s_provider):
    cluster = GkeCluster("demo", location="us-central1", project="acme-ml-prod",
                         default_zones=["us-central1-a", "us-central1-b"], resource_labels={"team": "ml"},
                         gpu_driver_version="LATEST")
    return Platform("p", cluster, {"pools": GKE_POOLS, "guardrails": {"kueue": "off",
                                                                       "quota_priority_class_scopes": True}},
                    k8s_provider)
