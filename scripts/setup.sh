#!/usr/bin/env bash
# Everything a fresh machine needs: npm packages, k6 (built from the Go module proxy),
# Debian's Chromium for the report checks, and the generated artefacts (validators for k6,
# fixture files). Each step is idempotent, so running it twice costs little.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
bash scripts/install-k6.sh
bash scripts/install-schemathesis.sh
if [ "${DXS_SKIP_CHROMIUM:-}" != "1" ]; then bash scripts/install-chromium.sh; fi
npm run --silent build
