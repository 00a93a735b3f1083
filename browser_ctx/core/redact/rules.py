"""Redaction by name and by shape: which names, headers and parameters are secret, and the pure functions
that redact headers, URLs, forms and any text (see :mod:`browser_ctx.core.redact`)."""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote, unquote, unquote_plus, urlsplit, urlunsplit

from .secretlike import looks_like_secret

#: What a redacted value is replaced with. It never reveals the value's length.
MARKER = "[redacted]"

#: Most secret forms (a value and its encodings) a session remembers. Beyond it new values are still
#: redacted where they are found, but not scrubbed from other outputs: a page that returns 100,000
#: tokens would otherwise make every later scrub match against all of them.
MAX_REMEMBERED = 5000

#: Header names (lower case) whose values are always redacted.
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"})
#: A header is secret when its lower-case name contains one of these (``apikey``, ``X-Goog-Api-Key``,
#: ``Ocp-Apim-Subscription-Key``, ``X-Auth-Token``, ``X-Session-Id``, …).
_HEADER_WORDS = ("token", "secret", "session", "auth", "key", "password", "credential", "signature", "cookie")
#: Headers whose names match :data:`_HEADER_WORDS` but carry no secret (a WebSocket handshake nonce).
_HEADER_NOT_SECRET = frozenset({"sec-websocket-key", "sec-websocket-accept"})

#: Field / parameter names (lower case, ``-``/``_``/``.``/spaces removed) redacted wherever these occur in them.
_NAME_WORDS = ("password", "passwd", "passphrase", "token", "secret", "apikey", "session", "sessid", "credential",
               "privatekey", "signature", "accesskey", "subscriptionkey", "clientkey", "masterkey", "authkey",
               "licensekey", "signingkey", "encryptionkey", "bearer")
#: Names redacted only when they are the whole name (normalised). ``key`` alone is not one (``"sortState":
#: {"key": "name"}``, ``{key: "Enter"}``, React keys): only under a parent named like :data:`_KEY_PARENT_WORDS`.
_NAME_EXACT = frozenset({"pwd", "pass", "sid", "auth", "authorization", "cookie", "sig", "jwt", "otp",
                         "pin", "cvv", "cvc"})
#: A field named ``key`` is secret when its parent's name (normalised) contains one of these
#: (``{"authentication": {"key": …}}``, ``{"oauth": {"key": …}}``, ``{"signing": {"key": …}}``).
_KEY_PARENT_WORDS = ("auth", "cred", "secret", "security", "login", "signin", "signing", "encryption", "license",
                     "apikey", "private")
#: Names that contain a secret word but hold no secret: counts of (LLM) tokens and OAuth metadata.
_NAME_NOT_SECRET = frozenset({"tokentype", "tokenendpoint", "tokenurl", "tokenuri", "tokencount", "tokenlimit",
                              "tokenbudget", "tokenizer", "tokenexpiry", "tokenexpiresat"})
#: URL parameters (query or fragment) that are secrets in URLs only: the OAuth authorisation code and
#: its kin (``code`` in a JSON body is usually a country or an error code, so it is not a field name).
_PARAM_EXACT = frozenset({"code", "ticket", "oauthverifier", "samlresponse", "samlrequest", "assertion"})

