"""Per-tab console and network capture (``Tab.events``), split by concept:

- :mod:`.attach`: :class:`EventCapture`, the CDP sessions it opens (page, out-of-process frames) and
  the public API the rest of browser-ctx uses;
- :mod:`.console`: the in-page console hook (:class:`ConsoleHook`, one per browser-ctx session) and
  the console entries;
- :mod:`.network`: the request records; :mod:`.bodies`: their bodies, fetched on demand;
- :mod:`.workers`: the requests of the tab's dedicated workers;
- :mod:`.sections`: one section per full navigation of the tab.
"""

from __future__ import annotations

from .attach import MAX_FRAME_SESSIONS, EventCapture
from .bodies import Body
from .console import HOOK_PREFIX, ConsoleHook, new_binding_name
from .sections import MAX_SECTIONS

__all__ = ["EventCapture", "ConsoleHook", "Body", "HOOK_PREFIX", "MAX_FRAME_SESSIONS", "MAX_SECTIONS",
           "new_binding_name"]
