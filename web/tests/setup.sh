#!/usr/bin/env bash
# Installs what the browser tests need, idempotently: Debian's Chromium and the npm packages of
# web/ (playwright-core, which drives the system Chromium and never downloads a browser, and
# axe-core, the accessibility checker the tests inject into pages).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "installing node and npm from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq nodejs npm >/dev/null
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "the browser tests need Node 20 or newer, found $(node --version)" >&2
  exit 1
fi

# `npm ci` only when an installed package is not the locked one.
stale=0
for package in playwright-core axe-core; do
  wanted=$(node -p "require('./package-lock.json').packages['node_modules/$package'].version")
  installed=$(node -p "try { require('./node_modules/$package/package.json').version } catch { '' }")
  [ "$wanted" = "$installed" ] || stale=1
done
if [ "$stale" = 1 ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi
