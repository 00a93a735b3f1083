"""browser_generate_test through the real stdio client: a session on a committed form (refs, selectors, a test-id-only
element, a text-only one) becomes a pytest-playwright test that passes when run against the same page with
Debian's Chromium, and fails once the page's button label changes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from browser_ctx.browser.launcher import find_executable
from browser_ctx.settings import LaunchSettings
from tests.support.client import mcp_session, result_text
from tests.support.site import FIXTURES, serve_directory

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

#: pytest-playwright's fixtures, pointed at the system browser (``playwright install`` cannot download here), with
#: short timeouts so that the failing run fails in seconds.
CONFTEST = '''import pytest


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {{**browser_type_launch_args, "executable_path": {exe!r}}}


@pytest.fixture(autouse=True)
def _short_timeouts(page):
    page.set_default_timeout(3000)
'''


def run_pytest(folder: Path, test_file: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run([sys.executable, "-m", "pytest", str(test_file), "-q", "-p", "no:cacheprovider",
                           "--rootdir", str(folder)], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=180)


def ref(snapshot: str, pattern: str) -> str:
    for line in snapshot.splitlines():
        if re.search(pattern, line) and (m := re.search(r"\[((?:f\d+)?e\d+)\]", line)):
            return m.group(1)
    raise AssertionError(f"no ref for {pattern!r} in:\n{snapshot}")


async def test_a_session_becomes_a_pytest_playwright_test_that_passes_then_fails_on_a_new_label(tmp_path):
    page_dir, out = tmp_path / "site", tmp_path / "out"
    shutil.copytree(FIXTURES / "testing", page_dir)
    out.mkdir()
    with serve_directory(page_dir) as port:
        url = f"http://127.0.0.1:{port}/form.html"
        async with mcp_session("--caps", "core", "--caps", "testing", "--output-dir", str(out)) as s:
            async def call(tool: str, **args) -> str:
                result = await s.call_tool(tool, args)
                assert not result.is_error, (tool, result_text(result))
                return result_text(result)

            nothing = await s.call_tool("browser_generate_test", {})
            assert nothing.is_error and "Navigate and act in this tab first" in result_text(nothing)
            await call("browser_navigate", url=url)
            snap = await call("browser_snapshot")
            await call("browser_type", target=ref(snap, r'textbox "Name"'), text="Ann")
            await call("browser_fill_form", fields=[
                {"target": "#subscribe", "name": "Subscribe", "type": "checkbox", "value": "true"},
                {"target": "#plan", "name": "Plan", "type": "combobox", "value": "Pro"}])
            await call("browser_click", target=ref(snap, r'button "Save"'))
            assert await call("browser_verify", target="#status", text="Saved Ann (Pro, subscribed)") == "PASS"
            assert await call("browser_verify", text="saved ann") == "PASS"
            assert (await call("browser_verify", target="#status", text="Nope")).startswith("FAIL")  # not kept
            await call("browser_click", target='[data-testid="reset-profile"]')
            assert await call("browser_verify", target="#status", text="Cleared", url="form.html") == "PASS"
            await call("browser_click", target="text=Undo")
            assert await call("browser_verify", target="#status", text="Undone") == "PASS"
            made = await s.call_tool("browser_generate_test", {"name": "profile form"})
            typescript = await call("browser_generate_test", name="profile form", language="typescript")
            await call("browser_generate_test", mark=True)
            await call("browser_click", target=".chip")
            marked = await call("browser_generate_test", name="after mark")

        text, meta = result_text(made), made.structured_content
        test_file = out / "test_profile_form.py"
        assert meta["path"] == str(test_file) and meta["steps"] == 9 and meta["skipped"] == 0
        assert text.startswith(f"Saved a python Playwright test to {test_file}: 9 steps replayed")
        source = test_file.read_text(encoding="utf-8")
        assert source in text  # the preview is the file (small enough to be whole)
        code = source.split("def test_profile_form(page: Page) -> None:", 1)[1]
        assert f'page.goto("{url}")' in code
        assert 'page.get_by_role("textbox", name="Name", exact=True).fill("Ann")' in code
        assert 'page.get_by_role("button", name="Save", exact=True).click()' in code
        assert 'page.get_by_role("combobox", name="Plan", exact=True).select_option("Pro")' in code
        assert 'page.get_by_test_id("reset-profile").click()' in code
        assert 'page.get_by_text("Undo", exact=True).click()' in code
        assert 'to_contain_text("Saved Ann (Pro, subscribed)", use_inner_text=True)' in code
        assert "Nope" not in code and not re.search(r"\be\d+\b", code)  # failed verifies and refs are not in it
        assert (out / "profile-form.spec.ts").read_text(encoding="utf-8") in typescript
        assert "goto" in marked and marked.count("Undo") == 1 and "Save" not in marked.split("\n\n", 1)[1]

        (out / "conftest.py").write_text(CONFTEST.format(exe=find_executable(LaunchSettings())), encoding="utf-8")
        passed = run_pytest(out, test_file)
        assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-2000:]
        assert "1 passed" in passed.stdout

        form = page_dir / "form.html"
        form.write_text(form.read_text(encoding="utf-8").replace(">Save</button>", ">Store</button>"),
                        encoding="utf-8")
        failed = run_pytest(out, test_file)
        assert failed.returncode == 1, failed.stdout[-3000:]
        assert "1 failed" in failed.stdout and 'get_by_role("button", name="Save", exact=True)' in failed.stdout