_SCHEME = r"[a-zA-Z][a-zA-Z0-9+.-]{0,30}://"
# scheme://user:password@host: the password runs to the LAST "@" before the path (it may contain "@").
_USERINFO = re.compile(rf"^({_SCHEME})([^/?#\s@:]*):([^/?#\s]*)@")
# A URL inside text: up to white space, a quote, a bracket, a backslash (JSON escapes) or a comma.
_URL_IN_TEXT = re.compile(rf"(?<![\w+.-]){_SCHEME}[^\s\"'<>\\`()\[\]{{}}|^,]+")
# A JSON Web Token (JWS or JWE): base64url segments, the first one a JSON header ("eyJ" = '{"').
_JWT = re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*){0,3}")
# Credentials with a published, unmistakable format: GitHub, GitLab, npm, Stripe, OpenAI/Anthropic-style
# "sk-" keys, Slack, AWS access key ids, Google API keys; and PEM private keys (the whole block).
_KNOWN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|npm_[A-Za-z0-9]{30,}|[spr]k_(?:live|test)_[A-Za-z0-9]{10,}|sk-(?=[A-Za-z0-9_-]{0,80}\d)(?:[a-z]+-)?[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|A(?:KIA|SIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])"
    r"|-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----[\s\S]{0,20000}?-----END [A-Z ]{0,20}PRIVATE KEY-----")
# "Bearer <token>", "Basic <base64 of user:pass>" (an Authorization value inside any text).
_AUTH_SCHEME = re.compile(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]+=*)")
# Substrings one of which every secret name (of a field, parameter or header) contains: names without
# any are not even looked at by the text scan (a 3 MB JSON body has 100,000 names).
_NAME_HINTS = ("pass", "pwd", "token", "secret", "key", "sess", "auth", "sid", "sig", "jwt", "otp", "pin", "cvv", "cvc",
               "credential", "cookie", "bearer", "code", "ticket", "verifier", "saml", "assertion")
_NAME_HINT = re.compile("|".join(_NAME_HINTS), re.IGNORECASE)
# name <op> value, the name not part of a longer dotted identifier or path, and op "=" or ":"
# (not "==", "=>", ":=", "::"). The value is quoted (either quote) or a run of token characters.
_NAME_VALUE = re.compile(
    r"""(?<![\w.$/\\])(?P<q>["']?)(?P<name>[A-Za-z_][\w-]{0,63})(?P=q)\s{0,3}"""
    r"""(?P<op>(?<![=!<>:])=(?![=>])|:(?![:=/]))\s{0,3}"""
    r"""(?:"(?P<dq>(?:[^"\\\n]|\\.){1,4096})"|'(?P<sq>(?:[^'\\\n]|\\.){1,4096})'|(?P<bare>[^\s"'&,;)\]}<>(\\=\[{]{1,4096}={0,2}))""")
#: Secret names too generic for a bare ``name=value`` in free text (``key=Enter``): there the value
#: must also look random (:func:`looks_random`).
_GENERIC_NAMES = frozenset({"pass", "pin", "sig", "sid", "auth"})
_BARE_LITERALS = frozenset({"null", "undefined", "true", "false", "none", "nil", "this", "new", "function"})
# A pair in an array, its first item a name: ["auth","…"] (a socket.io event), ["password","…"] (form entries).
_NAMED_PAIR = re.compile(r"""\[\s*(["'])([A-Za-z_][\w-]{0,63})\1\s*,\s*(["'])((?:(?!\3)[^\\\n]|\\.){1,4096})\3""")


def placeholder(value: str = "") -> str:
    """The marker shown in place of a redacted ``value``: always :data:`MARKER` (``[redacted]``),
    whatever the value, so its length is not revealed."""
    return MARKER


