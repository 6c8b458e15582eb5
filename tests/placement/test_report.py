"""The people-facing views: the workload x pool matrix and the Mermaid diagram, asserted in full."""
from nodepools.inventory.resource import Resource
from nodepools.inventory.stack_model import StackModel
from nodepools.inventory.values import UNKNOWN
from nodepools.placement import analyze as analyze_model
from nodepools.placement.report import markdown, matrix, mermaid
from placement_builders import CLASS_KEY, EKS, GPU_TAINT, class_taint, container, pod
from suite_dates import PINNED


def analyze(resources):
    return analyze_model(StackModel(resources, today=PINNED))


def group(name, types, taints=(), labels=None, spot=False):
    return Resource.of(EKS, name, {
        "clusterName": "prod", "nodeGroupName": name, "instanceTypes": types, "taints": list(taints),
        "capacityType": "SPOT" if spot else "ON_DEMAND", "labels": {"nodepools.io/pool": name, **(labels or {})}},
        urn=f"urn:{name}")


def deploy(name, spec, cls=None):
    labels = {"nodepools.io/workload-class": cls} if cls else {}
    return Resource.of("kubernetes:apps/v1:Deployment", name, {
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {"replicas": 2.0, "template": {"metadata": {"labels": labels}, "spec": spec}}}, urn=f"urn:{name}")


RESOURCES = [
    group("web", ["m6i.large"], labels={CLASS_KEY: "resident"}),
    group("train", ["g6.xlarge"], [class_taint("gpu-training"), GPU_TAINT], {CLASS_KEY: "gpu-training"}, spot=True),
    deploy("api", pod(container("1", "1Gi")), "resident"),
    deploy("anywhere", pod(container("1", "1Gi"), tolerations=[{"operator": "Exists"}]), "resident"),
    deploy("huge", pod(container("64", "1Gi"))),
    deploy("later", pod(container("1", "1Gi"), nodeSelector={"nodepools.io/pool": UNKNOWN})),
]


def test_matrix_reads_at_a_glance():
    assert matrix(analyze(RESOURCES)) == """\
workload                 | web (resident) | train (gpu-training, spot, GPU) | summary
-------------------------+----------------+---------------------------------+--------------------------------------------------
Deployment apps/anywhere | fits           | fits                            | GPU pool without GPU request; spot while resident
Deployment apps/api      | fits           | taint                           | ok
Deployment apps/huge     | size           | taint                           | UNSCHEDULABLE
Deployment apps/later    | ?selector      | taint                           | undecided

fits = can land; taint/selector/affinity/size = first reason it cannot; ?x = cannot judge x at preview; blank = another cluster

Why:
- Deployment apps/anywhere requests no nvidia.com/gpu yet can land on GPU pool(s) train
- Deployment apps/anywhere is resident yet can land on spot pool(s) train
- Deployment apps/huge fits no pool of its cluster:
    web: too big for m6i.large: requests cpu 64 > allocatable 1.93
    train: untolerated taint nodepools.io/pool-class=gpu-training:NoSchedule
"""


def test_mermaid_draws_pools_and_the_workloads_reaching_each():
    assert mermaid(analyze(RESOURCES)) == """\
graph LR
  p0[["web (resident)"]]
  p1[["train (gpu-training, spot, GPU)"]]
  w0("Deployment apps/anywhere"):::flagged
  w0 --> p0
  w0 --> p1
  w1("Deployment apps/api")
  w1 --> p0
  w2("Deployment apps/huge"):::unschedulable
  w3("Deployment apps/later")
  w3 -.->|?| p0
  classDef unschedulable fill:#fdd,stroke:#c00,color:#600
  classDef flagged fill:#ffd,stroke:#c90
"""


def test_markdown_wraps_both_views_and_escapes_quotes():
    quoted = group('we"b', ["m6i.large"])
    text = markdown(analyze([quoted]))
    assert text.startswith("## Placement\n\n```text\nworkload | we\"b (unclassed) | summary\n")
    assert '  p0[["we#quot;b (unclassed)"]]\n' in text and text.endswith("```\n")
