#!/usr/bin/env bash
# Runs every bench script and prints its figures. Benches measure; they never fail a build on
# time. Each script bounds its own load and talks to 127.0.0.1 only.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="$PWD/.tools/bin:$PATH"
status=0
for script in bench/*.ts; do
  [ -e "$script" ] || continue
  echo "=== $script"
  npx tsx "$script" || { echo "(bench $script exited $?)"; status=1; }
  echo
done
exit $status
