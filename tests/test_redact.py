"""Secret redaction, pure: by name, by shape in any text, multipart bodies, socket frames, and the
session scrubber (:mod:`browser_ctx.core.redact`, :mod:`browser_ctx.core.multipart`)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import uuid

import pytest

from browser_ctx.core import multipart
from browser_ctx.core.redact import (
    MARKER,
    MAX_REMEMBERED,
    Redactor,
    is_secret_field,
    is_secret_header,
    is_secret_name,
    is_secret_param,
    looks_like_secret,
    looks_random,
    placeholder,
    redact_body,
    redact_event,
    redact_frame,
    redact_header_value,
    redact_headers,
    redact_json,
    redact_text,
    redact_url,
)

JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJTRUNSRVRfSldUIiwibmFtZSI6ImFubiJ9."
       "c2lnbmF0dXJlX29mX3RoZV90b2tlbl9TRUNSRVQ")


def test_marker_never_reveals_the_length():
    assert MARKER == "[redacted]"
    assert placeholder("a") == placeholder("a much longer secret value") == "[redacted]"
    out = redact_headers({"Authorization": "Bearer SECRET_SHORT", "Cookie": "sid=" + "S" * 500})
    assert set(out.values()) == {"[redacted]"}
    assert "chars" not in redact_url("https://ann:SECRET_PW@h/?token=SECRET_Q")


# -- URLs --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("url", "expected"), [
    ("https://app.example/cb#access_token=SECRET_F1&token_type=Bearer&state=xyz",
     "https://app.example/cb#access_token=[redacted]&token_type=Bearer&state=xyz"),
    ("https://app.example/cb#id_token=SECRET_F2", "https://app.example/cb#id_token=[redacted]"),
    ("https://app.example/#/callback?refresh_token=SECRET_F3&x=1",
     "https://app.example/#/callback?refresh_token=[redacted]&x=1"),
    ("https://app.example/cb#jwt=SECRET_F4", "https://app.example/cb#jwt=[redacted]"),
    ("https://app.example/cb?code=SECRET_C1&state=abc", "https://app.example/cb?code=[redacted]&state=abc"),
    ("https://app.example/cb?refresh_token=SECRET_C2", "https://app.example/cb?refresh_token=[redacted]"),
    (f"https://app.example/reset/{JWT}/confirm", "https://app.example/reset/[redacted]/confirm"),
    ("https://ann:p@ss:SECRET@app.example/x", "https://ann:[redacted]@app.example/x"),
    ("/cb?code=SECRET_C3#id_token=SECRET_F5", "/cb?code=[redacted]#id_token=[redacted]"),
])
def test_url_secrets_in_fragments_queries_paths_and_userinfo(url, expected):
    found: list[str] = []
    assert redact_url(url, found) == expected
    assert found and all(s not in expected for s in found)


def test_url_keeps_what_is_not_secret():
    for url in ("https://h/p?page=2&sort=asc#section-3", "https://h/docs#code", "https://h/p?maxTokens=500&offset=9",
                "browser-ctx://tab/1/capture/7?offset=10&maxTokens=500", "https://h/a#state=x&scope=read"):
        assert redact_url(url) == url
    assert redact_url("not a url?token=x") == "not a url?token=x"


def test_secret_params_include_oauth_codes_but_not_body_fields_named_code():
    assert is_secret_param("code") and is_secret_param("refresh_token") and is_secret_param("id_token")
    assert not is_secret_name("code")  # {"code": "US"} in a body stays
    assert redact_json({"code": "US"}) == {"code": "US"}


# -- headers -----------------------------------------------------------------------------------------

def test_headers_named_with_key_are_secret():
    for name in ("apikey", "X-Goog-Api-Key", "Ocp-Apim-Subscription-Key", "X-Api-Key", "x-functions-key",
                 "X-Auth-Token", "X-Session-Id", "X-Client-Secret", "X-Hub-Signature-256", "X-Password"):
        assert is_secret_header(name), name
        assert redact_header_value(name, "SECRET_HEADER_VALUE") == "[redacted]"
    for name in ("Content-Type", "Accept", "User-Agent", "Referer", "Keep-Alive", "Sec-WebSocket-Key"):
        assert not is_secret_header(name), name


def test_other_header_values_are_redacted_by_shape():
    assert redact_header_value("X-Forwarded-Credential", "x") == "[redacted]"
    assert redact_header_value("X-Custom", f"Bearer {JWT}") == "Bearer [redacted]"
    assert redact_header_value("Content-Type", "multipart/form-data; boundary=----X1") == \
        "multipart/form-data; boundary=----X1"
    assert redact_header_value("Location", "/cb?code=SECRET_L#access_token=SECRET_M") == \
        "/cb?code=[redacted]#access_token=[redacted]"


# -- text: by shape and position -------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("Error: connect ECONNREFUSED postgres://admin:s3cr3t@db.internal:5432/app",
     "Error: connect ECONNREFUSED postgres://admin:[redacted]@db.internal:5432/app"),
    ("could not reach mongodb+srv://svc:SECRET_DB@cluster0.example.net.",
     "could not reach mongodb+srv://svc:[redacted]@cluster0.example.net."),
    (f"token in a message: {JWT} (expired)", "token in a message: [redacted] (expired)"),
    ("sent Authorization: Bearer sk_live_SECRET123", "sent Authorization: Bearer [redacted]"),
    ('["Bearer LEAKINARRAY", "x"]', '["Bearer [redacted]", "x"]'),
    ('frame 42["auth","SECRET_SIO"] sent', 'frame 42["auth","[redacted]"] sent'),
    ("entries [['user', 'ann'], ['password', 'SECRET_PAIR']]", "entries [['user', 'ann'], ['password', '[redacted]']]"),
    ("Basic dXNlcjpTRUNSRVRfQkFTSUM= was refused", "Basic [redacted] was refused"),
    ("login failed: password=hunter2 user=ann", "login failed: password=[redacted] user=ann"),
    ("retry --client-secret=SECRET_CLI", "retry --client-secret=[redacted]"),
    ('{password: "hunter2", user: "ann", token: "SECRET_OBJ"}',
     '{password: "[redacted]", user: "ann", token: "[redacted]"}'),
    ('{"apiKey": "SECRET_JSON", "n": 1}', '{"apiKey": "[redacted]", "n": 1}'),
    ("{'session_id': 'SECRET_PY'}", "{'session_id': '[redacted]'}"),
    ('mutation { login(user: "ann", password: "SECRET_GQL") { ok } }',
     'mutation { login(user: "ann", password: "[redacted]") { ok } }'),
    ("X-Goog-Api-Key: AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "X-Goog-Api-Key: [redacted]"),
    ('{msg: "retry with token=SECRET_NESTED", n: 2}', '{msg: "retry with token=[redacted]", n: 2}'),
    ("link → /cb?code=SECRET_REL&x=1 (relative)", "link → /cb?code=[redacted]&x=1 (relative)"),
    ("see https://h/cb?code=SECRET_U1#access_token=SECRET_U2 now",
     "see https://h/cb?code=[redacted]#access_token=[redacted] now"),
])
def test_text_secrets_by_shape_and_position(text, expected):
    found: list[str] = []
    assert redact_text(text, found) == expected
    assert found


@pytest.mark.parametrize("text", [
    "Password: required", "Bearer of bad news", "the Bearer Authentication scheme", "Basic information about us",
    "key=Enter",
    "if (token == null) return", "t.token=n,e.password=r", "call again with maxTokens=4000 and offset=200",
    "sessionTokens: 1234", "The token: see below", "session: 5 minutes left", "Press key: Escape",
    "https://h/p?page=1", "role=button[name=\"Save\"]", 'textbox "Password" [e5] (filled)',
    "const token = getToken();", "code=200 country code=US", "var token=this.tokenMap.find(x)",
    "a.password=e.password;", "task-runner sk-learn desk_live_demo", "AKIA is not a key",
    "sk-loading-spinner-container",
])
def test_text_without_secrets_is_unchanged(text):
    assert redact_text(text) == text


@pytest.mark.parametrize("key", [
    "ghp_" + "a1B2" * 9, "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "glpat-" + "x1Y2z3" * 4,
    "npm_" + "Q9w8" * 9, "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk-proj-" + "Ab1_" * 10,
    "xoxb-1234567890-abcdefghij",
    "AKIAIOSFODNN7EXAMPLE", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
])
def test_keys_of_known_formats_anywhere(key):
    found: list[str] = []
    assert redact_text(f"config dump: {key} (loaded)", found) == "config dump: [redacted] (loaded)"
    assert found == [key]


def test_redacting_twice_changes_nothing_more():
    text = 'postgres://a:SECRET@h token=SECRET2 {"password": "SECRET3"} Bearer abcdef123456 ' + JWT
    once = redact_text(text)
    assert redact_text(once) == once
    assert "SECRET" not in once


def test_looks_random():
    assert looks_random("AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY")
    assert looks_random("0123456789abcdef0123")
    assert not looks_random("required-field")
    assert not looks_random("hunter2")
    assert not looks_random("aaaaaaaaaaaaaaaa1")


# -- a field named key ------------------------------------------------------------------------------------

def test_key_alone_is_not_a_secret_name():
    assert not is_secret_name("key") and not is_secret_header("key") and not is_secret_param("Key")
    for name in ("apiKey", "api_key", "secret_key", "X-Goog-Api-Key", "privateKey", "accessKey", "key_secret"):
        assert is_secret_name(name), name
    assert is_secret_header("X-Goog-Api-Key") and is_secret_header("X-Api-Key")
    state = {"sortState": {"direction": "ascending", "key": "name"}, "items": [{"key": "row-1", "label": "A"}]}
    assert redact_json(state) == state
    for text in ('{key: "Enter", mac: "Cmd-Enter"}', '{"key": "name"}', "press key=Escape", "?key=primary_key"):
        assert redact_text(text) == text
    # A URL parameter named key is redacted only when its value looks like a secret (an embed's API key).
    assert redact_url("https://h/files?sort=asc&key=name") == "https://h/files?sort=asc&key=name"
    assert redact_url("https://h/embed?key=bdknf2rinbhwvdksm6zbmhf3twrv4oih&src=x") == \
        "https://h/embed?key=[redacted]&src=x"


def test_key_under_an_auth_like_parent_is_secret():
    assert is_secret_field("key", "authentication") and is_secret_field("key", "oauth")
    assert is_secret_field("key", "signingConfig") and not is_secret_field("key", "sortState")
    body = {"authentication": {"key": "Kq8xZ2mLp7Rt", "scheme": "hmac"}, "oauth": [{"key": "Wn4vB9cX1sDf"}],
            "credentials": {"key": "Pz6yH3jN8uGe"}, "sortState": {"key": "name"}}
    found: list[str] = []
    out = redact_json(body, found)
    assert out["authentication"] == {"key": "[redacted]", "scheme": "hmac"}
    assert out["oauth"] == [{"key": "[redacted]"}] and out["credentials"] == "[redacted]"
    assert out["sortState"] == {"key": "name"}
    assert {"Kq8xZ2mLp7Rt", "Wn4vB9cX1sDf", "Pz6yH3jN8uGe"} <= set(found) and "name" not in found


# -- what is remembered -----------------------------------------------------------------------------------

JWT_LIKE = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize("value", [
    secrets.token_hex(24), secrets.token_urlsafe(16), secrets.token_urlsafe(32), str(uuid.uuid4()), JWT_LIKE,
    "AKIAIOSFODNN7EXAMPLE", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "2|67ac8a57|f85ffebfda60ef19205d9b942189ef74",
    "ghp_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuV", "Tr0ub4dor&3xQ", "s%3AKq8xZ2mLp7Rt.9fQ2xL7kZp",
])
def test_values_that_look_like_secrets(value):
    assert looks_like_secret(value), value


@pytest.mark.parametrize("value", [
    "name", "ascending", "something", "Rename", "primary_key", "sortStateDirection", "SORT_DIRECTION_ASCENDING",
    "componentDidMount", "Ctrl-Alt-ArrowDown", "notebook-panel-main", "correct-horse-battery-staple",
    "application/json", "user_session_token_v2", "LEAKPAGEFRAGMENT", "Password must be 8 characters",
    "true", "false", "undefined", "123456", "12345678901234567890", "0.16666666666666666", "2026-10-18T10:00:00.000Z",
    "v1.22.3-beta.4", "1,234,567.89", "aaaaaaaaaaaaaaa1", "hunter2", "1700000000px",
])
def test_values_that_do_not_look_like_secrets(value):
    assert not looks_like_secret(value), value


def test_only_values_that_look_like_secrets_are_remembered():
    """Redacted where found, whatever they are; scrubbed from other outputs only when they look like one."""
    r = Redactor(True)
    token = "Xk29fLq8ZpT3vB7n"
    assert r.text("see RFC 6749: password=something&user=ann") == "see RFC 6749: password=[redacted]&user=ann"
    body = r.body(json.dumps({"password": "hunter2", "session": "primary_key", "pin": 482913, "tokenId": "ascending",
                              "auth": {"direction": "ascending", "enabled": True}, "api_key": token}),
                  "application/json")
    assert json.loads(body) == {"password": "[redacted]", "session": "[redacted]", "pin": "[redacted]",
                                "tokenId": "[redacted]", "auth": "[redacted]", "api_key": "[redacted]"}
    assert r.secrets_count == 1
    later = f"Every time it's something different; hunter2, primary_key, 482913, ascending, True; key {token}."
    assert r.scrub(later) == later.replace(token, "[redacted]")


def test_remembered_values_are_scrubbed_as_whole_tokens():
    r = Redactor(True)
    token = "Xk29fLq8ZpT3vB7n"
    r.header("X-Api-Key", token)
    assert r.scrub(f"{token} /files/{token}.json?t={token}&x=1 ({token}) _{token}_") == \
        "[redacted] /files/[redacted].json?t=[redacted]&x=1 ([redacted]) _[redacted]_"
    for glued in (f"pre{token}", f"{token}9", f"é{token}"):  # a longer token that contains it is another value
        assert r.scrub(glued) == glued
    r.remember("-Zq8xL2mPv7Kd3")  # an edge that is not a letter or digit needs no boundary there
    assert r.scrub("a-Zq8xL2mPv7Kd3") == "a[redacted]"


def test_a_notebook_apps_sort_state_leaves_later_pages_whole():
    """Issue 26: ``"key": "name"`` in a saved workspace and ``password=something`` in an RFC's prose were
    remembered and scrubbed from every later output (``Re[redacted] Notebook…``)."""
    r = Redactor(True)
    workspace = json.dumps({"data": {"file-browser-filebrowser:sort": {"sortState": {"direction": "ascending",
                                                                                    "key": "name"}}}})
    assert r.body(workspace, "application/json") == workspace
    r.scrub("GET /token?grant_type=password&password=something HTTP/1.1")
    later = ('menuitem "Rename Notebook…" [e12]\ntextbox "File name" [e13]\nbutton "Rename and Save"\n'
             "browser_snapshot target='role=region[name=\"main area content\"]'\n"
             "Every time it's something different: the folder or file named \"Annis\"")
    assert r.scrub(later) == later


# -- JSON and GraphQL ---------------------------------------------------------------------------------

def test_json_secret_keys_at_any_depth_and_in_arrays():
    body = {"user": "ann", "data": [{"auth": {"password": "SECRET_J1"}}, {"tokens": 12}],
            "list": ["plain", f"Bearer {JWT}", JWT], "deep": {"a": {"b": {"refreshToken": "SECRET_J2"}}},
            "otp": 123456}
    found: list[str] = []
    out = redact_json(body, found)
    text = json.dumps(out)
    assert "SECRET" not in text and JWT not in text
    assert out["data"][0]["auth"] == "[redacted]" and out["data"][1] == {"tokens": 12}
    assert out["list"] == ["plain", "Bearer [redacted]", "[redacted]"]
    assert out["otp"] == "[redacted]" and out["user"] == "ann"
    assert {"SECRET_J2", "123456", JWT} <= set(found)


def test_graphql_variables_and_inline_arguments():
    request = {"operationName": "Login",
               "query": 'mutation Login($pw: String!, $u: String!) { login(user: $u, password: $pw, '
                        'otp: "SECRET_INLINE") { token } }',
               "variables": {"pw": "SECRET_VAR", "u": "ann"}}
    out = json.loads(redact_body(json.dumps(request), "application/json"))
    assert out["variables"] == {"pw": "[redacted]", "u": "ann"}
    assert 'otp: "[redacted]"' in out["query"] and "{ token }" in out["query"]
    batch = [request, {"query": "{ me { name } }", "variables": {"input": {"newPassword": "SECRET_IN"}}}]
    assert "SECRET" not in redact_body(json.dumps(batch), "application/json")


def test_graphql_over_get_query_string():
    variables = json.dumps({"password": "SECRET_GET"})
    url = f"https://h/graphql?query=mutation%7Blogin%7D&variables={variables}"
    out = redact_url(url)
    assert "SECRET_GET" not in out and "variables=" in out


# -- multipart ------------------------------------------------------------------------------------------

BOUNDARY = "----WebKitFormBoundaryZ9x8Y7"
CTYPE = f"multipart/form-data; boundary={BOUNDARY}"


def _multipart_body(file_bytes: bytes = b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 20) -> bytes:
    def part(headers: str, content: bytes) -> bytes:
        return f"--{BOUNDARY}\r\n{headers}\r\n\r\n".encode() + content + b"\r\n"
    return (part('Content-Disposition: form-data; name="user"', b"ann")
            + part('Content-Disposition: form-data; name="password"', b"SECRET_MP_PW")
            + part('Content-Disposition: form-data; name="note"', b"see token=SECRET_MP_NOTE")
            + part('Content-Disposition: form-data; name="avatar"; filename="me.png"\r\nContent-Type: image/png',
                   file_bytes)
            + f"--{BOUNDARY}--\r\n".encode())


def test_multipart_parse_lists_parts_by_name():
    body = _multipart_body()
    parts = multipart.parse(body, BOUNDARY)
    assert [p.name for p in parts] == ["user", "password", "note", "avatar"]
    assert [p.is_file for p in parts] == [False, False, False, True]
    assert parts[3].filename == "me.png" and parts[3].content_type == "image/png" and parts[3].size == 5130
    assert parts[0].data == b"ann" and all(p.complete for p in parts)
    assert multipart.boundary_of(CTYPE) == BOUNDARY
    assert multipart.boundary_of('multipart/form-data; boundary="a b;c"') == "a b;c"
    with pytest.raises(ValueError):
        multipart.parse(b"no parts here", BOUNDARY)


def test_multipart_body_is_summarised_never_base64():
    body = _multipart_body()
    as_text = body.decode("latin-1")  # how a binary body may arrive as text
    for text in (as_text, base64.b64encode(body).decode("ascii")):  # CDP hands some bodies over as base64
        found: list[str] = []
        out = redact_body(text, CTYPE, found)
        lines = out.splitlines()
        assert lines[0].startswith("multipart/form-data: 4 parts, ")
        assert lines[1:4] == ['user = "ann"', 'password = "[redacted]"', 'note = "see token=[redacted]"']
        assert lines[4].startswith('avatar: file "me.png", image/png, ')  # bytes of the text's UTF-8 form
        assert "SECRET" not in out and "PNG" not in out
        assert {"SECRET_MP_PW", "SECRET_MP_NOTE"} <= set(found)
    assert lines[4] == 'avatar: file "me.png", image/png, 5,130 bytes'  # base64: the exact bytes
    assert len(out) < 200  # a 5 KB file costs one line


def test_multipart_text_only_and_hostile_names():
    body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"pass\"\r\n\r\nSECRET_T\r\n"
            f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"x\\\"\\nforged = 1\"\r\n\r\nv\r\n"
            f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-8''na%C3%AFve%0Aevil.txt\r\n"
            f"\r\nabc\r\n--{BOUNDARY}--\r\n")
    out = redact_body(body, CTYPE)
    assert out.splitlines()[1] == 'pass = "[redacted]"'
    assert len(out.splitlines()) == 4  # a name with a newline cannot forge a line
    assert 'file "naïve\\nevil.txt", no type, 3 bytes' in out
    assert "SECRET" not in out


def test_multipart_cut_short_or_broken():
    body = _multipart_body()[:150].decode("latin-1")
    out = redact_body(body, CTYPE)
    assert "(cut short)" in out and "SECRET" not in out
    assert redact_body("garbage", CTYPE) == \
        "multipart/form-data body of 7 bytes that does not contain its boundary; not shown."
    assert "not shown" in redact_body("x", "multipart/form-data")
    long_value = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"bio\"\r\n\r\n" + "word " * 400
                  + f"\r\n--{BOUNDARY}--")
    assert len(redact_body(long_value, CTYPE)) < 400


# -- streams ------------------------------------------------------------------------------------------

def test_socket_io_frames():
    # An event named like a secret hides every argument; others are redacted by field name.
    assert redact_frame('42["auth",{"token":"SECRET_S1","user":"ann"}]') == '42["auth","[redacted]"]'
    assert redact_frame('42["hello",{"token":"SECRET_S1","user":"ann"}]') == \
        '42["hello",{"token":"[redacted]","user":"ann"}]'
    assert redact_frame('42["auth","SECRET_S2"]') == '42["auth","[redacted]"]'
    assert redact_frame('421["login",{"password":"SECRET_S3"}]') == '421["login",{"password":"[redacted]"}]'
    assert redact_frame('42/chat,7["msg",{"text":"hi","session":"SECRET_S4"}]') == \
        '42/chat,7["msg",{"text":"hi","session":"[redacted]"}]'
    assert redact_frame('{"type":"hello","jwt":"SECRET_S5"}') == '{"type":"hello","jwt":"[redacted]"}'
    assert redact_frame(f"AUTH {JWT}") == "AUTH [redacted]"
    for plain in ("2probe", "3", '42["chat","hello"]', "40"):
        assert redact_frame(plain) == plain


def test_named_server_sent_events():
    assert redact_event("token", "SECRET_E1") == "[redacted]"
    assert redact_event("session-refresh", '{"id": 1}') == "[redacted]"
    assert redact_event("auth", '{"user":"ann","password":"SECRET_E2"}') == "[redacted]"
    assert redact_event("login", '{"user":"ann","accessToken":"SECRET_E3"}') == \
        '{"user":"ann","accessToken":"[redacted]"}'
    assert redact_event("update", "password=SECRET_E4") == "password=[redacted]"
    assert redact_event(None, '{"n":1}') == '{"n":1}'


# -- the session scrubber ----------------------------------------------------------------------------------

def test_scrub_redacts_by_shape_and_remembers_what_it_found():
    r = Redactor(True)
    first = r.scrub('[log] {user: "ann", password: "SECRET_LG_q7Xk29LmPz"} and '
                    'postgres://admin:SECRET_DBPW_3vR8zQ1w@db.internal')
    assert "SECRET" not in first and first.count("[redacted]") == 2
    assert r.scrub("page text: SECRET_LG_q7Xk29LmPz / SECRET_DBPW_3vR8zQ1w") == "page text: [redacted] / [redacted]"


def test_scrub_of_remembered_values_uses_the_plain_marker():
    r = Redactor(True)
    r.header("Authorization", "Bearer SECRET_C_8kQ2xZ7m")
    assert r.scrub("echo SECRET_C_8kQ2xZ7m") == "echo [redacted]"


def test_redactor_frame_and_event_remember():
    r = Redactor(True)
    assert r.frame('42["auth",{"token":"SECRET_RF_4mZ8qK2x"}]') == '42["auth","[redacted]"]'
    assert r.frame('42["hi",{"token":"SECRET_RG_9pW3nL6v"}]') == '42["hi",{"token":"[redacted]"}]'
    assert r.event("token", "SECRET_RE_2hT7cY5b") == "[redacted]"
    assert r.text("password=SECRET_RT_6jD1fS8k") == "password=[redacted]"
    assert r.scrub("SECRET_RF_4mZ8qK2x SECRET_RG_9pW3nL6v SECRET_RE_2hT7cY5b SECRET_RT_6jD1fS8k") == \
        "[redacted] [redacted] [redacted] [redacted]"


def test_remembered_secrets_are_bounded_and_a_big_body_scrubs_fast():
    r = Redactor(True)
    for i in range(MAX_REMEMBERED):
        r.remember(f"Tk{i:06d}x{hashlib.sha1(str(i).encode()).hexdigest()[:12]}")
    assert MAX_REMEMBERED - 4 <= r.secrets_count <= MAX_REMEMBERED
    r.remember("OneMore-9fQ2xL7kZp")
    assert r.secrets_count <= MAX_REMEMBERED and r.scrub("OneMore-9fQ2xL7kZp") == "OneMore-9fQ2xL7kZp"
    assert r.scrub("token=OneMore-9fQ2xL7kZp") == "token=[redacted]"  # still redacted where it is found
    body = json.dumps({"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"], "description": "x" * 90}
                                 for i in range(15_000)]})
    started = time.perf_counter()
    assert Redactor(True).scrub(body) == body
    assert time.perf_counter() - started < 10  # ~0.3 s for these 2.3 MB when the machine is idle


def test_disabled_redactor_is_identity_everywhere():
    r = Redactor(False)
    for text in ('{password: "x"}', "postgres://a:b@h", f"Bearer {JWT}"):
        assert r.scrub(text) == text and r.text(text) == text
    assert r.frame('42["auth","x"]') == '42["auth","x"]'
    assert r.event("token", "x") == "x"
    assert r.body("a", CTYPE) == "a"
