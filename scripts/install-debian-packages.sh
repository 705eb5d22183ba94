#!/usr/bin/env bash
# Installs the Debian packages that are missing. Each argument is COMMAND:PACKAGE (or PACKAGE when
# its command has its name); a command found on PATH (or a path that is executable) means the
# package is there. Idempotent. apt needs root: without it the script says what to install.
set -euo pipefail
missing=()
for entry in "$@"; do
  command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "debian packages present: ${*#*:}"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "install-debian-packages: run as root, or install Debian's ${missing[*]} yourself" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
echo "debian packages ready: ${missing[*]}"
