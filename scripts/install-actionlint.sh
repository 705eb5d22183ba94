#!/usr/bin/env bash
# Builds actionlint (the linter of GitHub Actions workflows) from the Go module proxy into .tools/bin,
# for the check of examples/ci/github-actions.yml. Idempotent: a working actionlint of the pinned
# version there is kept. No prebuilt binary can be downloaded on our machines, so Go builds it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/.tools/bin"
version="${DXS_ACTIONLINT_VERSION:-1.7.12}"
mkdir -p "$bin"
if [ -x "$bin/actionlint" ] && [ "$("$bin/actionlint" -version 2>/dev/null | head -n 1)" = "v$version" ]; then
  echo "actionlint present: $version"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "install-actionlint: Go is needed to build actionlint from the Go module proxy" >&2; exit 2; }
export GOPROXY="${DXS_GOPROXY:-https://proxy.golang.org}"
export GOFLAGS="-buildvcs=false"
echo "building actionlint v$version from the Go module proxy into $bin ..."
GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@v$version"
echo "actionlint ready: $("$bin/actionlint" -version | head -n 1)"
