#!/usr/bin/env bash
# Everything a fresh machine needs: npm packages, k6 and actionlint (built from the Go module
# proxy), Schemathesis, Debian's Chromium, rsync and shellcheck for the project's own tests, and
# the generated artefacts (validators for k6, fixture files). Each step is idempotent, so running
# it twice costs little. `--only node` is what a CI job running `dxs test` needs and nothing more.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  cat <<'EOF'
Usage: scripts/setup.sh [--only node] [--help]

Installs what dxs needs on this machine. Idempotent: a step whose result is already there is skipped.

  (no option)   everything, for development and the project's own tests (npm test):
                  npm ci (every package, dev tools included)
                  k6 built from the Go module proxy into .tools/bin        (dxs load)
                  actionlint built from the Go module proxy into .tools/bin (the CI recipe check)
                  Schemathesis into .tools/venv, when Python 3 is there     (dxs fuzz)
                  Debian's rsync and shellcheck (the CI recipe checks) and chromium (the
                  report checks), as root; DXS_SKIP_CHROMIUM=1 skips chromium
                  the generated artefacts (npm run build)
  --only node   all that `dxs test` needs, for a CI job: npm ci without the dev tools
                (--omit=dev) and the generated artefacts. No Go, Python or apt. dxs load then
                needs a k6 (--k6, K6_BIN), dxs fuzz Schemathesis, dxs certify Chromium.
  --help        this text

Environment: DXS_SKIP_CHROMIUM=1, DXS_GOPROXY (Go module proxy for k6 and actionlint),
DXS_PYTHON (the Python that gets Schemathesis).
EOF
}

only=''
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="${2:-}"; shift 2 || { usage >&2; exit 2; } ;;
    --only=*) only="${1#--only=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "setup.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$only" in
  ''|node) ;;
  *) echo "setup.sh: --only takes 'node' (got '$only')" >&2; exit 2 ;;
esac

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
install_npm_packages full
bash scripts/install-k6.sh
bash scripts/install-actionlint.sh
bash scripts/install-schemathesis.sh
# rsync for gitlab-ci-local, shellcheck for the shell of the GitHub recipe (actionlint runs it),
# Chromium and poppler-utils for the report and certificate checks (scripts/install-chromium.sh
# alone): one apt run for all.
debian=(rsync shellcheck)
if [ "${DXS_SKIP_CHROMIUM:-}" != "1" ]; then debian+=(/usr/bin/chromium:chromium pdftotext:poppler-utils); fi
bash scripts/install-debian-packages.sh "${debian[@]}"
npm run --silent build
