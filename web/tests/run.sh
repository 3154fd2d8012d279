#!/usr/bin/env bash
# The browser client's tests, as CI runs them: installs what they need (idempotently), then the
# Node unit tests and the end-to-end tests in headless Chromium against a real server (which the
# tests build with cargo unless AEROPLANE_SERVER_BIN names a binary).
set -euo pipefail
cd "$(dirname "$0")/.."
tests/setup.sh
npm test
npm run test:e2e
