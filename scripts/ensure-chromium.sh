#!/usr/bin/env bash
# The HTML viewer's test drives a real headless browser: Debian's chromium (a browser download by a
# test tool cannot work on machines that reach only package registries). Installs it when missing
# and possible (root with apt-get); otherwise says what to do and lets the test report it.
set -euo pipefail
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$browser" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests (about a minute, once per machine)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "No chromium at $browser: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH; the browser tests will fail until then." >&2
