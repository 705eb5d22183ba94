#!/usr/bin/env bash
# What a fresh machine needs to use dxs: the npm packages, the generated artefacts (validators for
# k6, fixture files), k6 (built from the Go module proxy, for dxs load), Schemathesis (dxs fuzz) and
# Debian's Chromium (dxs certify). `--dev` adds what only the project's own tests use; `--only node`
# is what a CI job running `dxs test` needs and nothing more. Each step is idempotent, so running it
# twice costs little.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  cat <<'EOF'
Usage: scripts/setup.sh [--dev | --only node] [--help]

Installs what dxs needs on this machine. Idempotent: a step whose result is already there is skipped.

  (no option)   what the dxs commands use, for running dxs (the README's first command):
                  npm ci without the dev tools (--omit=dev) and the generated artefacts  (dxs test)
                  k6 built from the Go module proxy into .tools/bin                     (dxs load)
                  Schemathesis into .tools/venv, when Python 3 is there                  (dxs fuzz)
                  Debian's chromium, as root; DXS_SKIP_CHROMIUM=1 skips it              (dxs certify)
                  Debian's openssl, when missing     (the sandbox's TLS variants make a CA with it)
                k6, Schemathesis and Chromium are installed at the same time.
  --dev         all of the above, plus what only the project's own tests (npm test) use:
                  every npm package (TypeScript, dpdm, gitlab-ci-local with its re2, ...)
                  actionlint built from the Go module proxy into .tools/bin
                  Debian's rsync, shellcheck, poppler-utils and prometheus
                  Debian's curl and jq (npm test runs the reproduce scripts dxs test writes)
                .ci/run uses it.
  --only node   all that `dxs test` needs, for a CI job: npm ci without the dev tools
                (--omit=dev) and the generated artefacts. No Go, Python or apt. dxs load then
                needs a k6 (--k6, K6_BIN), dxs fuzz Schemathesis, dxs certify Chromium.
  --help        this text

Environment: DXS_SKIP_CHROMIUM=1, DXS_GOPROXY (Go module proxy for k6 and actionlint),
DXS_PYTHON (the Python that gets Schemathesis).
EOF
}

only=''
dev=''
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
    --only=*) only="${1#--only=}"; shift ;;
    --dev) dev=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$only" in
  ''|node) ;;
  *) echo "setup.sh: --only takes 'node' (got '$only')" >&2; exit 2 ;;
esac
if [ -n "$only" ] && [ -n "$dev" ]; then echo "setup.sh: --dev and --only node exclude each other" >&2; exit 2; fi

# npm ci runs unless node_modules already holds this lock file's packages in a wide enough mode:
# a marker names the lock file's hash and the mode, so a node_modules restored from a CI cache
# (whose mtimes say nothing) is kept, and a --only node install is completed by a full setup.
install_npm_packages() {
  local mode="$1" marker=node_modules/.dxs-setup lock
  lock="$(sha256sum package-lock.json | cut -d ' ' -f 1)"
  if [ -f "$marker" ]; then
    case "$(cat "$marker")" in
      "$lock full"|"$lock $mode") echo "npm packages present ($(cut -d ' ' -f 2 "$marker"))"; return 0 ;;
    esac
  elif [ -d node_modules ] && [ ! package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "npm packages present"
    return 0
  fi
  if [ -L node_modules ]; then
    # A worktree sharing another checkout's packages: npm ci would empty that checkout's folder.
    echo "setup.sh: node_modules is a symbolic link; not reinstalling through it (run npm ci where it points)" >&2
    return 0
  fi
  if [ "$mode" = node ]; then
    npm ci --omit=dev --no-audit --no-fund
  else
    npm ci --no-audit --no-fund
  fi
  echo "$lock $mode" > "$marker"
}

if [ "$only" = node ]; then
  install_npm_packages node
  npm run --silent build
  exit 0
fi
# The slow installs (a Go build, a pip install, an apt run) wait on the network and on different
# tools, so they run side by side; each one's output is kept apart and shown when it ends.
pids=()
names=()
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
start() {
  local name="$1"; shift
  "$@" > "$logs/$name" 2>&1 &
  pids+=("$!")
  names+=("$name")
}
finish() {
  local failed=0 index
  for index in "${!pids[@]}"; do
    if wait "${pids[$index]}"; then
      sed "s/^/[${names[$index]}] /" "$logs/${names[$index]}"
    else
      sed "s/^/[${names[$index]}] /" "$logs/${names[$index]}" >&2
      echo "setup.sh: ${names[$index]} failed" >&2
      failed=1
    fi
  done
  return "$failed"
}

start k6 bash scripts/install-k6.sh
start schemathesis bash scripts/install-schemathesis.sh
# Debian's packages: Chromium for dxs certify, openssl for the CA the sandbox's TLS variants make
# for a run; with --dev also rsync for gitlab-ci-local, shellcheck for the shell of the GitHub recipe
# (actionlint runs it), poppler-utils for reading the printed certificate back, Prometheus for the
# test of dxs load --out experimental-prometheus-rw, and curl and jq for running the reproduce scripts
# of dxs test (issue 43). One apt run for all: apt holds a lock.
debian=(openssl)
if [ "${DXS_SKIP_CHROMIUM:-}" != "1" ]; then debian+=(/usr/bin/chromium:chromium); fi
if [ -n "$dev" ]; then
  debian+=(rsync shellcheck prometheus curl jq)
  if [ "${DXS_SKIP_CHROMIUM:-}" != "1" ]; then debian+=(pdftotext:poppler-utils); fi
fi
start debian bash scripts/install-debian-packages.sh "${debian[@]}"
if [ -n "$dev" ]; then install_npm_packages full; else install_npm_packages node; fi
npm run --silent build
finish
# After k6's build: two Go builds at once would only share the two cores.
if [ -n "$dev" ]; then bash scripts/install-actionlint.sh; fi
