"""The one Pulumi program of every environment (``main: stacks/``).

Each environment is a stack whose ``Pulumi.<env>.yaml`` in this directory holds
its structured config (``nodepools:cluster``, ``nodepools:layout``,
``nodepools:pools``, ``nodepools:guardrails``). The program:

1. validates the whole config into the spec, and checks every pool against its
   cloud's rules on the pools' target (built from config before the cluster
   registers; what only the created cluster knows is a deferred output): a bad
   value stops here, listing every bad field by its config path, before any
   resource registers;
2. creates the cluster from the networking ids in config, or attaches to an
   existing one by name, and wires a Kubernetes provider from it;
3. builds the platform (pools + guardrails) on that same target, running no rule again;
4. exports the cluster, the layout verdict, and per pool its class, taints,
   labels and workload contract, for app stacks to read via StackReference;
   and where the throttling alerts are evaluated (``alerts``). An export built from a
   config key marked secret is a secret (``nodepools.config.outputs.exported``).

No provider data source is read, so every stack previews without credentials
(``nodepools plan --stack <env>`` runs this file under Pulumi's mock engine).
"""
import pulumi

from nodepools.backends.aws.cluster import eks_cluster, planned_eks_target
from nodepools.backends.gcp.cluster import gke_cluster, planned_gke_target
from nodepools.components.platform import Platform
from nodepools.config import from_pulumi
from nodepools.config.outputs import exported, pools_outputs
from nodepools.config.stack_config import check_on_target
from nodepools.vocabulary import Cloud

config = from_pulumi()
if config.cloud is Cloud.AWS:
    planned = planned_eks_target(config.cluster)
    validated = check_on_target(config, planned)
    connection = eks_cluster(config.cluster, planned=planned)
else:
    planned = planned_gke_target(config.cluster)
    validated = check_on_target(config, planned)
    connection = gke_cluster(config.cluster, planned=planned)

verdict = config.verdict
if verdict.warning:
    pulumi.log.warn(config.redact(verdict.warning))

platform = Platform(config.cluster.name, connection.target, validated, connection.provider)

secret = config.secret_keys
pulumi.export("cluster", exported("cluster", connection.outputs, secret))
pulumi.export("layout", exported("layout", verdict.as_dict(), secret))
pulumi.export("pools", exported("pools", pools_outputs(platform.pools), secret))
pulumi.export("alerts", exported("alerts", platform.guardrails.plan.alerts_where, secret))
