"""Apply ``browser_emulate``'s settings to a tab with CDP, on the tab's capture session (one CDP session per tab;
overrides set on it last as long as the tab, across its navigations).

- ``cpuThrottling``: ``Emulation.setCPUThrottlingRate``;
- ``network``: ``Network.emulateNetworkConditions`` (the session has ``Network`` enabled);
- ``geolocation``: ``Emulation.setGeolocationOverride`` (``clearGeolocationOverride``), with the geolocation
  permission granted to the browser context so the page is not asked;
- ``timezone``: ``Emulation.setTimezoneOverride``; ``locale``: ``Emulation.setLocaleOverride`` (``Intl``) and the
  ``acceptLanguage`` of ``Emulation.setUserAgentOverride`` (``navigator.language``, the ``Accept-Language``
  header), which also carries ``userAgent``;
- ``colorScheme``, ``reducedMotion``: ``Emulation.setEmulatedMedia`` media features.

What is in force is kept on the tab (``Tab.family_state["emulation"]``, see :func:`in_force`), so the navigate
card and the performance report can say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .._errors import InvalidArgument, PageError, translate
from ..core import emulation as rules

if TYPE_CHECKING:
    from playwright.async_api import CDPSession

    from .session import Tab

__all__ = ["apply", "in_force", "summary", "throttling"]


def in_force(tab: Tab) -> dict[str, Any]:
    """What is emulated on ``tab`` now, by setting name (empty when nothing is)."""
    got = tab.family_state.get("emulation")
    if not isinstance(got, dict):
        got = tab.family_state["emulation"] = {}
    return got


def summary(tab: Tab) -> str:
    """Every setting in force on ``tab``, on one line (``""``: none)."""
    state = tab.family_state.get("emulation")
    return rules.describe(state) if isinstance(state, dict) else ""


def throttling(tab: Tab) -> str:
    """The CPU and network throttling in force on ``tab`` (``""``: none)."""
    state = tab.family_state.get("emulation")
    return rules.throttling(state) if isinstance(state, dict) else ""


async def _send(cdp: CDPSession, method: str, params: dict[str, Any], what: str) -> None:
    try:
        await cdp.send(method, params)
    except PlaywrightError as exc:
        message = str(exc).split("\n")[0]
        if "Invalid" in message or "invalid" in message:
            raise InvalidArgument(f"The browser refused {what}: {message.split(': ')[-1]}.") from exc
        raise translate(exc, action=f"set {what}") from exc


async def apply(tab: Tab, changes: dict[str, Any]) -> dict[str, Any]:
    """Apply ``changes`` (from :func:`browser_ctx.core.emulation.check`; ``None`` clears a setting) and return
    what is in force afterwards.

    Raises:
        InvalidArgument: the browser refused a value (an unknown timezone or locale).
        PageError: the tab has no CDP session (not Chromium).
    """
    cdp = tab.events.cdp
    if cdp is None:
        raise PageError("This tab has no CDP session (not a Chromium page, or it is closing); emulation needs "
                        "Chromium.")
    state = in_force(tab)
    for name, value in changes.items():
        if name == "cpuThrottling":
            await _send(cdp, "Emulation.setCPUThrottlingRate", {"rate": value or 1}, "the CPU throttling")
        elif name == "network":
            await _send(cdp, "Network.emulateNetworkConditions", rules.network_conditions(value),
                        "the network conditions")
        elif name == "geolocation":
            if value is None:
                await _send(cdp, "Emulation.clearGeolocationOverride", {}, "the geolocation")
            else:
                try:
                    await tab.page.context.grant_permissions(["geolocation"])
                except PlaywrightError as exc:
                    raise translate(exc, action="grant the geolocation permission") from exc
                await _send(cdp, "Emulation.setGeolocationOverride", dict(value), "the geolocation")
        elif name == "timezone":
            await _send(cdp, "Emulation.setTimezoneOverride", {"timezoneId": value or ""}, f"timezone {value!r}")
        elif name == "locale":
            await _send(cdp, "Emulation.setLocaleOverride", {"locale": value} if value else {}, f"locale {value!r}")
        if name in ("colorScheme", "reducedMotion"):
            continue
        if value is None:
            state.pop(name, None)
        else:
            state[name] = value
    if "locale" in changes or "userAgent" in changes:  # one override carries both (navigator.language too)
        agent = state.get("userAgent") or ""
        if not agent and state.get("locale"):
            try:
                agent = str((await cdp.send("Browser.getVersion")).get("userAgent") or "")
            except PlaywrightError as exc:
                raise translate(exc, action="read the browser's user agent") from exc
        await _send(cdp, "Emulation.setUserAgentOverride",
                    {"userAgent": agent, **({"acceptLanguage": state["locale"]} if state.get("locale") else {})},
                    "the user agent")
    if "colorScheme" in changes or "reducedMotion" in changes:
        media = {**{k: state.get(k) for k in ("colorScheme", "reducedMotion")},
                 **{k: v for k, v in changes.items() if k in ("colorScheme", "reducedMotion")}}
        features = [{"name": "prefers-color-scheme", "value": media.get("colorScheme") or ""},
                    {"name": "prefers-reduced-motion", "value": media.get("reducedMotion") or ""}]
        await _send(cdp, "Emulation.setEmulatedMedia", {"features": features}, "the media features")
        for k, v in media.items():
            if v is None:
                state.pop(k, None)
            else:
                state[k] = v
    return dict(state)
