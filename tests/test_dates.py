"""Pure tests of :mod:`browser_ctx.core.dates`: values for native date and time inputs."""

from __future__ import annotations

import pytest

from browser_ctx._errors import InvalidArgument
from browser_ctx.core.dates import input_value


@pytest.mark.parametrize(("kind", "given", "iso"), [
    ("date", "2025-03-15", "2025-03-15"),
    ("date", "2025/3/5", "2025-03-05"),
    ("date", "03/15/2025", "2025-03-15"),      # month first (US): the day is over 12
    ("date", "15/03/2025", "2025-03-15"),      # day first: the first number is over 12
    ("date", "04/04/2025", "2025-04-04"),      # same either way
    ("date", "15.03.2025", "2025-03-15"),      # dots: day first
    ("date", "March 15, 2025", "2025-03-15"),
    ("date", "15 Mar 2025", "2025-03-15"),
    ("date", "Dec 1st 2026", "2026-12-01"),
    ("time", "14:30", "14:30"),
    ("time", "9:05", "09:05"),
    ("time", "14:30:15", "14:30:15"),
    ("time", "2:30 PM", "14:30"),
    ("time", "12 am", "00:00"),
    ("datetime-local", "2025-03-15T14:30", "2025-03-15T14:30"),
    ("datetime-local", "15.03.2025 14:30", "2025-03-15T14:30"),
    ("datetime-local", "03/15/2025, 2:30 pm", "2025-03-15T14:30"),
    ("month", "2025-03", "2025-03"),
    ("month", "3/2025", "2025-03"),
    ("month", "March 2025", "2025-03"),
    ("week", "2025-W11", "2025-W11"),
    ("week", "2025 w3", "2025-W03"),
    ("date", "", ""),                          # clears the field
])
def test_values_in_the_inputs_iso_form(kind: str, given: str, iso: str) -> None:
    assert input_value(kind, given) == iso


@pytest.mark.parametrize(("kind", "given", "expected"), [
    ("date", "03/04/2025", "ambiguous"),       # March 4 or 3 April
    ("date", "2025-02-30", "YYYY-MM-DD"),      # no such day
    ("date", "tomorrow", "YYYY-MM-DD"),
    ("time", "25:00", "HH:MM"),
    ("time", "13:00 pm", "HH:MM"),
    ("datetime-local", "2025-03-15", "YYYY-MM-DDTHH:MM"),
    ("month", "2025-13", "YYYY-MM"),
    ("week", "2025-W54", "YYYY-Www"),
])
def test_refused_values_name_the_format(kind: str, given: str, expected: str) -> None:
    with pytest.raises(InvalidArgument, match=expected) as err:
        input_value(kind, given)
    assert "\n" not in str(err.value) and repr(given) in str(err.value)
