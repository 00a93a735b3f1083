"""Where the server writes and reads files on the user's machine: one policy for every tool.

- Files a tool is given a ``filename`` for (screenshots, evaluate results) go in :func:`output_dir`
  (``Settings.output_dir`` — ``--output-dir`` or ``$BROWSER_CTX_OUTPUT_DIR``, read by the CLI — else the
  server's working directory). A name must resolve inside that folder and nowhere else (:func:`output_path`):
  an absolute name elsewhere is refused even inside the working directory or an upload root, so a page's
  content can never overwrite ``~/.bashrc``. A name with a NUL, longer than the OS allows, or naming a
  folder is refused in one line.
- Over HTTP, each client session gets its own output folder (:func:`session_settings`):
  ``<output dir>/sessions/<random id>``, or ``<system temp>/browser-ctx-<pid>/sessions/<random id>`` without
  ``--output-dir``; its downloads go in that folder's ``downloads``. The folder holding them all is
  ``Settings.session_outputs``; uploads never read inside it except from the session's own folder, so one
  client cannot upload another's saved files or downloads.
- Downloads go in :func:`download_dir`: ``<output dir>/downloads`` when an output dir is set,
  else a folder of this process under the system's temporary directory.
- ``browser_file_upload`` reads files only from :func:`upload_roots` (``Settings.allowed_roots`` —
  ``--allowed-roots`` — else the working directory), checked by :func:`upload_path`.

Environment variables are never read here: the CLI reads them into :class:`~browser_ctx.settings.Settings`.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import tempfile
from pathlib import Path

from ._errors import InvalidArgument
from .settings import Settings

__all__ = ["output_dir", "download_dir", "output_path", "upload_roots", "upload_path", "save",
           "session_settings", "SESSIONS", "DOWNLOADS", "artifact_dir"]

#: Sub-folder of the output dir that downloads are saved in.
DOWNLOADS = "downloads"
#: Sub-folder of the output dir (or of this process's temporary folder) holding each HTTP session's folder.
SESSIONS = "sessions"
#: Longest ``filename`` accepted, in characters (Linux's PATH_MAX is 4,096 bytes).
MAX_FILENAME_CHARS = 1024
#: Longest single path component accepted, in bytes of UTF-8 (the common file-system limit).
MAX_COMPONENT_BYTES = 255


def _process_temp() -> Path:
    """``<system temp>/browser-ctx-<pid>``: this process's own folder for files nobody asked to keep in the cwd."""
    return Path(tempfile.gettempdir()) / f"browser-ctx-{os.getpid()}"


def output_dir(settings: Settings) -> Path:
    """Return the resolved folder relative ``filename`` values are saved in (not created here)."""
    return Path(settings.output_dir or os.getcwd()).expanduser().resolve()


def session_settings(settings: Settings) -> Settings:
    """Return ``settings`` for one HTTP client session: its own, new output folder (not created yet).

    The folder is ``<output dir>/sessions/<16 hex digits>`` (``--output-dir`` set) or
    ``<system temp>/browser-ctx-<pid>/sessions/<16 hex digits>``; the id is random, never the MCP session id.
    ``Settings.session_outputs`` is set to the ``sessions`` folder, which :func:`upload_path` keeps out of
    reach except for this session's own folder.
    """
    base = Path(settings.output_dir).expanduser() if settings.output_dir else _process_temp()
    root = (base / SESSIONS).resolve()
    return dataclasses.replace(settings, output_dir=str(root / secrets.token_hex(8)), session_outputs=str(root))


def download_dir(settings: Settings) -> Path:
    """Return (and create) the folder downloads are saved in.

    ``<Settings.output_dir>/downloads`` when an output dir is set, else
    ``<system temp>/browser-ctx-<pid>/downloads`` (never the working directory: a page may download
    anything, unasked).

    Raises:
        OSError: the folder cannot be created.
    """
    path = (Path(settings.output_dir).expanduser() if settings.output_dir else _process_temp()) / DOWNLOADS
    path.mkdir(parents=True, exist_ok=True)
    return path


