"""The README's compatibility table, generated from the vendored upstream facts.

``python -m nodepools.guardrails.upstream.compat`` prints it;
``tools/refresh_upstream.py`` rewrites it in README.md between the markers, and a
test fails when the README's copy differs from this one.
"""
from __future__ import annotations

import re

from nodepools.guardrails import upstream

BEGIN = "<!-- compatibility:begin (generated: python -m nodepools.guardrails.upstream.compat) -->"
END = "<!-- compatibility:end -->"
_BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)


def reload() -> None:
    """Forget the cached vendored files (after the refresh tool rewrote them)."""
    upstream.load.cache_clear()


def table() -> str:
    """Kubernetes minors x the add-on versions nodepools installs for them."""
    from nodepools.guardrails.gpu_allocation import DRA_SINCE, default_allocation
    from nodepools.guardrails.spec import ChartVersions
    from nodepools.spec.kube_versions import SUPPORTED_KUBERNETES_VERSIONS
    from nodepools.spec.kube_versions import minor as minor_of
    from nodepools.vocabulary import Cloud
    charts = ChartVersions()
    images = upstream.autoscaler_images()
    kueue, plugin = upstream.chart("kueue"), upstream.chart("nvidia-device-plugin")
    dra = upstream.dra_driver_charts()[charts.nvidia_dra_driver]
    rows = ["| Kubernetes | cluster-autoscaler image (EKS) | cluster-autoscaler chart (EKS) | "
            "NVIDIA device plugin chart (EKS) | NVIDIA DRA driver chart (EKS, `gpu_allocation: dra`) | "
            "GPU allocation default (EKS) | Kueue chart |",
            "|---|---|---|---|---|---|---|"]
    for minor in SUPPORTED_KUBERNETES_VERSIONS:
        image = images.get(minor, "none released: EKS refuses this version")
        driver = f"{charts.nvidia_dra_driver} (driver {dra['app_version']})" \
            if minor_of(minor) >= minor_of(DRA_SINCE) else f"refused below {DRA_SINCE}"
        rows.append(f"| {minor} | {image} | {charts.cluster_autoscaler} | {charts.nvidia_device_plugin} "
                    f"(plugin {plugin['app_version']}) | {driver} | {default_allocation(Cloud.AWS, minor).value} | "
                    f"{charts.kueue} (Kueue {kueue['app_version']}) |")
    return "\n".join(rows)


def block() -> str:
    return f"{BEGIN}\n{table()}\n{END}"


def replace_table(readme: str) -> str:
    """``readme`` with its generated block replaced; unchanged when it has no markers."""
    return _BLOCK.sub(lambda _: block(), readme, count=1)


if __name__ == "__main__":
    print(table())
