"""browser-ctx benchmark: browser-ctx against @playwright/mcp and chrome-devtools-mcp, side by side.

Run ``python -m bench --help``. Pieces:

- :mod:`bench.servers`: the three servers (pins, npm install into a cache folder, launch commands);
- :mod:`bench.client`: a stdio MCP connection that records what the client receives and counts its tokens;
- :mod:`bench.corpus`: corpus discovery, ground truth and the localhost HTTP server;
- :mod:`bench.run`: the page-by-page interleaved run; :mod:`bench.report`: the Markdown report;
- :mod:`bench.dump_tools`: dump each server's ``tools/list`` to ``docs/reference/``.
"""
