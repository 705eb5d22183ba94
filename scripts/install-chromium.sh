#!/usr/bin/env bash
# Debian's Chromium drives the browser checks of our own HTML reports. No browser build can be
# downloaded here (playwright install fails), so the distribution package is used. Idempotent.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "install-chromium: run as root, or install Debian's chromium package yourself" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "chromium ready: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
