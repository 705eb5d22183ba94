#!/usr/bin/env bash
# Debian's Chromium drives the browser checks of our own HTML reports and prints the certificate
# of dxs certify to PDF. No browser build can be downloaded here (playwright install fails), so
# the distribution package is used. poppler-utils (pdftoppm, pdftotext) lets the tests read the
# printed certificate back. Idempotent.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/pdftotext ] && [ -x /usr/bin/pdftoppm ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null | head -n 1); poppler-utils present"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "install-chromium: run as root, or install Debian's chromium and poppler-utils packages yourself" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium poppler-utils >/dev/null
echo "chromium ready: $(/usr/bin/chromium --version 2>/dev/null | head -n 1); poppler-utils ready"
