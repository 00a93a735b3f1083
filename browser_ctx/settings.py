"""Settings: frozen dataclasses with documented defaults, built from CLI flags by :mod:`browser_ctx.cli`."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._errors import InvalidArgument

__all__ = ["CapSettings", "LaunchSettings", "Timeouts", "EventSettings", "ActionSettings", "DialogPolicy",
           "DIALOG_TYPES", "Settings", "OFFLINE_EXTERNAL_RULES", "HttpCredentials"]

#: Chromium host-resolver rule that makes every host but localhost/127.0.0.1 resolve to nothing.
OFFLINE_EXTERNAL_RULES = "MAP * ~NOTFOUND , EXCLUDE localhost, EXCLUDE 127.0.0.1"


def _require_positive(owner: str, **values: float) -> None:
    """Raise ``ValueError`` naming the first of ``values`` that is not above zero."""
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{owner}.{name} must be above zero (got {value}); pass a positive value.")


@dataclass(frozen=True)
class CapSettings:
    """Per-call output caps.

    Attributes:
        default_max_tokens: o200k tokens a call returns when it gives no ``maxTokens`` (2,000).
        ceiling_tokens: the most tokens any call may ask for with ``maxTokens`` (8,000).
        ceiling_chars: the most characters any single result may hold (40,000).
        min_tokens: the least ``maxTokens`` accepted (200); smaller values are raised to it.
        captures_per_tab: how many rendered results per tab are kept for reading on with ``offset`` (8).
        image_default_tokens: image tokens a screenshot may cost when the call gives no ``maxTokens``
            (1,000; estimated as in :mod:`browser_ctx.core.images`).
        image_ceiling_tokens: the most image tokens a screenshot may ask for with ``maxTokens``
            (4,000; ``--max-image-tokens``).
    """

    default_max_tokens: int = 2000
    ceiling_tokens: int = 8000
    ceiling_chars: int = 40000
    min_tokens: int = 200
    captures_per_tab: int = 8
    image_default_tokens: int = 1000
    image_ceiling_tokens: int = 4000

    def __post_init__(self) -> None:
        """Check the caps are positive and ordered: ``min_tokens <= default_max_tokens <= ceiling_tokens``,
        ``image_default_tokens <= image_ceiling_tokens``.

        Raises:
            ValueError: a one-line message naming the field and its CLI flag.
        """
        _require_positive("CapSettings", default_max_tokens=self.default_max_tokens,
                          ceiling_tokens=self.ceiling_tokens, ceiling_chars=self.ceiling_chars,
                          min_tokens=self.min_tokens, captures_per_tab=self.captures_per_tab,
                          image_default_tokens=self.image_default_tokens,
                          image_ceiling_tokens=self.image_ceiling_tokens)
        if self.default_max_tokens > self.ceiling_tokens:
            raise ValueError(f"the default maxTokens (--max-tokens {self.default_max_tokens}) exceeds the ceiling "
                             f"(--max-tokens-ceiling {self.ceiling_tokens}); lower one or raise the other.")
        if self.min_tokens > self.default_max_tokens:
            raise ValueError(f"the default maxTokens (--max-tokens {self.default_max_tokens}) is below the least "
                             f"a call may ask for ({self.min_tokens} tokens); raise it.")
        if self.image_default_tokens > self.image_ceiling_tokens:
            raise ValueError(f"the default screenshot budget ({self.image_default_tokens} image tokens) exceeds "
                             f"the ceiling (--max-image-tokens {self.image_ceiling_tokens}).")


@dataclass(frozen=True)
class HttpCredentials:
    """Credentials the browser answers HTTP authentication challenges (401, 407) with, through Playwright's
    ``http_credentials`` (``--http-credentials``). Never shown: ``repr`` hides the password, and the
    redactor scrubs it from every output.

    Attributes:
        username: the user name.
        password: the password (may contain ``:``).
        origin: ``scheme://host[:port]`` they are sent to only; ``None`` (default) answers any origin's
            challenge.
    """

    username: str
    password: str = field(repr=False)
    origin: str | None = None

    @classmethod
    def parse(cls, spec: str) -> HttpCredentials:
        """Parse ``user:password`` or ``https://origin=user:password`` (the password runs to the end).

        Raises:
            InvalidArgument: no ``:`` between user and password, an empty user, or an origin that is not
                ``http(s)://host[:port]`` (the message never repeats the password).
        """
        spec = spec.strip()
        origin: str | None = None
        head, eq, rest = spec.partition("=")
        if eq and "://" in head and ":" in rest:
            origin, spec = head.strip().rstrip("/"), rest
            scheme, _, host = origin.partition("://")
            if scheme.lower() not in ("http", "https") or not host or "/" in host or "@" in host:
                raise InvalidArgument(f"Bad origin {origin!r} in --http-credentials; use e.g. "
                                      "https://intranet.example:8443=user:password.")
        user, colon, password = spec.partition(":")
        if not colon or not user.strip():
            raise InvalidArgument("Bad --http-credentials value; use user:password, or "
                                  "https://origin=user:password for one origin.")
        return cls(user.strip(), password, origin)


@dataclass(frozen=True)
class LaunchSettings:
    """How the browser is found and started.

    Attributes:
        executable_path: explicit browser binary (``--executable-path`` / ``BROWSER_CTX_EXECUTABLE``);
            ``None`` searches PATH for Chrome/Chromium, then Playwright's own browser.
        headless: run without a window (default ``True``; ``--headed`` to watch).
        user_data_dir: persistent profile folder; ``None`` (default) uses an isolated in-memory profile.
        storage_state: a Playwright storage-state JSON file to start logged in.
        ignore_https_errors: accept invalid TLS certificates (default ``False``).
        chromium_args: extra command-line flags for Chromium.
        offline_external: resolve every host but localhost/127.0.0.1 to nothing (default ``False``).
        blocked_origins: origins whose requests are aborted.
        allowed_origins: if non-empty, only these origins may be requested (others aborted).
        viewport: ``(width, height)`` in CSS pixels (default 1280×800); ``None`` keeps the ``device``'s
            viewport (or Playwright's default without a device).
        device: a Playwright device name (``--device "iPhone 15"``) whose viewport, device scale factor,
            user agent, touch and mobile flags the browser context emulates; default ``None``.
        cdp_endpoint: connect to a running browser over the Chrome DevTools Protocol instead of launching
            one (``--cdp-endpoint``; ``http://host:9222`` or ``ws://…``); default ``None``.
        ws_endpoint: connect to a Playwright browser server (``playwright run-server`` / ``launchServer``)
            instead of launching (``--ws-endpoint``); default ``None``.
        remote_headers: extra HTTP headers sent when connecting to either endpoint, as ``(name, value)``
            pairs (``--remote-header``), e.g. an auth token or ``x-playwright-launch-options``.
        connect_timeout_ms: milliseconds one connection attempt may take (10,000).
        connect_attempts: connection attempts per call before giving up (4), waiting 0.25 s, 0.5 s,
            1 s … between them (exponential backoff).
        http_credentials: answer HTTP authentication challenges with these (``--http-credentials``,
            ``BROWSER_CTX_HTTP_CREDENTIALS`` or ``--http-credentials-file``); default ``None``.
        init_scripts: JavaScript files added to every frame of every page before the page's own scripts
            (``--init-script``, repeatable), after browser-ctx's own; default none.
        user_agent: the ``User-Agent`` the context sends and reports (``--user-agent``); default Chromium's.
        proxy_server: ``scheme://host:port`` (http, https, socks4, socks5) or ``host:port`` every request goes
            through (``--proxy-server``); ``proxy_bypass`` the comma-separated hosts that do not
            (``--proxy-bypass``). Default ``None``.
        grant_permissions: browser permissions granted to every origin (``--grant-permissions``), e.g.
            ``("geolocation", "clipboard-read")``; default none.
    """

    executable_path: str | None = None
    headless: bool = True
    user_data_dir: str | None = None
    storage_state: str | None = None
    ignore_https_errors: bool = False
    chromium_args: tuple[str, ...] = ()
    offline_external: bool = False
    blocked_origins: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    viewport: tuple[int, int] | None = (1280, 800)
    device: str | None = None
    cdp_endpoint: str | None = None
    ws_endpoint: str | None = None
    remote_headers: tuple[tuple[str, str], ...] = ()
    connect_timeout_ms: float = 10_000
    connect_attempts: int = 4
    http_credentials: HttpCredentials | None = None
    init_scripts: tuple[str, ...] = ()
    user_agent: str | None = None
    proxy_server: str | None = None
    proxy_bypass: str | None = None
    grant_permissions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Check sizes and counts are positive.

        Raises:
            ValueError: a viewport side, the connect timeout or the attempts not above zero.
        """
        if self.viewport is not None:
            _require_positive("LaunchSettings", viewport_width=self.viewport[0], viewport_height=self.viewport[1])
        _require_positive("LaunchSettings", connect_timeout_ms=self.connect_timeout_ms,
                          connect_attempts=self.connect_attempts)


@dataclass(frozen=True)
class Timeouts:
    """Timeouts, in milliseconds.

    Attributes:
        navigation_ms: loading a URL up to the ``load`` event (30,000).
        read_ms: resolving a target and extracting a page's visible content (15,000).
        action_ms: waiting for an element to act on (5,000).
        call_ms: the most one tool call may take in all before it is abandoned with a timeout error
            (120,000): the last guard against a page that never answers (an endless script) and any
            step without its own timeout. Keep it above navigation + read timeouts.
    """

    navigation_ms: float = 30_000
    read_ms: float = 15_000
    action_ms: float = 5_000
    call_ms: float = 120_000

    def __post_init__(self) -> None:
        """Raises ``ValueError`` for a timeout not above zero."""
        _require_positive("Timeouts", navigation_ms=self.navigation_ms, read_ms=self.read_ms,
                          action_ms=self.action_ms, call_ms=self.call_ms)


@dataclass(frozen=True)
class EventSettings:
    """Console and network capture buffers, per tab.

    Attributes:
        console_entries: distinct console entries kept (1,000); repeats fold into counts. Also the
            most distinct entries a frame's in-page hook holds before it sends a batch at once.
        network_entries: requests kept (2,000).
        message_chars: characters of one console message shown before it is cut (300).
        redact: redact secrets from every output (default ``True``; ``--no-redact`` turns off).
    """

    console_entries: int = 1000
    network_entries: int = 2000
    message_chars: int = 300
    redact: bool = True

    def __post_init__(self) -> None:
        """Raises ``ValueError`` for a buffer size not above zero."""
        _require_positive("EventSettings", console_entries=self.console_entries,
                          network_entries=self.network_entries, message_chars=self.message_chars)


@dataclass(frozen=True)
class ActionSettings:
    """How long an action waits for the page to settle, and what downloads it keeps.

    Attributes:
        quiet_ms: the requests the action started, the DOM and layout must all be quiet this long (ms) for
            the page to count as settled (100; ``--settle-quiet-ms``); after a navigation, its load and the
            new DOM quiet this long. ``bench/README.md`` (``bench.settle_gaps``) has the evidence for 100.
        max_ms: settling never takes longer than this (ms, 5,000; ``--settle-max-ms``).
        stream_ms: with a long-lived connection (EventSource, WebSocket) or polling open, settling stops this
            long (ms) after the action once the action's requests are quiet, even if the DOM is not (1,000).
        download_max_bytes: largest download kept (bytes, 50 MiB); bigger ones are deleted and reported.
        download_wait_ms: how long (ms) a started download may take to finish after the page settled
            (15,000); then it is cancelled.

    Downloads are saved in :func:`browser_ctx.files.download_dir`.
    """

    quiet_ms: float = 100
    max_ms: float = 5000
    stream_ms: float = 1000
    download_max_bytes: int = 50 * 1024 * 1024
    download_wait_ms: float = 15_000

    def __post_init__(self) -> None:
        """Raises ``ValueError`` for a time or size not above zero."""
        _require_positive("ActionSettings", quiet_ms=self.quiet_ms, max_ms=self.max_ms, stream_ms=self.stream_ms,
                          download_max_bytes=self.download_max_bytes, download_wait_ms=self.download_wait_ms)


#: The dialog types a :class:`DialogPolicy` answers.
DIALOG_TYPES = ("alert", "beforeunload", "confirm", "prompt")


@dataclass(frozen=True)
class DialogPolicy:
    """Whether each dialog type is accepted (``True``) or dismissed (``False``) when it opens
    (``--dialogs``; ``browser_handle_dialog`` overrides it for the next dialog only).

    Attributes:
        alert: default ``True``.
        beforeunload: default ``True`` (leaving the page is allowed).
        confirm: default ``False``.
        prompt: default ``False`` (accepting would submit the prompt's default text).
    """

    alert: bool = True
    beforeunload: bool = True
    confirm: bool = False
    prompt: bool = False

    def accepts(self, kind: str) -> bool:
        """Return whether a dialog of type ``kind`` is accepted (unknown types: dismissed)."""
        return bool(getattr(self, kind)) if kind in DIALOG_TYPES else False

    @classmethod
    def parse(cls, spec: str) -> DialogPolicy:
        """Parse a CLI value: ``accept``, ``dismiss``, ``default``, or ``type=accept|dismiss,…``.

        Example: ``"confirm=accept,prompt=dismiss"`` (unnamed types keep their defaults).

        Raises:
            InvalidArgument: an unknown word or type.
        """
        spec = spec.strip().lower()
        if spec in ("", "default"):
            return cls()
        if spec in ("accept", "dismiss"):
            v = spec == "accept"
            return cls(alert=v, beforeunload=v, confirm=v, prompt=v)
        values: dict[str, bool] = {}
        for part in spec.split(","):
            kind, _, how = part.partition("=")
            kind, how = kind.strip(), how.strip()
            if kind not in DIALOG_TYPES or how not in ("accept", "dismiss"):
                raise InvalidArgument(f"Bad dialog policy {part!r}; use accept, dismiss, or e.g. "
                                      "confirm=accept,prompt=dismiss (types: alert, beforeunload, confirm, prompt).")
            values[kind] = how == "accept"
        return cls(**values)


@dataclass(frozen=True)
class Settings:
    """Everything the server needs; build one with keyword arguments or from the CLI.

    Attributes:
        caps: per-call output caps.
        launch: browser discovery and launch options.
        timeouts: timeouts in milliseconds.
        events: console/network capture settings.
        actions: settling after actions, and download limits.
        dialogs: how dialogs are answered when they open (default: accept alert and beforeunload,
            dismiss confirm and prompt).
        allowed_schemes: URL schemes ``browser_navigate`` accepts besides http and https
            (e.g. ``("file", "data")``); default none.
        allowed_roots: folders ``browser_file_upload`` may read files from (``--allowed-roots``);
            default empty = the server's working directory.
        output_dir: folder where tools save files they are given a relative ``filename`` for
            (screenshots, evaluate results); default ``None`` = the server's working directory.
            Saved files must resolve inside it (:func:`browser_ctx.files.output_path`).
        session_outputs: the folder holding every HTTP client session's own output folder, set per session
            by :func:`browser_ctx.files.session_settings`; uploads never read inside it except from this
            session's ``output_dir``. Default ``None`` (one session: stdio or ``--shared-context``).
        tools: when not empty, the only tools offered, from any ``--caps`` set (``--tools``); default empty.
    """

    caps: CapSettings = field(default_factory=CapSettings)
    launch: LaunchSettings = field(default_factory=LaunchSettings)
    timeouts: Timeouts = field(default_factory=Timeouts)
    events: EventSettings = field(default_factory=EventSettings)
    actions: ActionSettings = field(default_factory=ActionSettings)
    dialogs: DialogPolicy = field(default_factory=DialogPolicy)
    allowed_schemes: tuple[str, ...] = ()
    allowed_roots: tuple[str, ...] = ()
    output_dir: str | None = None
    session_outputs: str | None = None
    tools: tuple[str, ...] = ()
