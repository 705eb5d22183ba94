#!/usr/bin/env bash
# Debian's Chromium drives the browser checks of our own HTML reports. No browser build can be
# downloaded here (playwright install fails), so the distribution package is used. Idempotent.
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/install-debian-packages.sh" /usr/bin/chromium:chromium
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1)"
