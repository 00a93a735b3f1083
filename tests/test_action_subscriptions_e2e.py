"""An action asks Playwright's driver for no event subscription of its own: the tab listens for file choosers for
its whole life (a subscription per action cost two round trips, added to every click and type), and a popup's PDF
is known without a context-wide response listener. In-process through the real pipeline and a real Chromium,
counting the messages sent to Playwright's driver."""

from __future__ import annotations

import re

import pytest
from playwright._impl import connection as _connection

from tests.support.inprocess import in_process

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


@pytest.fixture
def driver_methods(monkeypatch) -> list[str]:
    """The method of every message the process sends to Playwright's driver."""
    sent: list[str] = []
    send = _connection.Connection.send_message_to_server

    def counted(self, *args, **kwargs):
        sent.append(args[1])  # (object, method, params, …)
        return send(self, *args, **kwargs)

    monkeypatch.setattr(_connection.Connection, "send_message_to_server", counted)
    return sent


async def test_typing_and_clicking_subscribe_to_nothing_and_a_file_chooser_is_still_noted(site, driver_methods):
    async with in_process() as run:
        call = run.call
        await call("browser_navigate", {"url": f"{site}/actions/latency/toast.html"})
        snap = await call("browser_snapshot", {})
        name = re.search(r'textbox "Display name" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        del driver_methods[:]
        typed = await call("browser_type", {"target": name, "text": "Ada"})
        assert "At least 4 characters" in typed, typed  # the hint shown as you type is in the record
        assert "updateSubscription" not in driver_methods, driver_methods

        await call("browser_navigate", {"url": f"{site}/widgets/files.html"})
        snap = await call("browser_snapshot", {})
        attach = re.search(r'button "Attach a file" \[(e\d+)\]', snap).group(1)  # type: ignore[union-attr]
        del driver_methods[:]
        clicked = await call("browser_click", {"target": attach})
        assert "A file chooser opened (for a file)" in clicked, clicked
        assert "updateSubscription" not in driver_methods, driver_methods
        tab = await run.session.current_tab()
        assert tab.file_chooser is not None, "kept for browser_file_upload (tests/test_widgets_e2e.py answers it)"
