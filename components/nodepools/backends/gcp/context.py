"""What the GKE translator knows about the cluster: plain, validated data.

``GkeContext`` holds the cluster facts that shape a node pool and that are
known when the program is written (project, location, zones, driver version,
labels, roles). Values that may be Pulumi outputs (the cluster name, an
existing service account, a KMS key) stay on ``GkeCluster`` and are wired in by
``register``; the translator never sees them.
"""
from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nodepools import vocabulary as v
from nodepools.backends.gcp import tables
from nodepools.clouds.gcp import PROJECT_ID, is_zone, region_of
from nodepools.clouds.regions import GCP_LABELS_MAX, gcp_location_error, zone_problems
from nodepools.spec.errors import Problems
from nodepools.spec.model import Flag

# GCP resource labels: keys start with a lowercase letter; both <= 63 of [a-z0-9_-].
_GCP_LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}\Z")
_GCP_LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}\Z")
_ROLE = re.compile(r"^(roles/|projects/[a-z][a-z0-9-]+/roles/|organizations/[0-9]+/roles/)[A-Za-z0-9_.]+\Z")
RESERVED_RESOURCE_LABELS = (v.GCP_RESOURCE_LABEL_POOL, v.GCP_RESOURCE_LABEL_POOL_CLASS)


class GkeContext(BaseModel):
    """Cluster facts for the translator.

    ``location`` is the cluster's region (regional cluster) or zone (zonal).
    ``default_zones``: the cluster's node locations, used for pools that give no
    zones (empty: GKE's default, one zone for a zonal cluster and three for a
    regional one). ``private_nodes`` (default True) gives nodes internal IPs only;
    None leaves it to the cluster. ``node_roles`` are granted to the pools'
    dedicated service accounts (default ``roles/container.defaultNodeServiceAccount``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    project: str
    location: str
    default_zones: tuple[str, ...] = ()
    gpu_driver_version: tables.GpuDriverVersion = tables.GpuDriverVersion.DEFAULT
    resource_labels: dict[str, str] = Field(default_factory=dict)
    private_nodes: Flag | None = True
    node_roles: tuple[str, ...] = tables.DEFAULT_NODE_ROLES

    @model_validator(mode="after")
    def _check(self) -> "GkeContext":
        problems = Problems()
        if not PROJECT_ID.match(self.project):
            problems.add("project", f"project {self.project!r} is not a GCP project id (6-30 lowercase letters, "
                         "digits or '-', starting with a letter)", self.project)
        if err := gcp_location_error(self.location):
            problems.add("location", err, self.location)
        else:
            zone_problems(problems, "default_zones", self.default_zones, self.region)
        room = GCP_LABELS_MAX - len(RESERVED_RESOURCE_LABELS)
        if len(self.resource_labels) > room:
            problems.add("resource_labels", f"{len(self.resource_labels)} labels, but GCP allows {GCP_LABELS_MAX} per "
                         f"resource and nodepools adds {len(RESERVED_RESOURCE_LABELS)} to a pool's "
                         f"({', '.join(RESERVED_RESOURCE_LABELS)}): give at most {room}", len(self.resource_labels))
        for key, value in self.resource_labels.items():
            if key in RESERVED_RESOURCE_LABELS:
                problems.add(("resource_labels", key), f"resource label {key!r} is set per pool and cannot be "
                             f"given (reserved: {', '.join(RESERVED_RESOURCE_LABELS)})", value)
            elif not _GCP_LABEL_KEY.match(key):
                problems.add(("resource_labels", key), f"GCP label key {key!r} is invalid: 1-63 lowercase letters, "
                             "digits, '_' or '-', starting with a letter", key)
            if not _GCP_LABEL_VALUE.match(value):
                problems.add(("resource_labels", key), f"GCP label value {value!r} is invalid: 0-63 lowercase "
                             "letters, digits, '_' or '-'", value)
        for i, role in enumerate(self.node_roles):
            if role in tables.FORBIDDEN_NODE_ROLES:
                problems.add(("node_roles", i), f"role {role!r} is a basic role, far broader than nodes need "
                             f"(refused: {', '.join(sorted(tables.FORBIDDEN_NODE_ROLES))})", role)
            elif not _ROLE.match(role):
                problems.add(("node_roles", i), f"{role!r} is not an IAM role name (roles/..., "
                             "projects/<id>/roles/... or organizations/<id>/roles/...)", role)
        problems.raise_if_any("GkeContext")
        return self

    @property
    def region(self) -> str:
        return region_of(self.location)

    @property
    def is_zonal(self) -> bool:
        return is_zone(self.location)

    def zones_for(self, pool_zones: list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """The zones a pool's nodes land in, where known: its own, else the cluster's."""
        if pool_zones:
            return tuple(pool_zones)
        if self.default_zones:
            return self.default_zones
        return (self.location,) if self.is_zonal else ()

    def zone_count(self, pool_zones: list[str] | tuple[str, ...]) -> int:
        return len(self.zones_for(pool_zones)) or tables.REGIONAL_DEFAULT_ZONE_COUNT
