#!/usr/bin/env bash
# Regenerate requirements.lock from pyproject.toml (needs network to the Python package index).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
python3 -m venv "$tmp/v" && "$tmp/v/bin/pip" install -q uv
"$tmp/v/bin/uv" pip compile pyproject.toml --extra dev --python-version 3.11 -q --no-header -o requirements.lock
sed -i '1i # Locked Python dependencies (runtime + dev) of dtlsim; regenerate with scripts/lock-python.sh' requirements.lock
rm -rf "$tmp"
