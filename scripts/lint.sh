#!/usr/bin/env bash
# Lint: ruff (style, imports, blind excepts) and mypy (types) on browser_ctx, bench and tests; `node --check`
# on every page-side script in browser_ctx/browser/ when Node.js is present.
# Rules live in pyproject.toml ([tool.ruff], [tool.mypy]). Exits non-zero on the first failing tool.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
echo "lint: ruff check" >&2
.venv/bin/ruff check browser_ctx bench tests "$@"
echo "lint: mypy" >&2
.venv/bin/mypy                    # the package ([tool.mypy] packages)
.venv/bin/mypy -p bench -p tests   # the benchmark and the tests, with the same settings
if command -v node >/dev/null; then
  echo "lint: node --check browser_ctx/browser/**/*.js" >&2
  while IFS= read -r -d '' js; do
    node --check "$js" || { echo "lint: node --check failed: $js" >&2; exit 1; }
  done < <(find browser_ctx/browser -name '*.js' -print0 | sort -z)
else
  echo "lint: node not found; skipping the JavaScript syntax check" >&2
fi
echo "lint: ok" >&2
