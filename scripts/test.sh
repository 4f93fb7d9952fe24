#!/usr/bin/env bash
# The project's test command (see README.md): the Rust test suite, then the Python
# cross-implementation tests (parq vs pyarrow/duckdb on the shared test corpus).
#
# Environment: PARQ_TESTDATA overrides the corpus location (default <repo>/../shared/testdata).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/venv.sh

echo
echo "==== cargo test --workspace --features parq/object_store ===="
cargo test --workspace --features parq/object_store

echo
echo "==== pytest tests/python ===="
rc=0
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider || rc=$?
if [ "$rc" -eq 5 ]; then
    echo "error: pytest collected no tests in tests/python" >&2
fi
exit "$rc"
