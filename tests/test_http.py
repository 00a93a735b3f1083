"""The localhost HTTP server (browser_ctx._http) used by the demo, the tests and the benchmark."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest

from browser_ctx._http import serve_directory


def _get(url: str) -> tuple[int, Message, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:  # localhost only
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def _api(handler) -> None:
    body = json.dumps({"path": handler.path, "method": handler.command}).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_serves_files_and_routes_on_both_hostnames(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text("<h1>hello fixture</h1>", encoding="utf-8")
    with serve_directory(tmp_path, routes={"/api/items": _api}) as port:
        for host in ("127.0.0.1", "localhost"):
            status, headers, body = _get(f"http://{host}:{port}/page.html")
            assert status == 200
            assert body == b"<h1>hello fixture</h1>"
            assert headers["Content-Type"] == "text/html; charset=utf-8"
            assert headers["Cache-Control"] == "no-store"

            status, headers, body = _get(f"http://{host}:{port}/api/items?x=1")
            assert status == 200
            assert json.loads(body) == {"path": "/api/items?x=1", "method": "GET"}
            assert headers["Cache-Control"] == "no-store"

        status, _, _ = _get(f"http://127.0.0.1:{port}/missing.json")
        assert status == 404
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/items", data=b"{}", method="POST")
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert json.loads(resp.read())["method"] == "POST"


def test_routes_added_while_serving_take_effect(tmp_path: Path) -> None:
    routes: dict = {}
    with serve_directory(tmp_path, routes=routes) as port:
        assert _get(f"http://127.0.0.1:{port}/late")[0] == 404
        routes["/late"] = _api
        assert _get(f"http://127.0.0.1:{port}/late")[0] == 200


def test_port_closed_after_exit(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    with serve_directory(tmp_path) as port:
        assert _get(f"http://127.0.0.1:{port}/a.txt")[0] == 200
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_quiet_logs(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with serve_directory(tmp_path) as port:
        _get(f"http://127.0.0.1:{port}/")
        _get(f"http://127.0.0.1:{port}/nope")
    out, err = capfd.readouterr()
    assert out == ""
    assert "GET" not in err


def test_refuses_missing_root(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        with serve_directory(tmp_path / "absent"):
            pass


def test_charset_can_be_left_to_sniffing(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text("<p>x</p>", encoding="utf-8")
    (tmp_path / "i.png").write_bytes(b"\x89PNG")
    with serve_directory(tmp_path, charset=None) as port:
        assert _get(f"http://127.0.0.1:{port}/p.html")[1]["Content-Type"] == "text/html"
    with serve_directory(tmp_path) as port:
        assert _get(f"http://127.0.0.1:{port}/i.png")[1]["Content-Type"] == "image/png"
