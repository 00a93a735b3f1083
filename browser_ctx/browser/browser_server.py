"""``browser-ctx browser-server``: a Playwright browser server with the Chromium browser-ctx finds.

``python -m playwright run-server`` launches only Playwright's own downloaded browsers (a host with just a
system Chromium fails every connect with "Executable doesn't exist"); choosing another executable needs
``--unsafe``, which lets anyone who reaches the port run any program, and it has no authentication. This
command serves the browser-ctx way instead:

- Chromium: found like every browser-ctx launch (:func:`~browser_ctx.browser.launcher.find_executable`:
  ``--executable-path``, ``$BROWSER_CTX_EXECUTABLE`` (read by the CLI), ``PATH``, Playwright's cache) and
  started once with :func:`~browser_ctx.browser.launcher.chromium_args`, through Playwright's documented
  ``chromium.launchServer`` run by Playwright's own Node driver (``browser_server.js``). Every client
  (each ``browser-ctx serve --ws-endpoint``) gets its own contexts in that one Chromium; a client's
  contexts are closed when it disconnects. Clients cannot choose the executable or its flags.
- The port: the Node server listens on ``127.0.0.1`` at a random secret path known only to this process.
  The public port (``--host``, ``--port``, default ``127.0.0.1:3000``) is a small front end that checks
  ``Authorization: Bearer <token>`` on the WebSocket upgrade when ``--auth-token`` is set (required for any
  host but a loopback one; clients send it with ``--remote-header 'Authorization: Bearer …'``), refuses
  more than ``--max-clients`` connections at once (``503``), and forwards the rest byte for byte.
- ``GET /healthz`` (no token): ``200 ok`` while the browser runs, ``503`` while it is being restarted.
- Faults: a Chromium that crashes or is killed is started again (backoff 0.5 s doubling to 10 s); its
  clients' connections drop, and their next calls reconnect to the same public endpoint.

Errors: :class:`ValueError` for options that cannot work (see :func:`check_options`);
:class:`~browser_ctx.BrowserNotFound` when no Chromium exists; :class:`~browser_ctx.BrowserLaunchError`
when the first start fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from playwright._impl._driver import compute_driver_executable

from .._errors import BrowserLaunchError, one_line
from ..settings import LaunchSettings
from .launcher import IGNORED_DEFAULT_ARGS, chromium_args, find_executable

__all__ = ["BrowserServerOptions", "BrowserServer", "check_options", "DEFAULT_PORT", "DEFAULT_MAX_CLIENTS"]

log = logging.getLogger("browser_ctx")

#: Default public port.
DEFAULT_PORT = 3000
#: Default for ``--max-clients``: WebSocket connections served at once (each browser-ctx server holds one).
DEFAULT_MAX_CLIENTS = 16
#: Hosts that may be bound without a token.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Seconds the Node server may take to launch Chromium and report its endpoint.
START_TIMEOUT_S = 60.0
#: Seconds a client may take to send its request head.
HEAD_TIMEOUT_S = 10.0
#: Longest request head accepted, in bytes.
HEAD_LIMIT_BYTES = 16_384
#: Backoff between restarts of a browser that died, in seconds: first and longest wait.
RESTART_BACKOFF_S = (0.5, 10.0)
_SCRIPT = Path(__file__).with_name("browser_server.js")


@dataclass(frozen=True)
class BrowserServerOptions:
    """Where and for whom the browser server listens.

    Attributes:
        host: interface of the public port (default ``127.0.0.1``); any other needs ``auth_token``.
        port: public TCP port (default 3000; 0 picks a free one).
        auth_token: Bearer token a client must send on the WebSocket upgrade; ``None`` = none (loopback only).
        max_clients: WebSocket connections served at once; more get ``503`` (default 16; 0 = no limit).
    """

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    auth_token: str | None = None
    max_clients: int = DEFAULT_MAX_CLIENTS


def check_options(options: BrowserServerOptions) -> None:
    """Refuse options that would expose the browser or cannot work.

    Raises:
        ValueError: a non-loopback ``host`` without a token, an empty token, or a negative ``max_clients``.
    """
    if options.auth_token is not None and not options.auth_token.strip():
        raise ValueError("--auth-token is empty")
    if options.host not in LOCAL_HOSTS and not options.auth_token:
        raise ValueError(f"refusing to serve the browser on {options.host} without --auth-token (or "
                         "$BROWSER_CTX_AUTH_TOKEN): anyone reaching the port could drive it; clients then send "
                         "--remote-header 'Authorization: Bearer TOKEN'")
    if options.max_clients < 0:
        raise ValueError("--max-clients must be 0 (no limit) or more")


def _node_driver() -> str:
    """The Node executable of Playwright's driver.

    Playwright's private ``_impl._driver`` module is the one place that knows where the driver lives (and
    honours ``$PLAYWRIGHT_NODEJS_PATH``); this is browser-ctx's only use of it.
    """
    node, _cli = compute_driver_executable()
    return node


def _package_dir() -> str:
    """Playwright's driver package (what ``require`` loads for ``chromium.launchServer``)."""
    _node, cli = compute_driver_executable()
    return str(Path(cli).parent)


