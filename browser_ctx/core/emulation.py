"""What ``browser_emulate`` may set, checked and described (pure; :mod:`browser_ctx.browser.emulation` applies it).

The state is a plain dict of what is in force, in the tool's own names: ``cpuThrottling`` (slow-down factor),
``network`` (a preset name or ``{download, upload, latency}``: kbit/s, kbit/s, ms), ``geolocation``
(``{latitude, longitude, accuracy}``: degrees, degrees, m), ``timezone`` (IANA id), ``locale`` (BCP 47),
``colorScheme``, ``reducedMotion``, ``userAgent``. A value of ``null`` (``None``), or ``1`` for
``cpuThrottling`` and ``"none"`` for ``network``, clears that setting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .._errors import InvalidArgument

__all__ = ["NETWORK_PRESETS", "FIELDS", "check", "describe", "network_conditions", "throttling"]

#: Network presets as DevTools (and Puppeteer's ``PredefinedNetworkConditions``) define them: download and upload
#: in kbit/s, latency in ms; ``offline`` has no throughput.
NETWORK_PRESETS: dict[str, dict[str, float]] = {
    "slow-3g": {"download": 400, "upload": 400, "latency": 2000},
    "fast-3g": {"download": 1440, "upload": 675, "latency": 562.5},
    "fast-4g": {"download": 8100, "upload": 1350, "latency": 165},
    "offline": {"download": 0, "upload": 0, "latency": 0},
}
#: The settings, in the order results list them.
FIELDS = ("cpuThrottling", "network", "geolocation", "timezone", "locale", "colorScheme", "reducedMotion",
          "userAgent")
_SCHEMES = ("light", "dark", "no-preference")
_MOTION = ("reduce", "no-preference")


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise InvalidArgument(f"{name} must be a number from {low:g} to {high:g} (got {value!r}).")
    return float(value)


def _string(value: Any, name: str, limit: int = 100) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise InvalidArgument(f"{name} must be a non-empty string of at most {limit} characters (got {value!r}); "
                              "pass null to clear it.")
    return value.strip()


def _network(value: Any) -> Any:
    if isinstance(value, str):
        name = value.strip().lower()
        if name == "none":
            return None
        if name not in NETWORK_PRESETS:
            raise InvalidArgument(f"network must be one of {', '.join(NETWORK_PRESETS)}, none, or "
                                  f"{{download, upload, latency}} (got {value!r}).")
        return name
    if isinstance(value, Mapping):
        unknown = set(value) - {"download", "upload", "latency"}
        if unknown or not value:
            raise InvalidArgument("network as an object takes download and upload (kbit/s) and latency (ms); "
                                  f"got {', '.join(sorted(map(str, unknown))) or 'nothing'}.")
        return {k: _number(value.get(k, 0), f"network.{k}", 0, 10_000_000) for k in ("download", "upload", "latency")}
    raise InvalidArgument(f"network must be a preset name or {{download, upload, latency}} (got {value!r}).")


def _geolocation(value: Any) -> dict[str, float]:
    if not isinstance(value, Mapping) or "latitude" not in value or "longitude" not in value \
            or set(value) - {"latitude", "longitude", "accuracy"}:
        raise InvalidArgument("geolocation takes {latitude, longitude, accuracy?} (degrees, degrees, m); pass "
                              "null to clear it.")
    return {"latitude": _number(value["latitude"], "geolocation.latitude", -90, 90),
            "longitude": _number(value["longitude"], "geolocation.longitude", -180, 180),
            "accuracy": _number(value.get("accuracy", 50), "geolocation.accuracy", 0, 1e7)}


def check(args: Mapping[str, Any]) -> dict[str, Any]:
    """The settings ``args`` changes, checked and normalised (``None``: clear it); other keys are ignored.

    Raises:
        InvalidArgument: a value out of range or of the wrong kind, naming the parameter.
    """
    out: dict[str, Any] = {}
    for name in FIELDS:
        if name not in args:
            continue
        value = args[name]
        if value is None:
            out[name] = None
        elif name == "cpuThrottling":
            rate = _number(value, name, 1, 20)
            out[name] = None if rate == 1 else rate
        elif name == "network":
            out[name] = _network(value)
        elif name == "geolocation":
            out[name] = _geolocation(value)
        elif name == "colorScheme":
            if value not in _SCHEMES:
                raise InvalidArgument(f"colorScheme must be one of {', '.join(_SCHEMES)} (got {value!r}).")
            out[name] = value
        elif name == "reducedMotion":
            if value not in _MOTION:
                raise InvalidArgument(f"reducedMotion must be one of {', '.join(_MOTION)} (got {value!r}).")
            out[name] = value
        else:
            out[name] = _string(value, name, 500 if name == "userAgent" else 100)
    return out


def network_conditions(value: Any) -> dict[str, Any]:
    """CDP ``Network.emulateNetworkConditions`` parameters for a ``network`` setting (``None``: no throttling);
    throughput in bytes/s, ``-1`` for none."""
    if value is None:
        return {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    if value == "offline":
        return {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0}
    spec = NETWORK_PRESETS[value] if isinstance(value, str) else value
    rate = lambda kbit: kbit * 1000 / 8 if kbit > 0 else -1  # noqa: E731 - kbit/s -> bytes/s
    return {"offline": False, "latency": spec["latency"], "downloadThroughput": rate(spec["download"]),
            "uploadThroughput": rate(spec["upload"])}


def _net(value: Any) -> str:
    if value == "offline":
        return "network offline"
    spec = NETWORK_PRESETS[value] if isinstance(value, str) else value
    name = f"{value} " if isinstance(value, str) else ""
    return (f"network {name}({spec['download']:,.0f} kbit/s down, {spec['upload']:,.0f} up, "
            f"{spec['latency']:,.0f} ms latency)")


def describe(state: Mapping[str, Any]) -> str:
    """What is in force, on one line (``""`` when nothing is)."""
    parts: list[str] = []
    for name in FIELDS:
        value = state.get(name)
        if value is None:
            continue
        if name == "cpuThrottling":
            parts.append(f"CPU {value:g}× slower")
        elif name == "network":
            parts.append(_net(value))
        elif name == "geolocation":
            parts.append(f"geolocation {value['latitude']:g},{value['longitude']:g} (±{value['accuracy']:g} m)")
        elif name == "colorScheme":
            parts.append(f"colour scheme {value}")
        elif name == "reducedMotion":
            parts.append(f"reduced motion {value}")
        elif name == "userAgent":
            parts.append(f'user agent "{value if len(value) <= 60 else value[:59] + "…"}"')
        else:
            parts.append(f"{name} {value}")
    return "; ".join(parts)


def throttling(state: Mapping[str, Any]) -> str:
    """Only the CPU and network throttling in force (``""``: none), for figures read beside it."""
    return describe({k: state.get(k) for k in ("cpuThrottling", "network")})
