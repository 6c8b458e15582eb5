"""The CronJob schedule evaluator behind shared-pool-off-peak."""
from datetime import date

import pytest

from nodepools.policies.cron import CronError, first_outside, parse

START = date(2026, 1, 1)


def outside(schedule, zone=None, start="00:00", end="06:00", window_zone="UTC"):
    fired = first_outside(schedule, zone, start, end, window_zone, START)
    return None if fired is None else fired.strftime("%Y-%m-%d %H:%M")


def test_fields_steps_ranges_lists_and_names():
    spec = parse("*/20 1-3,5 ? JAN-MAR mon-fri")
    assert (sorted(spec.minutes), sorted(spec.hours), sorted(spec.months), sorted(spec.weekdays)) == (
        [0, 20, 40], [1, 2, 3, 5], [1, 2, 3], [1, 2, 3, 4, 5])
    assert (spec.dom_star, spec.dow_star) == (True, False)
    assert sorted(parse("10/15 * * * *").minutes) == [10, 25, 40, 55]  # a/n = a-max/n


def test_day_of_month_and_weekday_or_when_both_restricted():
    both = parse("0 0 13 * FRI")
    assert both.day_matches(date(2026, 2, 13)) and both.day_matches(date(2026, 2, 6))  # the 13th, or any Friday
    assert not both.day_matches(date(2026, 2, 7))
    stepped = parse("0 0 */2 * MON")  # a stepped star counts as restricted (robfig)
    assert stepped.day_matches(date(2026, 2, 3)) and stepped.day_matches(date(2026, 2, 2))


@pytest.mark.parametrize("bad", ["0 2 * *", "60 * * * *", "0 24 * * *", "0 0 0 * *", "0 0 * 13 *", "0 0 * * 7",
                                 "x * * * *", "0 0 * * MON-", "*/0 * * * *"])
def test_invalid_schedules(bad):
    with pytest.raises(CronError):
        parse(bad)


def test_inside_and_outside_the_window():
    assert outside("0 2 * * *") is None
    assert outside("@daily") is None
    assert outside("59 5 * * *") is None
    assert outside("0 6 * * *") == "2026-01-01 06:00"  # the end is exclusive
    assert outside("@hourly") == "2026-01-01 06:00"
    assert outside("0 3 1 7 *") is None  # only on July 1st, still at 03:00


def test_schedule_time_zone_and_daylight_saving():
    assert outside("0 2 * * *", "America/New_York") == "2026-01-01 07:00"
    # 01:30 in Berlin is 00:30 UTC in winter and 23:30 UTC in summer.
    assert outside("30 1 * * *", "Europe/Berlin") == "2026-03-29 23:30"
    assert outside("30 1 * * 1-5", "Europe/Berlin", end="06:00", start="23:00") is None


def test_windows_wrapping_midnight_and_in_another_zone():
    assert outside("0 23 * * *", start="22:00", end="04:00") is None
    assert outside("0 5 * * *", start="22:00", end="04:00") == "2026-01-01 05:00"
    assert outside("0 1 * * *", window_zone="Asia/Tokyo", start="09:00", end="11:00") is None