def _norm(name: str) -> str:
    return re.sub(r"[-_.\s]", "", name.lower())


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a body field, query parameter or name in text called ``name`` holds a secret.

    Matches (case-insensitive, ignoring ``-``/``_``/``.``/spaces) names containing password, passwd,
    token, secret, api_key, session, credential, signature, access_key, subscription_key, … (so
    ``access_token``, ``id_token``, ``client_secret``, ``sessionId``, ``apiKey``, ``secret_key``,
    ``X-Goog-Api-Key``), and the exact names pwd, pass, sid, auth, authorization, cookie, sig, jwt, otp, pin,
    cvv, cvc. Not secret: ``key`` alone (see :func:`is_secret_field`), names ending in ``tokens``
    (``maxTokens``, ``sessionTokens``: counts) and OAuth metadata such as ``token_type`` and ``token_endpoint``.
    """
    n = _norm(name)
    if not n or n in _NAME_NOT_SECRET or n.endswith("tokens"):
        return False
    return n in _NAME_EXACT or any(w in n for w in _NAME_WORDS)


@functools.lru_cache(maxsize=4096)
def is_secret_field(name: str, parent: str = "") -> bool:
    """Whether a field ``name`` inside an object named ``parent`` holds a secret: :func:`is_secret_name`, or
    ``key`` under a parent named like auth, credentials, secret, security, login, signing, encryption, license or
    private (``{"auth": {"key": …}}`` is hidden whole anyway: ``auth`` is a secret name)."""
    if is_secret_name(name):
        return True
    p = _norm(parent)
    return _norm(name) == "key" and bool(p) and any(w in p for w in _KEY_PARENT_WORDS)


@functools.lru_cache(maxsize=1024)
def is_secret_param(name: str) -> bool:
    """Whether URL parameter ``name`` (query or fragment) holds a secret: :func:`is_secret_name`, or
    ``code`` (an OAuth authorisation code), ``ticket``, ``oauth_verifier``, ``SAMLResponse``,
    ``assertion``."""
    return is_secret_name(name) or _norm(name) in _PARAM_EXACT


def _is_secret_param_value(name: str, value: str) -> bool:
    """Whether URL parameter ``name`` holding ``value`` is a secret: :func:`is_secret_param`, or ``key`` alone
    with a value that looks like a secret (``?key=bdknf2ri…`` an embed's API key; ``?key=name`` a sort key)."""
    return is_secret_param(name) or (_norm(name) == "key" and looks_like_secret(value))


@functools.lru_cache(maxsize=1024)
def is_secret_header(name: str) -> bool:
    """Whether header ``name`` holds a secret: :data:`SECRET_HEADERS`, or a name containing token,
    secret, session, auth, key, password, credential, signature or cookie (case-insensitive), except
    ``key`` alone and the WebSocket handshake's ``Sec-WebSocket-Key``/``-Accept`` (a public nonce)."""
    low = name.lower().strip()
    if low in _HEADER_NOT_SECRET or low == "key":
        return False
    return low in SECRET_HEADERS or any(w in low for w in _HEADER_WORDS)


def looks_random(value: str) -> bool:
    """Whether ``value`` looks like a generated credential rather than a word: at least 12 token
    characters (letters, digits, ``-_.+/=~``) with both letters and digits, and at least 3 bits of
    entropy per character.

    Used for unquoted values after a secret name and ``:`` in text (``apiKey: 9fX2…``), where words
    (``Password: required-field``) must stay.
    """
    if len(value) < 12 or not re.fullmatch(r"[A-Za-z0-9\-_.+/=~]+", value):
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    counts = Counter(value)
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
    return entropy >= 3.0


def _note(found: list[str] | None, *values: str) -> None:
    if found is not None:
        found.extend(v for v in values if v)


def _secret_parts(name: str, value: str) -> list[str]:
    """The values worth remembering from a redacted header: the whole value and its meaningful parts."""
    low = name.lower()
    parts = [value]
    if low in ("cookie",):
        for item in value.split(";"):
            if "=" in item:
                parts.append(item.split("=", 1)[1].strip())
    elif low == "set-cookie":
        for line in value.split("\n"):  # CDP joins several Set-Cookie headers with newlines
            first = line.split(";", 1)[0]
            if "=" in first:
                parts.append(first.split("=", 1)[1].strip())
            parts.append(line)
    elif " " in value.strip():
        # "Bearer abc", "Basic dXNlcjpwYXNz": the credential after the scheme.
        parts.append(value.strip().split(None, 1)[1].strip())
    return parts


def redact_header_value(name: str, value: str, found: list[str] | None = None) -> str:
    """Return the value to show for header ``name``.

    Secret headers (:func:`is_secret_header`) become :data:`MARKER`; URL-valued headers
    (``Referer``, ``Location``, ``Content-Location``, relative ones included) go through
    :func:`redact_url`; every other value through :func:`redact_text` (a JWT or ``Bearer …`` in a
    custom header). Secret values found are appended to ``found`` when given.
    """
    if is_secret_header(name):
        _note(found, *_secret_parts(name, value))
        return MARKER
    if name.lower() in ("location", "referer", "content-location"):
        return redact_url(value, found)
    return redact_text(value, found)


def redact_headers(headers: dict[str, Any] | Iterable[tuple[str, Any]],
                   found: list[str] | None = None) -> dict[str, str]:
    """Return a new ``{name: value}`` dict with :func:`redact_header_value` applied to each value."""
    items = headers.items() if isinstance(headers, dict) else headers
    return {str(k): redact_header_value(str(k), str(v), found) for k, v in items}


def _redact_params(query: str, found: list[str] | None, is_secret: Callable[[str, str], bool]) -> str:
    out = []
    for piece in query.split("&"):
        if "=" in piece:
            k, v = piece.split("=", 1)
            if v and v != MARKER and is_secret(unquote_plus(k), unquote_plus(v)):
                _note(found, unquote_plus(v), v)
                piece = f"{k}={MARKER}"
            elif v:
                decoded = unquote_plus(v)
                cleaned = redact_text(decoded, found)
                if cleaned != decoded:  # a JWT, "Bearer …" or '"password":"…"' inside the value
                    piece = f"{k}={quote(cleaned, safe='[]{}:,/ ')}"
        out.append(piece)
    return "&".join(out)


def redact_query(query: str, found: list[str] | None = None) -> str:
    """Redact secret-named parameters of a query string (without ``?``), keeping its layout.

    ``a=1&access_token=abc`` → ``a=1&access_token=[redacted]``. Parameters are secret by
    :func:`is_secret_param` (``code`` included), and ``key`` when its value looks like a secret
    (:func:`~browser_ctx.core.redact.secretlike.looks_like_secret`); other values lose secrets found by shape
    (:func:`redact_text`: a JWT, or JSON with a ``password`` field in a GraphQL ``variables=``).
    """
    if not query:
        return query
    return _redact_params(query, found, _is_secret_param_value)


def _redact_fragment(fragment: str, found: list[str] | None) -> str:
    """A URL fragment with its secret parameters redacted: ``access_token=…&state=x`` (OAuth implicit
    flow) or a client-side route with a query (``/callback?id_token=…``)."""
    if "=" not in fragment:
        return fragment
    route, sep, query = fragment.rpartition("?")
    if sep and "=" not in route:
        return route + "?" + _redact_params(query, found, _is_secret_param_value)
    return _redact_params(fragment, found, _is_secret_param_value)


def _found(value: str, found: list[str] | None) -> str:
    """Note ``value`` as found and return :data:`MARKER` in its place."""
    _note(found, value)
    return MARKER


def _redact_jwts(text: str, found: list[str] | None) -> str:
    def one(m: re.Match[str]) -> str:
        _note(found, m.group(0))
        return MARKER
    return _JWT.sub(one, text)


def redact_url(url: str, found: list[str] | None = None) -> str:
    """Redact the secrets of one URL.

    The ``user:pass@`` password; secret query parameters (:func:`redact_query`, ``?code=`` and
    ``?refresh_token=`` included); secret fragment parameters (``#access_token=…``, ``#id_token=…``,
    ``#/cb?token=…``); and JSON Web Tokens anywhere in it (a JWT-shaped path segment). ``url`` is an
    absolute URL or a path starting with ``/``; anything else is returned unchanged. Secret values
    found are appended to ``found`` when given.
    """
    if not url or ("://" not in url and not url.startswith("/")):
        return url
    m = _USERINFO.match(url)
    if m and m.group(3) and m.group(3) != MARKER:
        password = m.group(3)
        _note(found, password, unquote(password))
        url = f"{m.group(1)}{m.group(2)}:{MARKER}@{url[m.end():]}"
    url = _redact_jwts(url, found)
    if "?" not in url and "#" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    query = redact_query(parts.query, found)
    fragment = _redact_fragment(parts.fragment, found)
    if query == parts.query and fragment == parts.fragment:
        return url
    return urlunsplit(parts._replace(query=query, fragment=fragment))


def redact_form(body: str, found: list[str] | None = None) -> str:
    """Redact secret-named fields of an ``application/x-www-form-urlencoded`` body
    (as :func:`redact_query`)."""
    return redact_query(body, found)


def _is_basic_credential(token: str) -> bool:
    """Whether ``token`` is base64 of ``user:password`` (what follows ``Basic``)."""
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in decoded and decoded.isprintable()


def _auth_scheme(m: re.Match[str], found: list[str] | None) -> str:
    scheme, space, token = m.group(1), m.group(2), m.group(3)
    if len(token) < 8:
        return m.group(0)
    if scheme.lower() == "basic":
        if not _is_basic_credential(token):
            return m.group(0)
    elif token.isalpha() and (token.islower() or (token[0].isupper() and token[1:].islower())):
        return m.group(0)  # "Bearer authentication", "Bearer Token": a word, not a token
    _note(found, token)
    return f"{scheme}{space}{MARKER}"


def _name_value(m: re.Match[str], found: list[str] | None) -> str | None:
    """The replacement for one ``name <op> value`` match, or ``None`` when the value stays (then the
    scan goes on right after the name, so a bare value such as ``password`` in
    ``failed: password=…`` is looked at as a name too)."""
    name = m.group("name")
    quoted = m.group("dq") if m.group("dq") is not None else m.group("sq")
    value = quoted if quoted is not None else m.group("bare") or ""
    if not value or value.startswith(MARKER):
        return None
    whole = m.group(0)
    start = m.start("dq" if m.group("dq") is not None else "sq" if quoted is not None else "bare") - m.start()
    if quoted is not None and not is_secret_name(name):
        # Not a secret itself; the scan goes on inside the value ({msg: "retry with token=…"}).
        return None
    if quoted is None:
        if value.lower() in _BARE_LITERALS or value.startswith("$") or _looks_like_code(m):
            return None
        in_url = m.start() > 0 and m.string[m.start() - 1] in "?&#"  # a relative URL's query: "/cb?code=…"
        if m.group("op") == "=" and in_url:
            if not _is_secret_param_value(name, value):
                return None
        elif m.group("op") == "=" and _norm(name) not in _GENERIC_NAMES:
            if not is_secret_name(name):
                return None
        elif not ((is_secret_name(name) or is_secret_header(name)) and looks_random(value)):
            return None
    _note(found, value)
    return whole[:start] + MARKER + whole[start + len(value):]


def _looks_like_code(m: re.Match[str]) -> bool:
    """Whether a bare ``name = value`` match is a line of script rather than data: spaces around
    ``=`` (``token = getToken()``), a call or index after the value, or a dotted path as the value
    (``t.token=e.token``). Script source (response bodies, page scripts) keeps its assignments."""
    whole = m.group(0)
    value = m.group("bare")
    after = m.string[m.end():m.end() + 1]
    if m.group("op") == "=" and (whole[m.end("name") - m.start()].isspace() or whole[-len(value) - 1].isspace()):
        return True
    return after in ("(", "[", ".") or re.fullmatch(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+", value) is not None


def _hints(text: str) -> list[tuple[int, int]]:
    """Where a :data:`_NAME_HINTS` word occurs in ``text`` (case-insensitive), as sorted (start, end)
    pairs. ``str.find`` on the lower-cased text is some 30 times faster than one regex alternation."""
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: positions would shift
        return [(m.start(), m.end()) for m in _NAME_HINT.finditer(text)]
    spans = []
    for word in _NAME_HINTS:
        i = low.find(word)
        while i >= 0:
            spans.append((i, i + len(word)))
            i = low.find(word, i + 1)
    spans.sort()
    return spans


def _redact_name_values(text: str, found: list[str] | None) -> str:
    """Apply :data:`_NAME_VALUE` at the names that contain a :data:`_NAME_HINT` (every secret name
    does), left to right; a value that stays lets the scan go on right after its name."""
    out: list[str] = []
    pos = 0
    for hint_start, hint_end in _hints(text):
        if hint_start < pos:
            continue
        start = hint_start
        while start > pos and (text[start - 1].isalnum() or text[start - 1] in "_-"):
            start -= 1
        while start < hint_start and not (text[start].isalpha() or text[start] == "_"):
            start += 1  # "--password", "2fa_token": the name starts at a letter
        m = None
        if start > pos and text[start - 1] in "\"'":
            m = _NAME_VALUE.match(text, start - 1)
        m = m or _NAME_VALUE.match(text, start)
        if m is None or m.end("name") < hint_end:
            continue
        replacement = _name_value(m, found)
        if replacement is not None:
            out.append(text[pos:m.start()] + replacement)
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _named_pair(m: re.Match[str], found: list[str] | None) -> str:
    value = m.group(4)
    if not is_secret_name(m.group(2)) or value.startswith(MARKER):
        return m.group(0)
    _note(found, value)
    start = m.start(4) - m.start()
    return m.group(0)[:start] + MARKER + m.group(0)[start + len(value):]


def redact_text(text: str, found: list[str] | None = None) -> str:
    """Redact secrets recognised by their shape or position in any text (layer 2 of the module).

    In order: every URL in the text (:func:`redact_url`: ``user:pass@`` passwords such as
    ``postgres://admin:…@db.internal``, query and fragment secrets); JSON
    Web Tokens anywhere; keys of a known format anywhere (``ghp_…``, ``github_pat_…``, ``glpat-…``,
    ``npm_…``, ``sk_live_…``, ``sk-…``, ``xoxb-…``, ``AKIA…``, ``AIza…``, PEM private key blocks);
    ``Bearer <token>`` and ``Basic <base64 user:pass>``; and a value in a credential position after a
    secret name (:func:`is_secret_name`):

    - ``name=value`` (``token=abc``, ``password=hunter2``, and after ``?``/``&``/``#`` any secret URL
      parameter: ``/cb?code=…`` in a relative link): any value but a literal (``null``, …) or
      script (``token = getToken()``, ``t.token=e.token``: see :func:`_looks_like_code`);
      for the generic names pass, pin, sig, sid and auth only a random-looking one; after ``key`` alone
      (``key=Enter``) nothing, but in a URL's query a value that looks like a secret;
    - ``name: "value"``, ``"name": "value"``, ``name="value"`` (JSON, console object previews,
      GraphQL inline arguments ``login(password: "…")``): any quoted value;
    - ``name: value`` unquoted (``X-Goog-Api-Key: AIza…``): only a value that :func:`looks_random`;
    - a quoted pair in an array, ``["auth", "…"]`` (a socket.io event in a frame), ``["password", "…"]``.

    The value becomes :data:`MARKER`; secret values found are appended to ``found``. Already
    redacted text is left as it is, so the function can be applied twice.
    """
    if not text:
        return text
    if "://" in text:
        text = _URL_IN_TEXT.sub(lambda m: redact_url(m.group(0), found), text)
    if "eyJ" in text:
        text = _redact_jwts(text, found)
    text = _KNOWN_TOKEN.sub(lambda m: _found(m.group(0), found), text)
    text = _AUTH_SCHEME.sub(lambda m: _auth_scheme(m, found), text)
    if "[" in text:
        text = _NAMED_PAIR.sub(lambda m: _named_pair(m, found), text)
    if "=" in text or ":" in text:
        text = _redact_name_values(text, found)
    return text