def _response(status: str, body: str = "", extra: str = "") -> bytes:
    data = body.encode()
    return (f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(data)}\r\n"
            f"Connection: close\r\nCache-Control: no-store\r\n{extra}\r\n").encode() + data


class BrowserServer:
    """One Chromium behind a Playwright server, and the public front end that guards it.

    Use ``async with BrowserServer(launch, options) as server`` then ``await server.serve_forever()``;
    :attr:`endpoint` is the public ``ws://`` URL once started.

    Args:
        launch: how to find and start Chromium (executable, headless, extra flags).
        options: the public port (see :class:`BrowserServerOptions`).
    """

    def __init__(self, launch: LaunchSettings, options: BrowserServerOptions) -> None:
        check_options(options)
        self.launch = launch
        self.options = options
        self.executable = find_executable(launch)
        self._secret_path = "/" + secrets.token_urlsafe(24)
        self._internal: tuple[str, int] | None = None  # (host, port) of the Node server while it runs
        self._node: asyncio.subprocess.Process | None = None
        self._front: asyncio.Server | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._closing = False
        self._token = options.auth_token.encode() if options.auth_token else None
        #: WebSocket connections being forwarded now.
        self.clients = 0
        #: Browser starts so far (the first, then one per restart).
        self.starts = 0
        self.port = options.port

    @property
    def endpoint(self) -> str:
        """The public endpoint clients pass to ``--ws-endpoint``."""
        host = f"[{self.options.host}]" if ":" in self.options.host else self.options.host
        return f"ws://{host}:{self.port}/"

    async def __aenter__(self) -> BrowserServer:
        await self._start_node()
        self._front = await asyncio.start_server(self._handle, self.options.host, self.options.port,
                                                 limit=HEAD_LIMIT_BYTES)
        self.port = self._front.sockets[0].getsockname()[1]
        self._supervisor = asyncio.create_task(self._supervise(), name="browser-server supervisor")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def serve_forever(self) -> None:
        """Serve until cancelled."""
        assert self._front is not None
        await self._front.serve_forever()

    async def close(self) -> None:
        """Stop accepting, then close the browser (the Node server closes it when its stdin closes)."""
        self._closing = True
        if self._front is not None:
            self._front.close()
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        await self._stop_node()

    async def _start_node(self) -> None:
        node = await asyncio.create_subprocess_exec(
            _node_driver(), str(_SCRIPT), _package_dir(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        assert node.stdin is not None and node.stdout is not None
        config = {"executablePath": self.executable, "args": chromium_args(self.launch),
                  "ignoreDefaultArgs": list(IGNORED_DEFAULT_ARGS),
                  "headless": self.launch.headless, "wsPath": self._secret_path}
        node.stdin.write((json.dumps(config) + "\n").encode())
        await node.stdin.drain()
        try:
            line = await asyncio.wait_for(node.stdout.readline(), START_TIMEOUT_S)
            endpoint = json.loads(line)["wsEndpoint"] if line else None
        except (TimeoutError, ValueError, KeyError):
            endpoint = None
        if not endpoint:
            if node.returncode is None:
                node.kill()
            err = b""
            if node.stderr is not None:
                with contextlib.suppress(TimeoutError):
                    err = await asyncio.wait_for(node.stderr.read(2000), 5)
            await node.wait()
            raise BrowserLaunchError(f"Could not start {self.executable} as a Playwright server: "
                                     f"{one_line(err.decode(errors='replace'), 240) or 'no endpoint reported'}")
        parts = urlsplit(endpoint)
        assert parts.hostname is not None and parts.port is not None
        self._internal = (parts.hostname, parts.port)
        self._node = node
        self.starts += 1
        log.info("browser server: %s started (Playwright server on 127.0.0.1:%d)", self.executable, parts.port)

    async def _stop_node(self) -> None:
        node, self._node = self._node, None
        self._internal = None
        if node is None or node.returncode is not None:
            return
        assert node.stdin is not None
        node.stdin.close()  # the Node server closes the browser and exits
        try:
            await asyncio.wait_for(node.wait(), 15)
        except TimeoutError:
            node.kill()
            await node.wait()

    async def _supervise(self) -> None:
        """Start a new browser whenever the Node server exits (the browser crashed or was killed)."""
        delay = RESTART_BACKOFF_S[0]
        while not self._closing:
            node = self._node
            if node is not None:
                code = await node.wait()
                if self._closing:
                    return
                log.warning("browser server: the browser exited (code %s); starting a new one", code)
                self._node = None
                self._internal = None
            await asyncio.sleep(delay)
            try:
                await self._start_node()
                delay = RESTART_BACKOFF_S[0]
            except BrowserLaunchError as exc:
                log.warning("browser server: %s; retrying in %.1f s", exc, delay)
                delay = min(delay * 2, RESTART_BACKOFF_S[1])

    def _authorized(self, headers: dict[str, str]) -> bool:
        if self._token is None:
            return True
        scheme, _, given = headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self._token)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve_one(reader, writer)
        except (ConnectionError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            pass  # the client went away or sent garbage: nothing to answer
        finally:
            writer.close()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT_S)
        request_line, *lines = head.decode("latin-1").split("\r\n")
        parts = request_line.split(" ")
        if len(parts) != 3:
            writer.write(_response("400 Bad Request"))
            return
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        path, _, query = target.partition("?")
        if method == "GET" and path == "/healthz":
            up = self._internal is not None
            writer.write(_response("200 OK" if up else "503 Service Unavailable", "ok\n" if up else "restarting\n"))
            return
        if not self._authorized(headers):
            writer.write(_response("401 Unauthorized", extra="WWW-Authenticate: Bearer\r\n"))
            return
        if headers.get("upgrade", "").lower() != "websocket":
            writer.write(_response("400 Bad Request", "a Playwright browser server: connect with "
                                   "browser-ctx serve --ws-endpoint ws://HOST:PORT/\n"))
            return
        max_clients = self.options.max_clients
        if (max_clients and self.clients >= max_clients) or self._internal is None:
            why = "every --max-clients slot is taken" if self._internal else "the browser is restarting"
            writer.write(_response("503 Service Unavailable", f"{why}\n", "Retry-After: 1\r\n"))
            return
        host, port = self._internal
        up_reader, up_writer = await asyncio.open_connection(host, port)
        self.clients += 1
        try:
            forwarded = [f"{method} {self._secret_path}{'?' + query if query else ''} {version}"]
            forwarded += [line for line in lines if line and not line.lower().startswith("authorization:")]
            up_writer.write(("\r\n".join(forwarded) + "\r\n\r\n").encode("latin-1"))
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        finally:
            self.clients -= 1
            up_writer.close()

    @staticmethod
    async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65_536):
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass  # one side went away; closing the other below ends the connection
        finally:
            sink.close()
