"""Shared fixtures: the local fixtures site, the anyio backend, and the guard of the ``e2e`` marker.

Tests that launch a browser or a server subprocess are marked ``e2e`` (registered in
``pyproject.toml``); ``pytest -m "not e2e"`` is the fast loop. The autouse guard below makes the
marker honest: a test without it that starts Chromium, Playwright's driver or a browser-ctx server
fails at once with a message that says to mark it.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.e2e import starts_browser_or_server
from tests.support.fault_pages import serve_fault_pages
from tests.support.site import FIXTURES, serve_directory


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """Base URL (``http://127.0.0.1:PORT``) of the fixtures site; ``localhost:PORT`` is a second origin."""
    with serve_directory(FIXTURES) as port:
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    """Every Playwright protocol message the process sends, in order: (method, CDP method of a ``send`` or
    ``""``, the CDP command's params or the message's)."""
    from playwright._impl import connection  # noqa: PLC0415 - only the tests that ask for it patch the driver

    log: list[tuple[str, str, dict[str, Any]]] = []
    send = connection.Connection.send_message_to_server

    def counted(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
        given = params if isinstance(params, dict) else {}
        cdp = str(given.get("method", "")) if method == "send" else ""
        log.append((method, cdp, given.get("params", {}) if cdp else given))
        return send(self, obj, method, params, options)

    monkeypatch.setattr(connection.Connection, "send_message_to_server", counted)
    return log


@pytest.fixture(scope="session")
def other_origin(site: str) -> str:
    """The same fixtures site on ``localhost``: a different origin from :func:`site`."""
    return site.replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def fault_site() -> Iterator[str]:
    """Base URL of the fault pages (:mod:`tests.support.fault_pages`); ``localhost`` is another site."""
    with serve_fault_pages() as base:
        yield base


class _UnmarkedProcessStart(subprocess.Popen):
    """``subprocess.Popen`` that refuses to start a browser or server for a test not marked ``e2e``."""

    test_id = ""
    _child_created = False  # so Popen.__del__ of a refused start has nothing to reap

    def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
        argv = shlex.split(args) if isinstance(args, str) else [str(a) for a in args]
        if starts_browser_or_server(argv):
            raise RuntimeError(
                f"{self.test_id} starts {shlex.join(argv)[:120]!r} but is not marked e2e; "
                "add pytestmark = pytest.mark.e2e (or @pytest.mark.e2e) so `pytest -m 'not e2e'` stays fast"
            )
        super().__init__(args, *rest, **kwargs)


@pytest.fixture(autouse=True)
def _e2e_marker_is_honest(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a test that is not marked ``e2e`` fail if it launches a browser or a server subprocess.

    asyncio (and so Playwright and the mcp stdio client) starts processes through
    ``subprocess.Popen``, looked up at call time, so replacing it for the test covers them all.
    """
    if request.node.get_closest_marker("e2e") is not None:
        return
    guard = type("_Guard", (_UnmarkedProcessStart,), {"test_id": request.node.nodeid})
    monkeypatch.setattr(subprocess, "Popen", guard)
