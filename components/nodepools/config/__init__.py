"""A stack's structured config: validated into the spec before any resource registers."""
from nodepools.clouds.cluster_settings import ClusterConfig, EksClusterConfig, GkeClusterConfig
from nodepools.config.layout import Layout, LayoutVerdict, layout_verdict
from nodepools.config.source import from_pulumi, namespaced, read_stack_file
from nodepools.config.stack_config import NAMESPACE, StackConfig, StackConfigError, config_path, load_stack_config

__all__ = [
    "NAMESPACE", "ClusterConfig", "EksClusterConfig", "GkeClusterConfig", "Layout", "LayoutVerdict", "StackConfig",
    "StackConfigError", "config_path", "from_pulumi", "layout_verdict", "load_stack_config", "namespaced",
    "read_stack_file",
]
