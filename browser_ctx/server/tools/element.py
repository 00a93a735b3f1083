"""The one element a vision, evaluate or upload call names: ``target`` resolved to exactly one match.

Shared by the tool families that take an optional ``target`` and act on a single element without an
action record (:mod:`.vision`, :mod:`.evaluate`, :mod:`.page`).
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from ..._errors import ActionTimeout, SelectorError, translate
from ...browser.session import Tab
from ...browser.targets import locator_for
from ...settings import Settings

__all__ = ["one_element"]


async def one_element(tab: Tab, target: str, settings: Settings) -> Locator:
    """Resolve ``target`` (a ref or a Playwright selector) on ``tab`` to a locator matching exactly one element.

    The count waits at most ``settings.timeouts.read_ms`` milliseconds.

    Raises:
        SelectorError: no element matches, or several do (the count is given).
        ActionTimeout: the page did not answer in time.
        StaleRefError, PageError: a ref no longer on the page, a closed page (from ``locator_for``).
    """
    locator = locator_for(tab, target)
    try:
        n = await asyncio.wait_for(locator.count(), settings.timeouts.read_ms / 1000)
    except TimeoutError as exc:
        raise ActionTimeout(f"Timed out resolving {target!r}; the page may be busy. Try again.") from exc
    except PlaywrightError as exc:
        raise translate(exc, action="find", target=target) from exc
    if n == 0:
        raise SelectorError(f"No element matches {target!r}. Check the selector, or take a browser_snapshot "
                            "to find a ref.")
    if n > 1:
        raise SelectorError(f"{target!r} matches {n} elements; make it match one (a ref from browser_snapshot, "
                            "or a narrower selector).")
    return locator
