#!/usr/bin/env bash
# Install what the tests need (if missing), lint (scripts/lint.sh: ruff, mypy, node --check), then run the
# whole test suite (or the pytest arguments given, e.g. -m "not e2e" for the fast subset).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
bash scripts/lint.sh
exec .venv/bin/python -m pytest "$@"
