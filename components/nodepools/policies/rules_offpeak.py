"""shared-pool-off-peak: batch work reaches the resident pool only off-peak.

A batch workload that the placement analysis finds can land on the resident
pool (class ``resident``, or an unlabelled untainted default pool) violates
unless it is a CronJob whose every firing, in its ``timeZone`` (unset = UTC),
falls within the configured window (``nodepools.policies.cron``).
"""
from __future__ import annotations

from datetime import date
from typing import Any, Iterator
from zoneinfo import ZoneInfoNotFoundError

from nodepools import vocabulary as v
from nodepools.inventory.values import UNKNOWN, dig, is_unknown
from nodepools.placement import Fit
from nodepools.policies import cron
from nodepools.policies.base import Finding, one_per_resource, unknown
from nodepools.policies.podpaths import spec_path, subject
from nodepools.policies.rules_placement import definite, pool_names, verdicts_by_workload
from nodepools.policies.rules_pools import is_resident_pool
from nodepools.policies.settings import Settings
from nodepools.inventory.stack_model import WorkloadRef
from nodepools.policies.stack_view import StackView


def _off_peak(ref: WorkloadRef, settings: Settings, today: date) -> tuple[Any, str]:
    """(inside the window: True/False/UNKNOWN, why not) for a CronJob, its firings read from ``today``
    (the time-zone offsets, daylight saving included, are those of the days from ``today`` on)."""
    window = settings.off_peak_window
    schedule, zone = dig(ref.workload.raw_spec, "schedule"), dig(ref.workload.raw_spec, "timeZone")
    if is_unknown(schedule) or is_unknown(zone):
        return UNKNOWN, "spec.schedule or spec.timeZone is unknown"
    try:
        fired = cron.first_outside(str(schedule), zone, window.start, window.end, window.time_zone, today)
    except cron.CronError as error:
        return False, f"spec.schedule '{schedule}' does not parse ({error})"
    except (ZoneInfoNotFoundError, ValueError):
        return UNKNOWN, f"time zone '{zone or window.time_zone}' is not in this machine's tz database"
    if fired is None:
        return True, ""
    return False, (f"spec.schedule '{schedule}' ({zone or 'UTC'}) fires at {fired:%H:%M} {window.time_zone}, outside "
                   f"the off-peak window {window.start}-{window.end} {window.time_zone}")


@one_per_resource
def check_shared_pool_off_peak(stack: StackView, settings: Settings) -> Iterator[Finding]:
    """A batch workload reaches the resident pool only as a CronJob firing inside the off-peak window."""
    verdicts = verdicts_by_workload(stack)
    window = settings.off_peak_window
    for ref in stack.workloads:
        if ref.pool_class not in (v.PoolClass.BATCH, UNKNOWN):
            continue
        shared = [(x, is_resident_pool(x.pool)) for x in verdicts[ref.workload.urn]]
        reached = [x for x, resident in shared if resident is True and definite(x)]
        if not reached and not any(x.fit is not Fit.NO for x, resident in shared if resident is not False):
            continue
        inside, why = _off_peak(ref, settings, stack.today) if ref.workload.kind == "CronJob" else (False, "")
        if inside is True:
            continue
        is_cron = ref.workload.kind == "CronJob"
        field = "spec.schedule" if is_cron else spec_path(ref.workload, shared[0][0].template)
        if is_unknown(inside) or not reached or is_unknown(ref.pool_class):
            yield unknown(ref.res.urn, subject(ref), field, ref.namespace, why or "its class or reach is unknown")
            continue
        yield Finding(ref.res.urn, subject(ref), field,
                      f"a batch workload can land on resident pool(s) {pool_names(reached)}"
                      + (f" and {why}" if why else " at any time"),
                      "select the batch pool, or run it as a CronJob whose every firing lies within "
                      f"{window.start}-{window.end} {window.time_zone}", ref.namespace)
