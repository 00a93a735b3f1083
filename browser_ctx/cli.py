"""Command line: ``browser-ctx [serve]``, ``browser-ctx snapshot URL``, ``browser-ctx text URL``, ``browser-ctx demo``.

stdout is the MCP channel for ``serve``; logs always go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from mcp.server.stdio import stdio_server

from . import __version__
from ._errors import BrowserCtxError
from .browser.browser_server import BrowserServer, BrowserServerOptions, check_options
from .browser.remote import RemoteBrowser
from .browser.session import BrowserSession, device_options
from .core.tokens import count_tokens
from .demo.run import run_demo
from .options import add_browser_options as add_context_options
from .options import add_tools_option, expand_config
from .server.app import all_tools, create_server
from .server.http import HttpOptions, check_bind, serve_http
from .server.pipeline import call_tool
from .settings import (
    ActionSettings,
    CapSettings,
    DialogPolicy,
    EventSettings,
    HttpCredentials,
    LaunchSettings,
    Settings,
    Timeouts,
)

__all__ = ["main", "build_parser", "settings_from_args"]

log = logging.getLogger("browser_ctx")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = text.lower().split("x")
        return int(w), int(h)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 1280x800, got {text!r}") from None


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


def _dialog_policy(text: str) -> DialogPolicy:
    try:
        return DialogPolicy.parse(text)
    except BrowserCtxError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _credentials(text: str) -> HttpCredentials:
    """``--http-credentials``: ``user:password`` or ``https://origin=user:password``; the error never
    repeats the value (argparse's own message would)."""
    try:
        return HttpCredentials.parse(text)
    except BrowserCtxError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _credentials_file(path: str) -> HttpCredentials:
    """``--http-credentials-file``: the first non-empty line of the file, as for ``--http-credentials``."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {type(exc).__name__}") from exc
    first = next((line for line in lines if line.strip()), "")
    return _credentials(first)


def _origins(text: str) -> tuple[str, ...]:
    return tuple(o.strip() for o in text.replace(";", ",").split(",") if o.strip())


def _add_browser_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("browser")
    g.add_argument("--executable-path", default=os.environ.get("BROWSER_CTX_EXECUTABLE") or None,
                   help="Chrome/Chromium binary (else $BROWSER_CTX_EXECUTABLE, PATH, then Playwright's browser)")
    g.add_argument("--headed", action="store_true", help="show the browser window (default: headless)")
    g.add_argument("--user-data-dir", help="keep a persistent profile here (default: isolated, in memory)")
    g.add_argument("--storage-state", help="Playwright storage-state JSON file to start logged in")
    g.add_argument("--ignore-https-errors", action="store_true", help="accept invalid TLS certificates")
    g.add_argument("--http-credentials", type=_credentials, metavar="[ORIGIN=]USER:PASSWORD",
                   default=os.environ.get("BROWSER_CTX_HTTP_CREDENTIALS") or None,
                   help="answer HTTP authentication (401/407) with these, e.g. https://intranet.example=ann:pw "
                        "for one origin only (default: $BROWSER_CTX_HTTP_CREDENTIALS); never shown in any output")
    g.add_argument("--http-credentials-file", type=_credentials_file, metavar="FILE",
                   help="read --http-credentials from the first line of FILE")
    g.add_argument("--chromium-arg", action="append", default=[], metavar="FLAG",
                   help="extra Chromium flag (repeatable), e.g. --chromium-arg=--lang=de")
    g.add_argument("--offline-external", action="store_true",
                   help="resolve every host but localhost/127.0.0.1 to nothing (tests, saved pages)")
    g.add_argument("--blocked-origins", type=_origins, default=(), metavar="LIST",
                   help="comma-separated origins whose requests are aborted")
    g.add_argument("--allowed-origins", type=_origins, default=(), metavar="LIST",
                   help="comma-separated origins; all others are aborted")
    g.add_argument("--viewport-size", type=_size, default=None, metavar="WxH",
                   help="viewport in CSS pixels (default 1280x800, or the --device's)")
    g.add_argument("--device", metavar="NAME",
                   help='emulate a Playwright device (viewport, scale factor, user agent, touch), e.g. "iPhone 15"')
    g.add_argument("--allowed-roots", type=_origins, default=(), metavar="LIST",
                   help="comma-separated folders browser_file_upload may read from (default: the working directory)")
    g.add_argument("--output-dir", metavar="DIR", default=os.environ.get("BROWSER_CTX_OUTPUT_DIR") or None,
                   help="folder for files saved with filename= and for downloads (default: $BROWSER_CTX_OUTPUT_DIR, "
                        "else the working directory; downloads then go to a temporary folder)")
    g.add_argument("--allow-scheme", action="append", default=[], metavar="SCHEME",
                   help="let browser_navigate open this non-http(s) scheme, e.g. file (repeatable)")
    add_context_options(g)  # --init-script, --user-agent, --proxy-server, --grant-permissions, --config
    r = p.add_argument_group("remote browser (connect instead of launching)")
    r.add_argument("--cdp-endpoint", metavar="URL",
                   help="connect over the Chrome DevTools Protocol, e.g. http://127.0.0.1:9222 (a Chrome started with "
                        "--remote-debugging-port, Browserless, a Selenium Grid 4 node)")
    r.add_argument("--ws-endpoint", metavar="URL",
                   help="connect to a Playwright browser server (playwright run-server / launchServer), ws://host:port/")
    r.add_argument("--remote-header", type=_header, action="append", default=[], metavar="'NAME: VALUE'",
                   help="HTTP header sent when connecting (repeatable), e.g. an auth token")
    r.add_argument("--connect-timeout", type=float, default=LaunchSettings.connect_timeout_ms, metavar="MS",
                   help="timeout of one connection attempt in ms (default %(default)s); "
                        f"{LaunchSettings.connect_attempts} attempts with backoff")
    c = p.add_argument_group("caps and timeouts")
    c.add_argument("--max-tokens", type=int, default=CapSettings.default_max_tokens,
                   help="default maxTokens per call (default %(default)s)")
    c.add_argument("--max-tokens-ceiling", type=int, default=CapSettings.ceiling_tokens,
                   help="largest maxTokens a call may ask for (default %(default)s)")
    c.add_argument("--max-chars-ceiling", type=int, default=CapSettings.ceiling_chars,
                   help="largest result in characters (default %(default)s)")
    c.add_argument("--max-image-tokens", type=int, default=CapSettings.image_ceiling_tokens,
                   help="largest image-token budget a screenshot may ask for (default %(default)s; "
                        f"{CapSettings.image_default_tokens} when a call gives none)")
    c.add_argument("--timeout-navigation", type=float, default=Timeouts.navigation_ms, metavar="MS",
                   help="page load timeout in ms (default %(default)s)")
    c.add_argument("--timeout-read", type=float, default=Timeouts.read_ms, metavar="MS",
                   help="page read timeout in ms (default %(default)s)")
    c.add_argument("--timeout-action", type=float, default=Timeouts.action_ms, metavar="MS",
                   help="element wait timeout in ms (default %(default)s)")
    c.add_argument("--timeout-call", type=float, default=Timeouts.call_ms, metavar="MS",
                   help="longest any one tool call may take before it is abandoned, in ms (default %(default)s)")
    a = p.add_argument_group("actions and dialogs")
    a.add_argument("--dialogs", type=_dialog_policy, default=DialogPolicy(), metavar="POLICY",
                   help="how dialogs are answered: accept, dismiss, or TYPE=accept|dismiss,... for alert, "
                        "beforeunload, confirm, prompt (default: accept alert and beforeunload, dismiss the others)")
    a.add_argument("--settle-quiet-ms", type=float, default=ActionSettings.quiet_ms, metavar="MS",
                   help="after an action, its requests, the DOM and layout must be quiet this long, in ms "
                        "(default %(default)s)")
    a.add_argument("--settle-max-ms", type=float, default=ActionSettings.max_ms, metavar="MS",
                   help="longest wait for the page to settle after an action, in ms (default %(default)s)")
    e = p.add_argument_group("console and network")
    e.add_argument("--console-entries", type=int, default=EventSettings.console_entries,
                   help="distinct console entries kept per tab (default %(default)s)")
    e.add_argument("--network-entries", type=int, default=EventSettings.network_entries,
                   help="requests kept per tab (default %(default)s)")
    e.add_argument("--no-redact", action="store_true", help="do not redact secrets (tokens, cookies, passwords)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Build :class:`Settings` from parsed arguments."""
    return Settings(
        caps=CapSettings(default_max_tokens=args.max_tokens, ceiling_tokens=args.max_tokens_ceiling,
                         ceiling_chars=args.max_chars_ceiling, image_ceiling_tokens=args.max_image_tokens,
                         image_default_tokens=min(CapSettings.image_default_tokens, args.max_image_tokens)),
        launch=LaunchSettings(
            executable_path=args.executable_path,
            headless=not args.headed,
            user_data_dir=args.user_data_dir,
            storage_state=args.storage_state,
            ignore_https_errors=args.ignore_https_errors,
            chromium_args=tuple(args.chromium_arg),
            offline_external=args.offline_external,
            blocked_origins=args.blocked_origins,
            allowed_origins=args.allowed_origins,
            viewport=args.viewport_size or (None if args.device else LaunchSettings.viewport),
            device=args.device,
            cdp_endpoint=args.cdp_endpoint,
            ws_endpoint=args.ws_endpoint,
            remote_headers=tuple(args.remote_header),
            connect_timeout_ms=args.connect_timeout,
            http_credentials=args.http_credentials_file or args.http_credentials,
            init_scripts=tuple(args.init_script), user_agent=args.user_agent, proxy_server=args.proxy_server,
            proxy_bypass=args.proxy_bypass, grant_permissions=args.grant_permissions,
        ),
        timeouts=Timeouts(navigation_ms=args.timeout_navigation, read_ms=args.timeout_read,
                          action_ms=args.timeout_action, call_ms=args.timeout_call),
        events=EventSettings(console_entries=args.console_entries, network_entries=args.network_entries,
                             redact=not args.no_redact),
        actions=ActionSettings(quiet_ms=args.settle_quiet_ms, max_ms=args.settle_max_ms),
        dialogs=args.dialogs,
        allowed_schemes=tuple(s.lower().rstrip(":") for s in args.allow_scheme),
        allowed_roots=tuple(args.allowed_roots),
        output_dir=args.output_dir,
        tools=getattr(args, "tools", ()),
    )


def build_parser() -> argparse.ArgumentParser:
    """Return the ``browser-ctx`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="browser-ctx",
        description="MCP server that drives a real browser and returns condensed, token-capped results.",
        epilog="Example: claude mcp add browser-ctx -- browser-ctx serve",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"browser-ctx {__version__}")
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="run the MCP server: stdio (the default) or streamable HTTP",
                           description="Run the MCP server: on stdio (the default), or over streamable HTTP at "
                                       "http://HOST:PORT/mcp with --transport http (readiness /healthz, liveness "
                                       "/livez, Prometheus /metrics).",
                           epilog="Examples: browser-ctx serve --caps all --headed\n"
                                  "          browser-ctx serve --transport http --port 8931",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    serve.add_argument("--caps", action="append", default=None, metavar="SET",
                       help="tool sets: core, debug, vision, pdf, devtools, testing, perf, emulation, extra (drag, "
                            "forward, reload), storage, network, "
                            "default (core+debug), all; repeatable")
    serve.add_argument("--no-evaluate", action="store_true", help="remove browser_evaluate")
    add_tools_option(serve, [t.name for t in all_tools()])
    h = serve.add_argument_group("transport")
    h.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio (default) or streamable HTTP at http://HOST:PORT/mcp (health at /healthz)")
    h.add_argument("--port", type=int, default=8931, help="HTTP port (default %(default)s; 0 picks a free one)")
    h.add_argument("--host", default="127.0.0.1",
                   help="HTTP interface (default %(default)s); any other needs --auth-token")
    h.add_argument("--auth-token", default=os.environ.get("BROWSER_CTX_AUTH_TOKEN"), metavar="TOKEN",
                   help="Bearer token HTTP clients must send (default $BROWSER_CTX_AUTH_TOKEN)")
    h.add_argument("--shared-context", action="store_true",
                   help="HTTP: one browser context for all clients (default: one per client session)")
    h.add_argument("--idle-timeout", type=float, default=1800.0, metavar="S",
                   help="HTTP: close a client's browser context after S seconds without a call (default %(default)s)")
    h.add_argument("--max-sessions", type=int, default=None, metavar="N",
                   help="HTTP: the most MCP sessions open at once; past it a new client gets 503 with Retry-After "
                        "(default: half this machine's memory / 512 MiB, between 2 and 64)")
    h.add_argument("--allowed-hosts", type=_origins, default=(), metavar="LIST",
                   help="HTTP: comma-separated Host header names to accept besides 127.0.0.1/localhost (a proxy "
                        "that passes the public host), e.g. mcp.example.com or mcp.example.com:8443")
    h.add_argument("--access-log", action="store_true",
                   help="HTTP: log one line per request and per tool call on stderr (no page data)")
    _add_browser_options(serve)

    snap = sub.add_parser("snapshot", help="print browser_snapshot of a URL with its token count",
                          description="Open URL and print what browser_snapshot returns, with token counts.",
                          epilog="Example: browser-ctx snapshot https://example.com --target main")
    text = sub.add_parser("text", help="print browser_text of a URL with its token count",
                          description="Open URL and print what browser_text returns, with token counts.",
                          epilog="Example: browser-ctx text https://example.com --target article --format text")
    for p in (snap, text):
        p.add_argument("url")
        p.add_argument("--target", help="ref or Playwright selector")
        p.add_argument("--max-tokens-call", type=int, dest="max_tokens_call", metavar="N",
                       help="maxTokens for this call (default: the server default)")
        p.add_argument("--offset", type=int, default=0, help="character offset to read on from")
        _add_browser_options(p)
    text.add_argument("--format", choices=("markdown", "text"), default="markdown")
    text.add_argument("--links", action="store_true", help="keep link URLs")

    pool = sub.add_parser("browser-server", help="serve this machine's Chromium to browser-ctx servers "
                          "(--ws-endpoint)",
                          description="Start Chromium once behind a Playwright browser server for "
                                      "`browser-ctx serve --ws-endpoint ws://HOST:PORT/`. Clients cannot choose "
                                      "the executable; any host but a loopback one needs --auth-token, which "
                                      "clients send with --remote-header 'Authorization: Bearer TOKEN'. "
                                      "GET /healthz answers 200 while the browser runs.",
                          epilog="Example: browser-ctx browser-server --port 3000 --max-clients 8")
    pool.add_argument("--host", default="127.0.0.1",
                      help="interface to listen on (default %(default)s); any other needs --auth-token")
    pool.add_argument("--port", type=int, default=3000, help="port (default %(default)s; 0 picks a free one)")
    pool.add_argument("--auth-token", default=os.environ.get("BROWSER_CTX_AUTH_TOKEN"), metavar="TOKEN",
                      help="Bearer token clients must send (default $BROWSER_CTX_AUTH_TOKEN)")
    pool.add_argument("--max-clients", type=int, default=16, metavar="N",
                      help="connections (browser-ctx servers) served at once; more get 503 (default %(default)s; "
                           "0 = no limit)")
    pool.add_argument("--executable-path", help="Chrome/Chromium binary (else $BROWSER_CTX_EXECUTABLE, PATH, "
                      "then Playwright's browser)")
    pool.add_argument("--headed", action="store_true", help="show the browser window (default: headless)")
    pool.add_argument("--chromium-arg", action="append", default=[], metavar="FLAG",
                      help="extra Chromium flag (repeatable)")
    pool.add_argument("--offline-external", action="store_true",
                      help="resolve every host but localhost/127.0.0.1 to nothing (tests)")

    demo = sub.add_parser("demo", help="serve the built-in demo site and show each tool's output and tokens",
                          description="Serve the demo site on localhost and run the main tools on it, printing "
                                      "each result's tokens beside Playwright's full aria snapshot.",
                          epilog="Example: browser-ctx demo")
    _add_browser_options(demo)
    return parser


def _check_remote(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.cdp_endpoint and args.ws_endpoint:
        parser.error("give only one of --cdp-endpoint and --ws-endpoint")
    if args.cdp_endpoint or args.ws_endpoint:
        try:
            RemoteBrowser(settings_from_args(args).launch)
        except ValueError as exc:
            parser.error(str(exc))


def _serve_http(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    options = HttpOptions(host=args.host, port=args.port, auth_token=args.auth_token,
                          shared_context=args.shared_context, idle_timeout=args.idle_timeout,
                          allowed_hosts=tuple(args.allowed_hosts), access_log=args.access_log,
                          max_sessions=args.max_sessions)
    try:
        check_bind(options)
        if args.user_data_dir and not args.shared_context:
            raise ValueError("--user-data-dir is one profile and cannot be split between clients; "
                             "add --shared-context")
    except ValueError as exc:
        parser.error(str(exc))
    try:
        asyncio.run(serve_http(settings_from_args(args), options, caps=tuple(args.caps or ("default",)),
                               evaluate=not args.no_evaluate))
    except OSError as exc:
        print(f"browser-ctx: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def _browser_server(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    options = BrowserServerOptions(host=args.host, port=args.port, auth_token=args.auth_token,
                                   max_clients=args.max_clients)
    launch = LaunchSettings(executable_path=args.executable_path or os.environ.get("BROWSER_CTX_EXECUTABLE"),
                            headless=not args.headed, chromium_args=tuple(args.chromium_arg),
                            offline_external=args.offline_external)
    try:
        check_options(options)
    except ValueError as exc:
        parser.error(str(exc))

    async def run() -> None:
        async with BrowserServer(launch, options) as server:
            print(f"browser-ctx: browser server at {server.endpoint} ({server.executable}; "
                  f"{'token required' if options.auth_token else 'no token: loopback only'}; "
                  f"max {options.max_clients or 'unlimited'} clients; health: /healthz)", file=sys.stderr, flush=True)
            task = asyncio.current_task()
            loop = asyncio.get_running_loop()
            assert task is not None
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(sig, task.cancel)
            with contextlib.suppress(asyncio.CancelledError):
                await server.serve_forever()

    try:
        asyncio.run(run())
    except BrowserCtxError as exc:
        print(f"browser-ctx: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"browser-ctx: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


async def _serve(args: argparse.Namespace) -> None:
    server = create_server(settings_from_args(args), caps=tuple(args.caps or ("default",)),
                           evaluate=not args.no_evaluate)
    task = asyncio.current_task()
    assert task is not None  # always set inside a running coroutine
    loop = asyncio.get_running_loop()
    signalled: list[int] = []

    def on_signal(sig: int) -> None:
        signalled.append(sig)
        task.cancel()

    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal, sig)
    async with stdio_server() as (read, write):
        with contextlib.suppress(asyncio.CancelledError):
            await server.run(read, write, server.create_initialization_options())
        if signalled:
            # The browser is closed by now (the lifespan closes it, shielded). The SDK's stdin reader is blocked
            # in a thread's read() that cannot be cancelled, so leaving stdio_server would wait for input that
            # may never come (the client still holds the pipe): exit here instead.
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)


async def run_once(settings: Settings, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Run tool calls in-process, as the server would, and return their MCP results."""
    specs = {t.name: t for t in all_tools()}
    results = []
    async with BrowserSession(settings) as session:
        for name, arguments in calls:
            results.append(await call_tool(specs[name], arguments, session, settings))
    return results


def _print_result(name: str, result: Any) -> None:
    body = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    tokens = count_tokens(body) + (count_tokens(json.dumps(result.structured_content, separators=(",", ":")))
                                   if result.structured_content else 0)
    meta = result.structured_content or {}
    status = "ERROR" if result.is_error else (
        f"truncated, nextOffset={meta.get('nextOffset')}" if meta.get("truncated") else "complete")
    print(f"── {name}: {tokens} tokens received, text and metadata ({status}; the whole rendered result is "
          f"{meta.get('fullTokens', tokens)} tokens of text)")
    print(body)


def _one_shot(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    tool = "browser_snapshot" if args.command == "snapshot" else "browser_text"
    call: dict[str, Any] = {}
    if args.target:
        call["target"] = args.target
    if args.max_tokens_call:
        call["maxTokens"] = args.max_tokens_call
    if args.offset:
        call["offset"] = args.offset
    if tool == "browser_text":
        call["format"] = args.format
        if args.links:
            call["links"] = True
    nav, result = asyncio.run(run_once(settings, [("browser_navigate", {"url": args.url}), (tool, call)]))
    if nav.is_error:
        _print_result("browser_navigate", nav)
        return 1
    _print_result(tool, result)
    return 1 if result.is_error else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``browser-ctx`` console script."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="browser-ctx: %(message)s")
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["serve", *argv]
    try:
        argv = expand_config(argv, parser)
    except ValueError as exc:
        parser.error(str(exc))
    args = parser.parse_args(argv)
    if getattr(args, "tools", ()) and (args.caps or args.no_evaluate and "browser_evaluate" in args.tools):
        parser.error("--tools names every tool offered: give it without --caps (and without --no-evaluate when "
                     "it names browser_evaluate)")
    if args.command in ("serve", "snapshot", "text", "demo"):
        try:  # contradictory or out-of-range settings are a usage error, before anything starts
            settings_from_args(args)
        except ValueError as exc:
            parser.error(str(exc))
        _check_remote(parser, args)
        if args.device:  # an unknown --device fails here, not on the first tool call
            try:
                asyncio.run(device_options(args.device))
            except BrowserCtxError as exc:
                parser.error(str(exc))
    if args.command == "browser-server":
        return _browser_server(parser, args)
    if args.command == "serve" and args.transport == "http":
        return _serve_http(parser, args)
    if args.command == "serve":
        asyncio.run(_serve(args))
        return 0
    if args.command in ("snapshot", "text"):
        return _one_shot(args)
    if args.command == "demo":
        return run_demo(settings_from_args(args))
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
