#!/usr/bin/env bash
# Builds k6 from the Go module proxy into .tools/bin (DXS_TOOLS_DIR/bin instead: dxs setup's user
# cache folder). Idempotent: a working k6 there is kept.
# No prebuilt binary can be downloaded on our machines, so the Go toolchain builds it.
#
# Why not plain `go install go.k6.io/k6/v2@VERSION`: it looks up @latest for a deprecation
# notice, the proxy has no version list for go.k6.io/k6/v2 (404), and the fallback to the
# vanity host is unreachable here. Building inside a throwaway module avoids that lookup.
# v2.3.0's zip is refused by the proxy (403), so v2.2.0 is the usual result.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${DXS_TOOLS_DIR:-$root/.tools}/bin"
mkdir -p "$bin"
if [ -x "$bin/k6" ] && "$bin/k6" version >/dev/null 2>&1; then
  echo "k6 present: $("$bin/k6" version | head -n 1)"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "install-k6: Go is needed to build k6 from the Go module proxy" >&2; exit 2; }
export GOPROXY="${DXS_GOPROXY:-https://proxy.golang.org}"
export GOFLAGS="-buildvcs=false"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for version in v2.3.0 v2.2.0; do
  echo "building k6 $version from the Go module proxy into $bin (a few minutes on 2 cores) ..."
  rm -f "$work/go.mod" "$work/go.sum"
  if (cd "$work" && go mod init dxs-k6-build >/dev/null 2>&1 \
      && go get "go.k6.io/k6/v2@$version" >/dev/null \
      && go build -trimpath -o "$bin/k6.partial" go.k6.io/k6/v2); then
    mv "$bin/k6.partial" "$bin/k6"
    echo "k6 ready: $("$bin/k6" version | head -n 1)"
    exit 0
  fi
  echo "k6 $version did not build; trying the next version" >&2
done
echo "install-k6: could not build k6 (tried v2.3.0 and v2.2.0)" >&2
exit 1
