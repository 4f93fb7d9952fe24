#!/usr/bin/env bash
# Create (if missing) the Python test venv at <repo>/.venv, install the exact pins of
# requirements-test.txt into it, then build and install the parq Python package (python/)
# from source. Used by scripts/test.sh and .ci/run; safe to re-run: it only calls pip for the
# pins when they changed since the last successful install, and the package build is
# incremental (cargo, in python/target).
#
# Environment: PYTHON (default python3) is the interpreter the venv is created from.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
REQ="$ROOT/requirements-test.txt"
STAMP="$VENV/.requirements-test.sha256"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    echo "venv: creating $VENV with $("$PYTHON" --version 2>&1)"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"
if [ "$want" != "$have" ]; then
    echo "venv: installing $REQ"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQ"
    echo "$want" >"$STAMP"
else
    echo "venv: $VENV is up to date with requirements-test.txt"
fi

echo "venv: building and installing the parq Python package from python/"
# maturin (a pinned requirement) runs from the venv.
PATH="$VENV/bin:$PATH" "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    --no-build-isolation --no-deps --force-reinstall "$ROOT/python"
