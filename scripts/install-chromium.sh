#!/usr/bin/env bash
# Debian's Chromium drives the browser checks of our own HTML reports and prints the certificate
# of dxs certify to PDF. No browser build can be downloaded here (playwright install fails), so
# the distribution package is used. poppler-utils (pdftoppm, pdftotext) lets the tests read the
# printed certificate back. Idempotent.
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/install-debian-packages.sh" /usr/bin/chromium:chromium pdftotext:poppler-utils
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null | head -n 1); poppler-utils present"
