"""Our page-side JavaScript, loaded one way.

Every block of page-side code of 10 lines or more lives in ``browser/js/<name>.js``. Each file holds
exactly one parenthesised function expression or arrow function (so ``node --check`` parses it) that
takes its parameters as arguments; nothing is filled in by string replacement.

- :func:`script` returns a file's source, for ``page.evaluate(script("name"), arg)`` and friends.
- :func:`invocation` returns ``(source)(arg1, arg2, …)`` with the arguments as JSON, for the places
  that take a script and no argument (``add_init_script``, CDP ``Runtime.evaluate``).
- :func:`bundle` joins a script to the modules it uses: a script listed in :data:`MODULES` takes an object of
  its modules (``M.registry`` …) as its first parameter, and its bundle is an ordinary function expression of
  the remaining parameters.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["script", "invocation", "script_names", "bundle", "MODULES"]

#: Scripts made of modules: name -> the module scripts it takes, in ``M`` (``M.registry`` is ``js/registry.js``).
MODULES: dict[str, tuple[str, ...]] = {
    "walk": ("registry", "operable", "walk_state", "emit", "names", "visibility", "forms", "sensitive",
             "ax_computed"),
    "widget_state": ("sensitive",),
    "ax_pick": ("ax_kept",),
    "page_version": ("registry",),
    "listened": ("registry",),
    "pin_ref": ("registry",),
    "choose_hidden": ("operable",),
    "console_hook": ("console_format",),
}


@cache
def script(name: str) -> str:
    """Return the source of ``browser/js/<name>.js``: one function expression, stripped.

    Raises:
        FileNotFoundError: no such script (a programming error, never a user's).
    """
    return resources.files(__package__).joinpath("js", f"{name}.js").read_text(encoding="utf-8").strip()


@cache
def bundle(name: str) -> str:
    """Return ``name``'s source joined to its :data:`MODULES`: ``((...a) => (<name>)({registry: (…)}, ...a))``,
    one function expression (the modules are evaluated once per call, as plain function values).

    Raises:
        FileNotFoundError: no such script.
    """
    return f"((...a) => ({script(name)})({_modules(name)}, ...a))"


def _modules(name: str) -> str:
    """The object literal of ``name``'s :data:`MODULES`: ``{registry: (<source>), …}``."""
    return "{" + ", ".join(f"{dep}: ({script(dep)})" for dep in MODULES.get(name, ())) + "}"


def invocation(name: str, *args: Any) -> str:
    """Return a self-invoking script: ``(<source of name>)(<args as JSON>)``; a script of :data:`MODULES` gets
    the object of its modules first, ``(<source>)({console_format: (…)}, <args>)`` (no spread: nothing a page
    may have patched runs before the script).

    ``args`` must be JSON-serialisable; they are passed as literal arguments, never spliced into the
    function's body.
    """
    params = [json.dumps(a, ensure_ascii=False) for a in args]
    if name in MODULES:
        params.insert(0, _modules(name))
    return f"({script(name)})({', '.join(params)})"


def script_names() -> list[str]:
    """Return the names of every script in ``browser/js/`` (for checks such as ``node --check``)."""
    folder = resources.files(__package__).joinpath("js")
    return sorted(p.name[:-3] for p in folder.iterdir() if p.name.endswith(".js"))