def artifact_dir(settings: Settings, kind: str) -> Path:
    """Return (and create) the folder for files a tool writes unasked (``kind``: ``traces``, ``heap``):
    ``<Settings.output_dir>/<kind>``, or ``<system temp>/browser-ctx-<pid>/<kind>`` without an output dir.

    Raises:
        OSError: the folder cannot be created.
    """
    path = (Path(settings.output_dir).expanduser() if settings.output_dir else _process_temp()) / kind
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_roots(settings: Settings) -> list[Path]:
    """Return the resolved folders uploads may read from (``Settings.allowed_roots``, default the working dir).

    Inside them, :func:`upload_path` still refuses other HTTP sessions' output folders.
    """
    roots = settings.allowed_roots or (os.getcwd(),)
    return [Path(r).expanduser().resolve() for r in roots]


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _check_name(filename: str, what: str) -> None:
    """Refuse a name no file system accepts, in one line (instead of Python's ``ValueError``/``OSError``)."""
    if "\x00" in filename:
        raise InvalidArgument(f"{what} contains a NUL character; give a plain file name such as shot.png.")
    if len(filename) > MAX_FILENAME_CHARS:
        raise InvalidArgument(f"{what} is {len(filename):,} characters long; the most is {MAX_FILENAME_CHARS:,}. "
                              "Give a shorter name.")
    longest = max((len(part.encode("utf-8", "surrogatepass")) for part in Path(filename).parts), default=0)
    if longest > MAX_COMPONENT_BYTES:
        raise InvalidArgument(f"{what} has a path component of {longest} bytes; the most is "
                              f"{MAX_COMPONENT_BYTES}. Give a shorter name.")


def output_path(settings: Settings, filename: str) -> Path:
    """Resolve ``filename`` for saving: a relative name goes in :func:`output_dir`, and any name must end there.

    Raises:
        InvalidArgument: the name is empty, has a NUL, is longer than :data:`MAX_FILENAME_CHARS` characters
            (or a component longer than :data:`MAX_COMPONENT_BYTES` bytes), names a folder, or resolves
            outside the output folder (absolute names elsewhere included).
    """
    _check_name(filename, "filename")
    if not filename.strip() or filename.endswith(("/", os.sep)):
        raise InvalidArgument(f"filename {filename!r} names a folder, not a file; give a file name such as "
                              "shot.png.")
    base = output_dir(settings)
    path = Path(filename).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    if not _inside(path, [base]) or path == base:
        raise InvalidArgument(f"filename {filename!r} resolves outside the output folder {base}; give a name "
                              "relative to it (start the server with --output-dir to change the folder).")
    if path.is_dir():
        raise InvalidArgument(f"filename {filename!r} is a folder ({path}); give a file name inside it.")
    return path


def upload_path(settings: Settings, raw: str) -> Path:
    """Resolve a path ``browser_file_upload`` was given (relative to the working directory) and check it.

    Raises:
        InvalidArgument: the path has a NUL or is too long, is outside :func:`upload_roots`, is inside
            another HTTP session's output folder, or is not a file.
    """
    _check_name(raw, "path")
    roots = upload_roots(settings)
    path = Path(raw).expanduser()
    path = (path if path.is_absolute() else Path(os.getcwd()) / path).resolve()
    if not _inside(path, roots):
        raise InvalidArgument(f"{raw} is outside the allowed roots ({', '.join(str(r) for r in roots)}); "
                              "start the server with --allowed-roots to allow its folder.")
    if settings.session_outputs and _inside(path, [Path(settings.session_outputs)]) \
            and not _inside(path, [output_dir(settings)]):
        raise InvalidArgument(f"{raw} is in another client session's output folder; a session may upload only "
                              "its own files.")
    if not path.is_file():
        raise InvalidArgument(f"{raw} is not a file (resolved to {path}).")
    return path


def save(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (from :func:`output_path`), creating its folder.

    Raises:
        InvalidArgument: the file cannot be written (the OS's reason is given).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        raise InvalidArgument(f"Could not save {path}: {exc.strerror or exc}. Pick another filename.") from exc
