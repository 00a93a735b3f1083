"""Pure core of browser-ctx: condensing, rendering, capping and filtering.

Nothing in this package touches a browser: functions take strings and
dataclasses and return strings and dataclasses, so they are unit-tested on
plain HTML and event records.
"""
