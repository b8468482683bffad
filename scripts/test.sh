#!/usr/bin/env bash
# Runs every test of the project: the Rust tests (`cargo test`: the library, the binary, the
# integration tests) and the Python package's tests (python/ci.sh: a venv, the package built
# from source, pytest with Spark, Dask, Polars and DuckDB). IRINORM_SKIP_PYTHON=1 runs the
# Rust part only (the same as `cargo test`).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test"
cargo test --locked

if [ "${IRINORM_SKIP_PYTHON:-0}" = 1 ]; then
    echo "== python tests: skipped (IRINORM_SKIP_PYTHON=1)"
    exit 0
fi
if [ ! -d python ]; then
    echo "== python tests: no python/ package in this tree"
    exit 0
fi
echo "== python tests (python/ci.sh)"
bash python/ci.sh
