"""CronJob schedules: does every firing fall inside a daily window?

The CronJob controller parses ``spec.schedule`` with robfig/cron v3's standard
parser: five fields (minute, hour, day of month, month, day of week; names
JAN-DEC and SUN-SAT; ``*``, ``?``, ``a-b``, ``*/n``, ``a/n`` = ``a-max/n``,
lists), the macros ``@yearly`` ... ``@hourly``, and fires in ``spec.timeZone``
(unset = UTC). Day of month and day of week combine with OR when both are
restricted and with AND when either is ``*``/``?`` (a stepped ``*/n`` counts as
restricted, as in robfig). Every firing over four years (a full leap cycle and
every weekday/month combination, both DST transitions each year) is checked
against the window ``[start, end)`` in the window's own time zone; a window
whose start is after its end wraps past midnight.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
          "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
_MONTHS = {n: i + 1 for i, n in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}
_DAYS = {n: i for i, n in enumerate("SUN MON TUE WED THU FRI SAT".split())}
# (min, max, names) per field.
_FIELDS = ((0, 59, {}), (0, 23, {}), (1, 31, {}), (1, 12, _MONTHS), (0, 6, _DAYS))
SPAN_DAYS = 4 * 365 + 1


class CronError(ValueError):
    pass


@dataclass(frozen=True)
class Schedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    dom_star: bool
    dow_star: bool
    time_zone: str | None = None  # a CRON_TZ=/TZ= prefix

    def day_matches(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        dom, dow = day.day in self.days, day.isoweekday() % 7 in self.weekdays
        return (dom and dow) if self.dom_star or self.dow_star else (dom or dow)


def _number(text: str, names: dict[str, int]) -> int:
    if text.upper() in names:
        return names[text.upper()]
    if not text.isdigit():
        raise CronError(f"{text!r} is not a number")
    return int(text)


def _field(text: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    values: set[int] = set()
    star = False
    for part in text.split(","):
        span, _, step_text = part.partition("/")
        step = _number(step_text, {}) if step_text else 1
        if span in ("*", "?"):
            start, end, star = low, high, star or step == 1
        elif "-" in span:
            a, b = span.split("-", 1)
            start, end = _number(a, names), _number(b, names)
        else:
            start = _number(span, names)
            end = high if step_text else start
        if not low <= start <= end <= high or step < 1:
            raise CronError(f"{part!r} is outside {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values), star


def parse(schedule: str) -> Schedule:
    text, zone = schedule.strip(), None
    if text.startswith(("CRON_TZ=", "TZ=")):
        prefix, _, text = text.partition(" ")
        zone = prefix.split("=", 1)[1]
    text = MACROS.get(text.strip(), text.strip())
    fields = text.split()
    if len(fields) != 5:
        raise CronError(f"{schedule!r} does not have 5 fields (minute hour day-of-month month day-of-week)")
    parsed = [_field(f, *spec) for f, spec in zip(fields, _FIELDS)]
    return Schedule(*(p[0] for p in parsed), parsed[2][1], parsed[4][1], zone)


def _minute(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _inside(minute: int, start: int, end: int) -> bool:
    if start < end:
        return start <= minute < end
    return minute >= start or minute < end  # wraps past midnight (start == end: never)


def first_outside(schedule: str, time_zone: str | None, start: str, end: str, window_zone: str,
                  first_day: date) -> datetime | None:
    """The first firing (in the window's zone) outside ``[start, end)`` over ``SPAN_DAYS``
    from ``first_day``, or None when every firing is inside. Raises CronError or
    ZoneInfoNotFoundError for a bad schedule or zone."""
    spec = parse(schedule)
    zone, wzone = ZoneInfo(spec.time_zone or time_zone or "UTC"), ZoneInfo(window_zone)
    lo, hi = _minute(start), _minute(end)
    if (lo, hi) == (0, 1440):
        return None
    times = [time(h, m) for h in sorted(spec.hours) for m in sorted(spec.minutes)]
    clean_shifts: set[timedelta] = set()  # zone offset differences already checked for a whole day
    for offset in range(SPAN_DAYS):
        day = first_day + timedelta(days=offset)
        if not spec.day_matches(day):
            continue
        head, tail = datetime.combine(day, time(0, 0), zone), datetime.combine(day, time(23, 59), zone)
        shift = head.astimezone(wzone).utcoffset() - head.utcoffset()
        steady = shift == tail.astimezone(wzone).utcoffset() - tail.utcoffset()
        if steady and shift in clean_shifts:
            continue
        for clock in times:
            fired = datetime.combine(day, clock, zone).astimezone(wzone)
            if not _inside(fired.hour * 60 + fired.minute, lo, hi):
                return fired
        if steady:
            clean_shifts.add(shift)
    return None

__all__ = ["CronError", "Schedule", "ZoneInfoNotFoundError", "first_outside", "parse"]
