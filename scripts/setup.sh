#!/usr/bin/env bash
# Install browser-ctx (venv, package, a Chromium if none is found) and run the demo on the built-in site.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
exec .venv/bin/browser-ctx demo "$@"
