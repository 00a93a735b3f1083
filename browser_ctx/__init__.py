"""browser-ctx: an MCP server that drives a real browser and returns condensed, token-capped results."""

from ._errors import (
    ActionTimeout,
    BrowserCtxError,
    BrowserLaunchError,
    BrowserNotFound,
    InvalidArgument,
    NavigationError,
    PageError,
    SchemeRefused,
    SelectorError,
    StaleRefError,
)
from .settings import CapSettings, EventSettings, LaunchSettings, Settings, Timeouts

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Settings",
    "CapSettings",
    "LaunchSettings",
    "Timeouts",
    "EventSettings",
    "BrowserCtxError",
    "InvalidArgument",
    "SchemeRefused",
    "BrowserNotFound",
    "BrowserLaunchError",
    "NavigationError",
    "SelectorError",
    "StaleRefError",
    "ActionTimeout",
    "PageError",
]
