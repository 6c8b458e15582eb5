"""The dates the suite judges by: the date is an input (docs/design.md section 10), so every test
pins it, and the suite must pass whatever the machine's date.

- ``PINNED``: the suite's default date, the day the clouds' calendars were read
  (``spec/kube_versions.py``).
- ``calendar()``: every boundary of those calendars from ``FIRST`` to ``LAST``: for each minor's end
  of standard support on each cloud (and its upstream end of life), the day before, the day and
  the day after; the window's own ends.
- ``--today YYYY-MM-DD`` (or ``NODEPOOLS_TEST_TODAY``) runs the suite at another date; ``--today run``
  at the run's UTC date, which the pack then reads itself (its default). ``make test-calendar`` runs the
  policy suite at every date of ``calendar()`` and at the run's date.
- A test marked ``dated`` judges at every date of ``calendar()`` in one run (``make test``'s fast slice)
  unless ``--today`` names one.
"""
from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone

from nodepools.spec.kube_versions import END_OF_SUPPORT, STANDARD_SUPPORT_END

PINNED = date(2026, 12, 2)
FIRST, LAST = date(2026, 12, 1), date(2028, 12, 31)
RUN = "run"  # --today run: the run's UTC date, read by the pack itself
ENV = "NODEPOOLS_TEST_TODAY"


def calendar() -> list[date]:
    ends = {end for table in STANDARD_SUPPORT_END.values() for end in table.values() if end is not None}
    ends |= set(END_OF_SUPPORT.values())
    days = {FIRST, LAST} | {end + timedelta(days=d) for end in ends for d in (-1, 0, 1)}
    return sorted(d for d in days if FIRST <= d <= LAST)


def chosen(option: str | None) -> str | None:
    """The ``--today`` option, else ``NODEPOOLS_TEST_TODAY``; None when neither names a date."""
    return option or os.environ.get(ENV) or None


def resolve(value: str | None) -> tuple[date, bool]:
    """(the date the tests expect, whether the pack is told it): ``PINNED`` by default; a date;
    or for ``run`` the run's UTC date, which the pack is left to read itself."""
    if value is None:
        return PINNED, True
    if value == RUN:
        return datetime.now(timezone.utc).date(), False
    try:
        return date.fromisoformat(value), True
    except ValueError:
        raise ValueError(f"--today / {ENV}: {value!r} is not a date YYYY-MM-DD nor {RUN!r}") from None


if __name__ == "__main__":  # make test-calendar: the dates, one a line
    print("\n".join(day.isoformat() for day in calendar()))
