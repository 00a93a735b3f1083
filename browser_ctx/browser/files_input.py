"""Give files to a page's file input, wherever it hides: ``browser_file_upload``'s browser side.

A target may be:

- a file input itself (visible or not: ``display:none``, ``hidden`` and off-screen inputs take files);
- a ``<label>`` whose control is a file input (the input gets the files, and the result names the input);
- any other element whose click opens a file chooser (a styled button that calls ``input.click()``, even
  on an input that is never in the document): it is clicked and the files go to Playwright's file
  chooser.

Without a target, the file chooser the last action opened (remembered on the tab,
``Tab.file_chooser``, by :class:`browser_ctx.browser.actions.Watch`) is answered; else the page's only
file input gets the files. The result says which input received which files: names and sizes in
bytes, never contents. Every Playwright error goes through :func:`browser_ctx._errors.translate`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import ElementHandle, FileChooser, Locator
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from .._errors import InvalidArgument, SelectorError, translate
from .scripts import script
from .session import Tab
from .worlds import Worlds

__all__ = ["Uploaded", "upload", "FILE_INPUTS"]

#: Selector of every file input of a page.
FILE_INPUTS = "input[type=file]"


@dataclass(frozen=True)
class Uploaded:
    """What an upload did.

    Attributes:
        text: one line for the model: which input received which files (or was cleared), and how it was
            reached (``via label``, ``via file chooser``).
        files: how many files the input now holds.
    """

    text: str
    files: int


def _describe(info: dict[str, Any], how: str) -> Uploaded:
    inp = info["input"] or {}
    name = f'file input "{inp["name"]}"' if inp.get("name") else "file input"
    if inp.get("id"):
        name += f" (#{inp['id']})"
    via = {"label": " (via label)", "chooser": " (via file chooser)"}.get(how, "")
    got = inp.get("files") or []
    if not got:
        return Uploaded(f"Cleared the files of {name}{via}.", 0)
    listed = ", ".join(f"{n} ({size:,} bytes)" for n, size in got)
    return Uploaded(f"Set {len(got)} file{'s' if len(got) != 1 else ''} on {name}{via}: {listed}.", len(got))


def _check_multiple(info: dict[str, Any], paths: list[Path], what: str) -> None:
    if len(paths) > 1 and info["input"] is not None and not info["input"]["multiple"]:
        raise InvalidArgument(f"{what} takes one file (no 'multiple'); got {len(paths)}. Pass one path.")


async def _to_input(handle: ElementHandle, paths: list[Path], how: str, what: str, timeout_ms: float,
                    worlds: Worlds) -> Uploaded:
    info = await worlds.on_element(handle, script("file_input"))
    _check_multiple(info, paths, what)
    await handle.set_input_files([str(p) for p in paths], timeout=timeout_ms)
    return _describe(await worlds.on_element(handle, script("file_input")), how)


async def _to_chooser(chooser: FileChooser, paths: list[Path], what: str) -> Uploaded:
    if len(paths) > 1 and not chooser.is_multiple():
        raise InvalidArgument(f"The file chooser of {what} takes one file; got {len(paths)}. Pass one path.")
    await chooser.set_files([str(p) for p in paths])
    # The chooser's input may be one a script made and never attached (the isolated world's hand-over needs it
    # in a frame): read it where Playwright holds it.
    return _describe(await chooser.element.evaluate(script("file_input")), "chooser")


async def upload(tab: Tab, locator: Locator | None, paths: list[Path], *, what: str, timeout_ms: float) -> Uploaded:
    """Give ``paths`` (already checked against the upload roots) to a file input; see the module docstring.

    Args:
        tab: the tab.
        locator: the target (exactly one element), or ``None`` for the pending chooser / the only file input.
        paths: the files; an empty list clears the input.
        what: how messages name the target (``button "Attach" [e5]``).
        timeout_ms: how long to wait for the element, and for a file chooser after clicking it.

    Raises:
        SelectorError: no target and no pending chooser and not exactly one file input; a target that is
            no file input, no label of one, and whose click opens no file chooser.
        InvalidArgument: several files for an input that takes one.
        BrowserCtxError: any Playwright failure, translated.
    """
    try:
        if locator is None:
            chooser = tab.file_chooser
            tab.file_chooser = None
            if chooser is not None and not chooser.page.is_closed():
                return await _to_chooser(chooser, paths, "the open file chooser")
            inputs = tab.page.locator(FILE_INPUTS)
            n = await inputs.count()
            if n != 1:
                raise SelectorError(
                    ("No file input on the page" if n == 0 else f"The page has {n} file inputs")
                    + "; pass target: a file input, its label, or the button that opens the file chooser.")
            locator = inputs
        info = await tab.worlds.on_element(locator, script("file_input"), timeout_ms=timeout_ms)
        if info["how"] in ("input", "label"):
            handle = await locator.evaluate_handle("el => el.localName === 'label' ? el.control : el")
            element = handle.as_element()
            if element is None:  # the label lost its control meanwhile
                raise SelectorError(f"{what} is no longer tied to a file input. Take a new browser_snapshot.")
            try:
                return await _to_input(element, paths, info["how"], what, timeout_ms, tab.worlds)
            finally:
                await handle.dispose()
        try:
            async with tab.page.expect_file_chooser(timeout=timeout_ms) as opened:
                await locator.click(timeout=timeout_ms)
        except PlaywrightTimeout as exc:
            raise SelectorError(f"{what} is not a file input or its label, and clicking it opened no file "
                                f"chooser (waited {timeout_ms:.0f} ms). Target the input, its label, or the "
                                "button that opens the chooser.") from exc
        return await _to_chooser(await opened.value, paths, what)
    except PlaywrightError as exc:
        raise translate(exc, action="set files on", target=what) from exc
