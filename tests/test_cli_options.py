"""The options that mirror @playwright/mcp's (--init-script, --user-agent, --proxy-server, --proxy-bypass,
--grant-permissions, --tools, --config FILE): parsed into Settings, bad values a one-line usage error, and the
tool selection they make."""

from __future__ import annotations

import json

import pytest

from browser_ctx.browser.launcher import context_options
from browser_ctx.cli import build_parser, main, settings_from_args
from browser_ctx.options import expand_config
from browser_ctx.server.app import CAPS_SETS, select_tools
from browser_ctx.server.tools import all_tools
from browser_ctx.settings import LaunchSettings


def parse(*argv: str):
    parser = build_parser()
    return settings_from_args(parser.parse_args(expand_config(["serve", *argv], parser)))


def usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["serve", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_context_options_reach_the_launch_settings(tmp_path):
    script = tmp_path / "init.js"
    script.write_text("window.__init = 1;", encoding="utf-8")
    s = parse("--init-script", str(script), "--init-script", str(script), "--user-agent", "MyBot/1.0",
              "--proxy-server", "socks5://127.0.0.1:1080", "--proxy-bypass", "localhost,.internal",
              "--grant-permissions", "geolocation, clipboard-read", "--ignore-https-errors")
    launch = s.launch
    assert launch.init_scripts == (str(script.resolve()),) * 2
    assert (launch.user_agent, launch.proxy_server, launch.proxy_bypass) == \
        ("MyBot/1.0", "socks5://127.0.0.1:1080", "localhost,.internal")
    assert launch.grant_permissions == ("geolocation", "clipboard-read") and launch.ignore_https_errors
    assert context_options(launch) == {"user_agent": "MyBot/1.0", "permissions": ["geolocation", "clipboard-read"],
                                       "proxy": {"server": "socks5://127.0.0.1:1080", "bypass": "localhost,.internal"}}
    assert context_options(LaunchSettings()) == {}
    assert parse("--proxy-server", "proxy.example:3128").launch.proxy_server == "proxy.example:3128"


@pytest.mark.parametrize("argv, says", [
    (("--init-script", "/nonexistent/init.js"), "argument --init-script: cannot read /nonexistent/init.js"),
    (("--user-agent", "two\nlines"), "argument --user-agent: give one line"),
    (("--user-agent", " "), "argument --user-agent: give one line"),
    (("--proxy-server", "ftp://proxy:21"), "argument --proxy-server: expected [SCHEME://]HOST[:PORT]"),
    (("--proxy-server", "http://proxy:99999"), "argument --proxy-server: expected"),
    (("--proxy-server", "http://proxy:3128/path"), "argument --proxy-server: expected"),
    (("--grant-permissions", "geolocation,telepathy"), "unknown permission 'telepathy'; choose from accelerometer"),
    (("--grant-permissions", ","), "no permission given; choose from"),
    (("--tools", "browser_navigate,browser_nope"), "unknown tool 'browser_nope'; valid tools: browser_navigate"),
    (("--tools", "browser_navigate", "--caps", "all"), "--tools names every tool offered: give it without --caps"),
    (("--tools", "browser_evaluate", "--no-evaluate"), "without --no-evaluate"),
])
def test_bad_values_are_one_line_usage_errors(capsys, argv, says):
    assert says in usage_error(capsys, *argv)


def test_a_bad_init_script_file_is_refused(capsys, tmp_path):
    binary = tmp_path / "x.js"
    binary.write_bytes(b"\xff\xfe\x00")
    assert "UnicodeDecodeError; give a UTF-8 JavaScript file" in usage_error(capsys, "--init-script", str(binary))


def test_tools_allowlist_picks_exactly_those_from_any_caps_set():
    s = parse("--tools", "browser_navigate,browser_pdf_save,browser_navigate")
    assert s.tools == ("browser_navigate", "browser_pdf_save")
    assert [t.name for t in select_tools(only=s.tools)] == ["browser_navigate", "browser_pdf_save"]
    assert [t.name for t in select_tools(("all",), evaluate=False, only=("browser_evaluate",))] == []


def test_every_tool_is_in_a_caps_set_and_all_is_everything():
    groups = {g for sets in CAPS_SETS.values() for g in sets}
    assert {t.caps for t in all_tools()} <= groups
    assert {t.name for t in select_tools(("all",))} == {t.name for t in all_tools()}
    assert {t.name for t in select_tools(("pdf", "devtools", "testing"))} == \
        {"browser_pdf_save", "browser_start_tracing", "browser_stop_tracing", "browser_generate_test"}


def test_testing_caps_records_what_acts_and_checks():
    plain = {t.name: t.handler for t in select_tools(("core",))}
    recorded = {t.name: t.handler for t in select_tools(("core", "testing"))}
    for name in ("browser_click", "browser_type", "browser_verify", "browser_navigate", "browser_close"):
        assert recorded[name] is not plain[name], name
    for name in ("browser_snapshot", "browser_text"):
        assert recorded[name] is plain[name], name


def test_config_file_json_and_toml(tmp_path):
    script = tmp_path / "init.js"
    script.write_text("1", encoding="utf-8")
    js = tmp_path / "c.json"
    js.write_text(json.dumps({"userAgent": "FromConfig", "ignore-https-errors": True, "headed": False,
                              "caps": ["pdf", "vision"], "initScript": [str(script)], "viewportSize": "800x600",
                              "grantPermissions": ["geolocation", "notifications"], "timeoutAction": 1234,
                              "allowedOrigins": ["http://a.test", "http://b.test"]}), encoding="utf-8")
    parser = build_parser()
    args = parser.parse_args(expand_config(["serve", "--config", str(js), "--user-agent", "FromCli"], parser))
    s = settings_from_args(args)
    assert s.launch.user_agent == "FromCli"  # the command line wins
    assert s.launch.ignore_https_errors and s.launch.headless and args.caps == ["pdf", "vision"]
    assert s.launch.init_scripts == (str(script.resolve()),) and s.launch.viewport == (800, 600)
    assert s.launch.grant_permissions == ("geolocation", "notifications") and s.timeouts.action_ms == 1234
    assert s.launch.allowed_origins == ("http://a.test", "http://b.test")
    toml = tmp_path / "c.toml"
    toml.write_text('user-agent = "Toml/1"\nproxyServer = "http://127.0.0.1:3128"\n'
                    '[browser.launchOptions]\nheadless = false\n', encoding="utf-8")
    s = parse(f"--config={toml}")
    assert (s.launch.user_agent, s.launch.proxy_server, s.launch.headless) == ("Toml/1", "http://127.0.0.1:3128",
                                                                               False)


@pytest.mark.parametrize("content, says", [
    ('{"userAgnt": "x"}', "unknown option 'userAgnt'; use option names such as"),
    ('{"headed": "yes"}', "headed takes true or false"),
    ('{"userAgent": {"a": 1}}', "userAgent takes a string or number"),
    ('[1, 2]', "must hold one object of options"),
    ('{"userAgent": ', "is not valid JSON"),
    ('{"grantPermissions": ["geolocation", "telepathy"]}', "unknown permission 'telepathy'"),
])
def test_bad_config_files_are_usage_errors(capsys, tmp_path, content, says):
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    assert says in usage_error(capsys, "--config", str(path))


def test_missing_config_file(capsys, tmp_path):
    assert "cannot read --config" in usage_error(capsys, "--config", str(tmp_path / "none.json"))
    bad = tmp_path / "c.toml"
    bad.write_text("user-agent = ", encoding="utf-8")
    assert "is not valid TOML" in usage_error(capsys, "--config", str(bad))
