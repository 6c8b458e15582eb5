"""How an attached cluster is reached: its API endpoint and the CA bundle that proves it.

The kubeconfig nodepools writes for an attached cluster authenticates with a token
(``aws eks get-token``, ``gke-gcloud-auth-plugin``), never with credentials in the URL:
a ``user:password@`` in the endpoint would travel into the kubeconfig, the stack's
outputs and every log that prints the URL. An EKS endpoint names its region in its
host (``https://<id>.<suffix>.<region>.eks.amazonaws.com``, ``.com.cn`` in China;
docs.aws.amazon.com/eks/latest/APIReference/API_Cluster.html ``endpoint``), so an
endpoint of another region is another cluster. ``certificate-authority-data`` is the
base64 of a PEM bundle (kubernetes.io/docs/reference/config-api/kubeconfig.v1/,
``certificate-authority-data``): anything else fails every TLS handshake. Pure.
"""
from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import urlsplit

_EKS_HOST = re.compile(r"[0-9a-z]+\.[0-9a-z]+\.(?P<region>[a-z0-9-]+)\.eks\.amazonaws\.com(\.cn)?\Z")
PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"


def endpoint_problems(endpoint: str, region: str | None = None) -> list[str]:
    """Why ``endpoint`` cannot be an attached cluster's API endpoint (``region``: the EKS
    cluster's, None elsewhere). The endpoint is not quoted when it carries credentials."""
    try:
        parts = urlsplit(endpoint)
        hostname = parts.hostname
    except ValueError:
        return [f"endpoint {endpoint!r} is not a URL (https://<host>[:<port>])"]
    if parts.username is not None or parts.password is not None:
        return ["endpoint carries a user name or password before '@': the kubeconfig authenticates with a token, "
                "and the URL would show them in the stack's outputs and logs; give https://<host>[:<port>] only"]
    if parts.scheme != "https" or not hostname:
        return [f"endpoint {endpoint!r} must start with https://"]
    eks = _EKS_HOST.match(hostname.lower())
    if eks is not None and region is not None and eks["region"] != region:
        return [f"endpoint {endpoint!r} is an EKS endpoint of region {eks['region']!r}, but the cluster is in "
                f"{region!r}: it would reach another cluster"]
    return []


def ca_data_problem(data: str) -> str | None:
    """Why ``data`` is not the base64 of a PEM certificate bundle; None when it is."""
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return ("certificate_authority_data is not base64 (A-Z, a-z, 0-9, '+', '/', '=' padding): give the "
                "cluster's CA bundle as the kubeconfig's certificate-authority-data")
    if PEM_CERTIFICATE not in decoded:
        return ("certificate_authority_data decodes to no PEM certificate (-----BEGIN CERTIFICATE-----): give the "
                "cluster's CA bundle as the kubeconfig's certificate-authority-data")
    return None
