# Shared by setup.sh and test.sh: make .venv with browser-ctx installed, and a Chromium if none is found.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "browser-ctx: creating .venv" >&2
  "$PY" -m venv .venv
fi
if ! .venv/bin/python -c "import browser_ctx, pytest, hypothesis, ruff, mypy" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.browser-ctx-installed ]; then
  echo "browser-ctx: installing the package and its test and lint dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip >&2
  .venv/bin/python -m pip install -q -e '.[test,dev]' >&2
  touch .venv/.browser-ctx-installed
fi
find_browser() {
  .venv/bin/python -c "from browser_ctx.browser.launcher import find_executable; from browser_ctx.settings import LaunchSettings; print(find_executable(LaunchSettings()))" 2>/dev/null
}
if ! find_browser >/dev/null; then
  echo "browser-ctx: no Chrome/Chromium found; installing one" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  if command -v apt-get >/dev/null; then
    $SUDO apt-get update -qq >&2 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2 || true
  fi
  if ! find_browser >/dev/null; then
    .venv/bin/python -m playwright install --with-deps chromium >&2 || true
  fi
  find_browser >/dev/null || { echo "browser-ctx: could not install a browser; install Chrome or Chromium" >&2; exit 1; }
fi
echo "browser-ctx: browser $(find_browser)" >&2
# HAProxy, for the scale-out end-to-end test (tests/test_http_haproxy.py skips, saying why, without it).
if ! command -v haproxy >/dev/null && command -v apt-get >/dev/null; then
  echo "browser-ctx: installing haproxy (the load-balancer test)" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  if [ -z "$SUDO" ] || sudo -n true 2>/dev/null; then
    { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy; } >&2 \
      || echo "browser-ctx: could not install haproxy; the HAProxy test will be skipped" >&2
  else
    echo "browser-ctx: haproxy missing and no password-less sudo; the HAProxy test will be skipped" >&2
  fi
fi
