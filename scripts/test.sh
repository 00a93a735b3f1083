#!/usr/bin/env bash
# Install what the tests need (if missing) and run the whole test suite.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
exec .venv/bin/python -m pytest "$@"
