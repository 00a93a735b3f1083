"""Where the server writes and reads files on the user's machine: one policy for every tool.

- Files a tool is given a ``filename`` for (screenshots, evaluate results) go in
  :func:`output_dir` (``Settings.output_dir`` — ``--output-dir`` or ``$BROWSER_CTX_OUTPUT_DIR``,
  read by the CLI — else the server's working directory); a name must resolve inside it or inside an
  upload root (:func:`output_path`).
- Downloads go in :func:`download_dir`: ``<output dir>/downloads`` when an output dir is set,
  else a folder of this process under the system's temporary directory.
- ``browser_file_upload`` reads files only from :func:`upload_roots` (``Settings.allowed_roots`` —
  ``--allowed-roots`` — else the working directory), checked by :func:`upload_path`.

Environment variables are never read here: the CLI reads them into :class:`~browser_ctx.settings.Settings`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ._errors import InvalidArgument
from .settings import Settings

__all__ = ["output_dir", "download_dir", "output_path", "upload_roots", "upload_path", "save"]

#: Sub-folder of the output dir that downloads are saved in.
DOWNLOADS = "downloads"


def output_dir(settings: Settings) -> Path:
    """Return the resolved folder relative ``filename`` values are saved in (not created here)."""
    return Path(settings.output_dir or os.getcwd()).expanduser().resolve()


def download_dir(settings: Settings) -> Path:
    """Return (and create) the folder downloads are saved in.

    ``<Settings.output_dir>/downloads`` when an output dir is set, else
    ``<system temp>/browser-ctx-<pid>/downloads`` (never the working directory: a page may download
    anything, unasked).

    Raises:
        OSError: the folder cannot be created.
    """
    if settings.output_dir:
        path = Path(settings.output_dir).expanduser() / DOWNLOADS
    else:
        path = Path(tempfile.gettempdir()) / f"browser-ctx-{os.getpid()}" / DOWNLOADS
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_roots(settings: Settings) -> list[Path]:
    """Return the resolved folders uploads may read from (``Settings.allowed_roots``, default the working dir)."""
    roots = settings.allowed_roots or (os.getcwd(),)
    return [Path(r).expanduser().resolve() for r in roots]


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def output_path(settings: Settings, filename: str) -> Path:
    """Resolve ``filename`` for saving: a relative name goes in :func:`output_dir`.

    Raises:
        InvalidArgument: the path resolves outside the output dir and the upload roots.
    """
    base = output_dir(settings)
    path = Path(filename).expanduser()
    path = (path if path.is_absolute() else base / path).resolve()
    if not _inside(path, [base, *upload_roots(settings)]):
        raise InvalidArgument(f"filename {filename!r} resolves outside the output folder {base}; use a relative "
                              "name, or start the server with --output-dir / --allowed-roots.")
    return path


def upload_path(settings: Settings, raw: str) -> Path:
    """Resolve a path ``browser_file_upload`` was given (relative to the working directory) and check it.

    Raises:
        InvalidArgument: the path is outside :func:`upload_roots` or is not a file.
    """
    roots = upload_roots(settings)
    path = Path(raw).expanduser()
    path = (path if path.is_absolute() else Path(os.getcwd()) / path).resolve()
    if not _inside(path, roots):
        raise InvalidArgument(f"{raw} is outside the allowed roots ({', '.join(str(r) for r in roots)}); "
                              "start the server with --allowed-roots to allow its folder.")
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
