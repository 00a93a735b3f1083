"""The one classifier of Playwright errors (``_errors.error_kind``, ``net_error``, ``timed_out``), on real messages.

The messages in ``tests/support/playwright_errors.json`` were raised by Playwright and Chromium on a localhost page
(``python -m tests.support.playwright_errors`` collects them again); each is named here by what it means.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from browser_ctx._errors import (
    ActionTimeout,
    ErrorKind,
    InvalidArgument,
    NavigationError,
    PageError,
    PageNavigated,
    SelectorError,
    StaleRefError,
    error_kind,
    net_error,
    timed_out,
    translate,
)
from browser_ctx.browser.actions import action_error

_DATA = json.loads((Path(__file__).parent / "support" / "playwright_errors.json").read_text(encoding="utf-8"))
ERRORS: dict[str, dict[str, str]] = _DATA["errors"]

#: What each collected error means.
EXPECTED: dict[str, ErrorKind] = {
    "browser_closed_evaluate": "closed", "browser_closed_new_page": "closed", "cdp_after_detach": "closed",
    "cdp_page_closed": "closed", "closed_title": "closed", "closed_click": "closed",
    "new_cdp_session_closed_page": "closed", "crashed_evaluate": "closed",
    "evaluate_navigated": "navigated", "frame_evaluate_detached": "navigated", "frame_locator_detached": "navigated",
    "cdp_bad_context": "stale-context",
    "goto_crash": "net", "goto_dns": "net", "goto_interrupted": "net", "goto_route_aborted": "net",
    "goto_route_failed": "net", "goto_unsafe_port": "net", "goto_url_credentials_refused": "net",
    "selector_css": "selector", "selector_css_hash": "selector", "selector_css_invalid": "selector",
    "selector_xpath": "selector", "selector_role": "selector", "selector_empty_role": "selector",
    "selector_unknown_engine": "unknown-engine",
    "click_covered": "covered", "click_disabled": "disabled", "click_hidden": "hidden", "fill_readonly": "readonly",
    "click_unstable": "unstable", "click_outside_viewport": "offscreen",
    "fill_div": "wrong-element", "select_on_div": "wrong-element",
    "handle_click_detached": "detached",
    "select_missing_label": "no-option", "select_missing_value": "no-option",
    "unknown_key": "unknown-key",
    "tracing_start_twice": "tracing-on", "tracing_stop_unstarted": "tracing-off",
    "goto_timeout": "timeout", "locator_timeout": "timeout", "wait_for_timeout": "timeout",
    "cdp_bad_frame": "other", "cdp_no_resource": "other", "evaluate_syntax": "other", "evaluate_throws": "other",
    "strict_mode": "other",
}


def _raised(name: str) -> PlaywrightError:
    """The collected error rebuilt as Playwright's class (``TargetClosedError`` is an ``Error`` subclass)."""
    found = ERRORS[name]
    cls = PlaywrightTimeout if found["type"] == "TimeoutError" else PlaywrightError
    return cls(found["message"])


def test_every_collected_error_is_named_and_every_kind_is_seen() -> None:
    assert set(EXPECTED) == set(ERRORS)
    assert set(EXPECTED.values()) == set(get_args(ErrorKind))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_error_kind_of_real_messages(name: str) -> None:
    assert error_kind(_raised(name)) == EXPECTED[name], ERRORS[name]["message"][:300]


@pytest.mark.parametrize("message, kind", [
    # Messages browser/worlds.py raises itself, in the words of Playwright's.
    ("Target page, context or browser has been closed", "closed"),
    ("Target closed (session detached)", "closed"),
    ("Execution context was destroyed, most likely because of a navigation (no world found for the frame)",
     "navigated"),
    ("Element is not attached to the DOM", "detached"),
    ("no CDP session", "other"),
])
def test_error_kind_of_our_own_playwright_errors(message: str, kind: ErrorKind) -> None:
    assert error_kind(PlaywrightError(message)) == kind


