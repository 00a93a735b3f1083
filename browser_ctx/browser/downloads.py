"""Downloads an action started: wait for each to finish, keep it under the download folder, report it.

Files go in :func:`browser_ctx.files.download_dir` (``<output dir>/downloads``, else a folder of this
process under the system's temporary directory), under the name the page suggested (``-2``, ``-3`` …
added rather than overwriting). Their content is never read or returned. Sizes are bytes; times ms.

The suggested name is the page's text: on disk it keeps only printable characters, no folder part, and at
most :data:`MAX_FILE_NAME_CHARS` characters (cut in the middle, extension kept), so a 400-character name
saves; in the record it is shown quoted (JSON string syntax) and cut to :data:`SHOWN_NAME_CHARS`
characters, so a name cannot pass itself off as part of the record.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from playwright.async_api import Download
from playwright.async_api import Error as PlaywrightError

from .._errors import one_line
from ..core.record import DownloadInfo, human_size
from ..core.urls import clip_middle
from ..files import download_dir
from ..settings import Settings

__all__ = ["save_downloads", "safe_file_name", "shown_name", "MAX_FILE_NAME_CHARS", "SHOWN_NAME_CHARS"]

#: Longest download file name written to disk, in characters (file systems allow 255 bytes).
MAX_FILE_NAME_CHARS = 120
#: Longest download name shown in an action record, in characters, quotes excluded.
SHOWN_NAME_CHARS = 80
#: Characters never kept in a file name: controls, path separators, and ones Windows shares refuse.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def safe_file_name(suggested: str) -> str:
    """The name a download is saved under: ``suggested`` without folders, control or reserved characters,
    cut in the middle to :data:`MAX_FILE_NAME_CHARS` characters keeping its extension; ``download`` if
    nothing is left."""
    name = _UNSAFE.sub("_", suggested).strip(" ._") or "download"
    if len(name) <= MAX_FILE_NAME_CHARS:
        return name
    stem, dot, ext = name.rpartition(".")
    if not dot or len(ext) > 16:
        stem, ext = name, ""
    ext = f".{ext}" if ext else ""
    keep = MAX_FILE_NAME_CHARS - len(ext) - 1
    return f"{stem[: keep // 2]}…{stem[-(keep - keep // 2):]}{ext}"


def shown_name(suggested: str) -> str:
    """``suggested`` as an action record shows it: cut to :data:`SHOWN_NAME_CHARS` characters (saying how many
    were left out), then quoted as a JSON string (newlines and quotes escaped)."""
    return json.dumps(clip_middle(suggested, SHOWN_NAME_CHARS) if len(suggested) > SHOWN_NAME_CHARS else suggested,
                      ensure_ascii=False)


def _free_name(folder: Path, name: str) -> Path:
    """Return ``folder/name``, or ``folder/<stem>-2<suffix>`` (``-3`` …) when that file exists."""
    dest = folder / safe_file_name(name)
    stem, suffix, k = dest.stem, dest.suffix, 1
    while dest.exists():
        k += 1
        dest = folder / f"{stem}-{k}{suffix}"
    return dest


async def _save(download: Download, info: DownloadInfo, folder: Path, settings: Settings) -> None:
    """Wait for one download and save it, filling ``info`` (``path`` and ``size``, or ``error``)."""
    limits = settings.actions
    try:
        path = await asyncio.wait_for(download.path(), limits.download_wait_ms / 1000)
    except TimeoutError:
        info.error = f"still downloading after {limits.download_wait_ms / 1000:.0f} s; cancelled"
        try:
            await download.cancel()
        except PlaywrightError:  # finished or failed meanwhile: already reported as still downloading
            pass
        return
    except PlaywrightError as exc:
        info.error = one_line(str(exc), 120)
        return
    failure = await download.failure()
    if failure or path is None:
        info.error = f"failed: {failure or 'no file'}"
        return
    size = path.stat().st_size
    info.size = size
    if size > limits.download_max_bytes:
        info.error = f"over the {human_size(limits.download_max_bytes)} download cap; deleted"
        await download.delete()
        return
    dest = _free_name(folder, download.suggested_filename or "download")
    try:
        await download.save_as(dest)
    except (PlaywrightError, OSError) as exc:
        info.error = f"could not be saved: {one_line(str(exc), 120)}"
        return
    info.path = str(dest)


async def save_downloads(downloads: list[Download], settings: Settings) -> list[DownloadInfo]:
    """Wait for ``downloads`` (at most ``settings.actions.download_wait_ms`` each) and save them.

    A download larger than ``settings.actions.download_max_bytes`` is deleted; one still running after
    the wait is cancelled; each says so in its :class:`~browser_ctx.core.record.DownloadInfo`'s ``error``.

    Returns:
        One :class:`~browser_ctx.core.record.DownloadInfo` per download, in order.

    Raises:
        OSError: the download folder cannot be created or written.
    """
    if not downloads:
        return []
    folder = download_dir(settings)
    infos = []
    for download in downloads:
        info = DownloadInfo(shown_name(download.suggested_filename or "download"))
        infos.append(info)
        await _save(download, info, folder, settings)
    return infos
