"""nodepools: Pulumi components for heterogeneous node pools on EKS and GKE, their
in-cluster guardrails and a CrossGuard policy pack.

The core install brings what the policy rules need; the cloud backends come with
the ``aws`` and ``gcp`` extras (``pip install 'nodepools[aws]'``).
"""
# The one place the version is spelled: pyproject reads it (tool.setuptools.dynamic),
# the pack's PulumiPolicy.yaml and requirements.txt are checked against it.
__version__ = "0.1.0"