def test_net_error_names_the_code() -> None:
    assert net_error(_raised("goto_url_credentials_refused")) == "net::ERR_INVALID_AUTH_CREDENTIALS"
    assert net_error(_raised("goto_interrupted")) == "net::ERR_ABORTED"
    assert net_error(_raised("goto_dns")) == "net::ERR_NAME_NOT_RESOLVED"
    assert net_error(_raised("goto_timeout")) is None
    assert net_error(_raised("closed_title")) is None


def test_timed_out() -> None:
    timeouts = {name for name, found in ERRORS.items() if found["type"] == "TimeoutError"}
    assert {"click_covered", "goto_timeout", "select_missing_label", "wait_for_timeout"} <= timeouts
    for name in ERRORS:
        assert timed_out(_raised(name)) == (name in timeouts), name
    # the message alone says so (an error re-raised as a plain Error), and asyncio's and ours count
    assert timed_out(PlaywrightError(ERRORS["wait_for_timeout"]["message"]))
    assert timed_out(TimeoutError()) and timed_out(ActionTimeout("Timed out after 5 s"))
    assert not timed_out(InvalidArgument("timeout must be a number"))


def test_translate_by_kind() -> None:
    closed = translate(_raised("closed_title"), action="read the page")
    assert type(closed) is PageError and "closed while trying to read the page" in str(closed)
    crashed = translate(_raised("crashed_evaluate"), action="read the page")
    assert type(crashed) is PageError and "closed while trying to read the page" in str(crashed)
    moved = translate(_raised("evaluate_navigated"), action="read the page")
    assert isinstance(moved, PageNavigated) and "navigated" in str(moved)
    assert isinstance(translate(_raised("frame_locator_detached"), action="read", target="p"), PageNavigated)
    bad = translate(_raised("selector_xpath"), action="read", target="xpath=//[")
    assert isinstance(bad, SelectorError) and "not a valid XPath expression" in str(bad) and "\n" not in str(bad)
    assert isinstance(translate(_raised("selector_unknown_engine"), action="read", target="bcpin=probe"),
                      SelectorError)
    assert type(translate(_raised("selector_css"), action="read")) is PageError  # no target: not a selector's fault
    net = translate(_raised("goto_dns"), action="navigate", url="http://nonexistent.invalid/")
    assert isinstance(net, NavigationError) and "net::ERR_NAME_NOT_RESOLVED" in str(net)
    timeout = translate(_raised("goto_timeout"), action="navigate", url="http://x/", timeout_ms=300)
    assert isinstance(timeout, ActionTimeout) and "after 300 ms loading http://x/" in str(timeout)
    other = translate(_raised("cdp_no_resource"), action="read")
    assert type(other) is PageError and "No resource with given identifier found" in str(other)


@pytest.mark.parametrize("name, cls, says", [
    ("click_covered", ActionTimeout, 'covered by <div id="over"></div>'),
    ("click_disabled", ActionTimeout, "it is disabled"),
    ("click_hidden", ActionTimeout, "it is not visible"),
    ("fill_readonly", ActionTimeout, "it is not editable"),
    ("click_unstable", ActionTimeout, "it kept moving"),
    ("click_outside_viewport", ActionTimeout, "outside the viewport"),
    ("fill_div", SelectorError, "Element is not an <input>"),
    ("select_on_div", SelectorError, "Element is not a <select> element"),
    ("handle_click_detached", StaleRefError, "removed from the page"),
    ("locator_timeout", ActionTimeout, "Timed out after 500 ms waiting to click 'e3'"),
    ("closed_click", PageError, "closed while trying to click"),
])
def test_action_error_by_kind(name: str, cls: type[Exception], says: str) -> None:
    error = action_error(_raised(name), verb="click", target="e3", timeout_ms=500)
    assert type(error) is cls and says in str(error), str(error)
    assert "\n" not in str(error) and "Call log" not in str(error)
