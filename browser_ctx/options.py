"""Command-line options that mirror ``@playwright/mcp``'s: ``--init-script``, ``--user-agent``, ``--proxy-server``,
``--proxy-bypass``, ``--grant-permissions``, ``--tools``, and ``--config FILE`` (JSON or TOML whose keys are the
options' names).

Each value is checked when parsed, so bad input is a usage error naming the option, before anything starts.
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["add_browser_options", "add_tools_option", "expand_config", "PERMISSIONS", "PROXY_SCHEMES"]

#: Permissions ``--grant-permissions`` accepts: those Playwright lists for ``grant_permissions``.
PERMISSIONS = ("accelerometer", "ambient-light-sensor", "background-sync", "camera", "clipboard-read",
               "clipboard-write", "geolocation", "gyroscope", "local-fonts", "local-network-access", "magnetometer",
               "microphone", "midi", "midi-sysex", "notifications", "payment-handler", "screen-wake-lock",
               "storage-access")
#: Proxy URL schemes Chromium takes.
PROXY_SCHEMES = ("http", "https", "socks4", "socks5")
#: Longest ``--user-agent``, in characters.
MAX_USER_AGENT = 1000
#: ``@playwright/mcp`` config keys (dotted paths into its nested file) with the option each one is here;
#: ``!`` before an option: the key's boolean is the option's negation (``headless: false`` = ``--headed``).
ALIASES = {
    "capabilities": "caps", "browser.userDataDir": "user-data-dir", "browser.initScript": "init-script",
    "browser.cdpEndpoint": "cdp-endpoint", "browser.launchOptions.executablePath": "executable-path",
    "browser.launchOptions.headless": "!headed", "browser.contextOptions.userAgent": "user-agent",
    "browser.launchOptions.proxy.server": "proxy-server", "browser.launchOptions.proxy.bypass": "proxy-bypass",
    "network.allowedOrigins": "allowed-origins", "network.blockedOrigins": "blocked-origins",
    "timeouts.action": "timeout-action", "timeouts.navigation": "timeout-navigation",
    "server.port": "port", "server.host": "host", "server.allowedHosts": "allowed-hosts",
}


def _list(text: str) -> list[str]:
    return [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]


def _init_script(path: str) -> str:
    p = Path(path).expanduser()
    try:
        p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise argparse.ArgumentTypeError(f"cannot read {path}: {why}; give a UTF-8 JavaScript file") from exc
    return str(p.resolve())


def _user_agent(text: str) -> str:
    if not text.strip() or any(ord(c) < 32 or ord(c) == 127 for c in text) or len(text) > MAX_USER_AGENT:
        raise argparse.ArgumentTypeError(f"give one line of up to {MAX_USER_AGENT} printable characters, e.g. "
                                         "'Mozilla/5.0 (X11; Linux x86_64) MyBot/1.0'")
    return text.strip()


def _proxy(text: str) -> str:
    value = text.strip()
    parts = urlsplit(value if "://" in value else f"http://{value}")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in PROXY_SCHEMES or not parts.hostname or port == -1 \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"expected [SCHEME://]HOST[:PORT] with SCHEME one of "
                                         f"{', '.join(PROXY_SCHEMES)}, e.g. http://proxy:3128 (got {text!r})")
    return value


def _permissions(text: str) -> tuple[str, ...]:
    names = _list(text)
    bad = [n for n in names if n not in PERMISSIONS]
    if bad or not names:
        raise argparse.ArgumentTypeError((f"unknown permission {bad[0]!r}" if bad else "no permission given")
                                         + f"; choose from {', '.join(PERMISSIONS)}")
    return tuple(names)


def add_browser_options(g: argparse._ArgumentGroup) -> None:
    """Add ``--init-script``, ``--user-agent``, ``--proxy-server``, ``--proxy-bypass``, ``--grant-permissions``
    and ``--config`` to the browser options group."""
    g.add_argument("--init-script", type=_init_script, action="append", default=[], metavar="FILE",
                   help="JavaScript run in every frame before the page's own scripts (repeatable)")
    g.add_argument("--user-agent", type=_user_agent, metavar="UA", help="User-Agent the browser sends and reports")
    g.add_argument("--proxy-server", type=_proxy, metavar="URL",
                   help="send every request through this proxy: http://host:3128, socks5://host:1080")
    g.add_argument("--proxy-bypass", metavar="LIST", help="comma-separated hosts not sent through the proxy")
    g.add_argument("--grant-permissions", type=_permissions, default=(), metavar="LIST",
                   help=f"comma-separated permissions granted to every origin: {', '.join(PERMISSIONS)}")
    g.add_argument("--config", metavar="FILE",
                   help="JSON or TOML file of options: keys are option names, camelCase or kebab-case "
                        '({"userAgent": "…", "caps": ["pdf"]}); options on the command line win')


def add_tools_option(p: argparse.ArgumentParser, names: list[str]) -> None:
    """Add ``--tools LIST`` (only these tools, from any caps set; each must be one of ``names``)."""
    def tools(text: str) -> tuple[str, ...]:
        given = _list(text)
        bad = [n for n in given if n not in names]
        if bad or not given:
            raise argparse.ArgumentTypeError((f"unknown tool {bad[0]!r}" if bad else "no tool given")
                                             + f"; valid tools: {', '.join(names)}")
        return tuple(dict.fromkeys(given))
    p.add_argument("--tools", type=tools, default=(), metavar="LIST",
                   help="offer only these tools (comma-separated names, from any caps set); not with --caps")


def _kebab(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", key).replace("_", "-").lower()


def _flatten(data: dict[str, Any], options: dict[str, argparse.Action], prefix: str = "") -> list[tuple[str, Any]]:
    """``(dotted key, value)`` pairs; a table is opened unless its key is an option or an alias."""
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and path not in ALIASES and "--" + _kebab(path) not in options:
            out += _flatten(value, options, path + ".")
        else:
            out.append((path, value))
    return out


def _args_for(key: str, value: Any, actions: dict[str, argparse.Action], path: Path) -> list[str]:
    """The command-line arguments of one config entry."""
    target = ALIASES.get(key, key)
    negate = target.startswith("!")
    flag = "--" + _kebab(target.lstrip("!"))
    action = actions.get(flag)
    if action is None or flag in ("--config", "--help", "--version"):
        valid = sorted(a[2:] for a in actions if a.startswith("--") and a not in ("--config", "--help", "--version"))
        raise ValueError(f"{path}: unknown option {key!r}; use option names such as {', '.join(valid)}")
    if action.nargs == 0:
        if not isinstance(value, bool):
            raise ValueError(f"{path}: {key} takes true or false (got {json.dumps(value)})")
        return [flag] if value != negate else []
    if isinstance(value, dict) and flag == "--viewport-size" and {"width", "height"} <= set(value):
        value = f"{value['width']}x{value['height']}"
    if isinstance(value, dict) or isinstance(value, bool) or value is None:
        raise ValueError(f"{path}: {key} takes {'a list or ' if action.default == [] else ''}a string or number "
                         f"(got {json.dumps(value)})")
    if isinstance(value, list):
        if isinstance(action, argparse._AppendAction):
            return [a for v in value for a in (flag, str(v))]
        return [flag, ",".join(str(v) for v in value)]
    return [flag, str(value)]


def expand_config(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Replace ``--config FILE`` in ``argv`` (a subcommand's arguments, ``argv[0]`` the subcommand) by the options
    FILE holds, placed first so that options given on the command line override them.

    FILE is TOML when it ends in ``.toml``, else JSON: one table/object whose keys are option names in
    camelCase or kebab-case (``"userAgent"``, ``"user-agent"``); ``true`` turns a flag on, a list repeats a
    repeatable option or is joined with commas; ``@playwright/mcp``'s nested keys in :data:`ALIASES` work too.

    Raises:
        ValueError: an unreadable file, bad syntax, an unknown key or a wrong type (the message names them).
    """
    at = next((i for i, a in enumerate(argv) if a == "--config" or a.startswith("--config=")), None)
    if at is None:
        return argv
    if argv[at] == "--config":
        if at + 1 >= len(argv):
            raise ValueError("--config needs a FILE")
        raw, rest = argv[at + 1], argv[:at] + argv[at + 2:]
    else:
        raw, rest = argv[at].split("=", 1)[1], argv[:at] + argv[at + 1:]
    path = Path(raw).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read --config {raw}: {getattr(exc, 'strerror', None) or type(exc).__name__}") \
            from exc
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"--config {raw} is not valid {'TOML' if path.suffix.lower() == '.toml' else 'JSON'}: "
                         f"{exc}") from exc
    if not isinstance(data, dict):
        raise ValueError(f"--config {raw} must hold one object of options, e.g. {{\"headed\": true}}")
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    command = parser if sub is None or not rest or rest[0] not in sub.choices else sub.choices[rest[0]]
    actions = {s: a for a in command._actions for s in a.option_strings}
    expanded = [a for key, value in _flatten(data, actions) for a in _args_for(key, value, actions, path)]
    return rest[:1] + expanded + rest[1:] if command is not parser else expanded + rest
