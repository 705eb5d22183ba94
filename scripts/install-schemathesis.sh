#!/usr/bin/env bash
# Installs Schemathesis (pinned) from PyPI into a venv under .tools/venv, for `dxs fuzz`
# (DXS_TOOLS_DIR/venv instead: dxs setup's user cache folder).
# Idempotent: a venv that already holds the pinned version is kept.
# Without Python 3 the step is skipped with a note, not failed: `dxs fuzz` then says so itself (exit 2),
# and everything else dxs does needs no Python.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${DXS_SCHEMATHESIS_VERSION:-4.32.5}"
tools="${DXS_TOOLS_DIR:-$root/.tools}"
venv="$tools/venv"
if [ -x "$venv/bin/schemathesis" ] && [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" = "$version" ]; then
  echo "schemathesis present: $version"
  exit 0
fi
python="${DXS_PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1; then
  echo "install-schemathesis: no $python found; skipping (dxs fuzz needs Python 3.9+ and Schemathesis)" >&2
  exit 0
fi
mkdir -p "$tools"
if [ ! -x "$venv/bin/pip" ]; then
  "$python" -m venv "$venv"
fi
echo "installing schemathesis $version into $venv ..."
"$venv/bin/pip" install --quiet --disable-pip-version-check --constraint "$root/scripts/schemathesis-constraints.txt" "schemathesis==$version"
echo "schemathesis ready: $("$venv/bin/schemathesis" --version)"
