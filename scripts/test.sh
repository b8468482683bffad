#!/usr/bin/env bash
# Runs every test of the project: the Rust tests (`cargo test`: the library, the binary, the
# integration tests), the Python package's tests (python/ci.sh: a venv, the package built
# from source, pytest with Spark, Dask, Polars and DuckDB) and the Java API's tests
# (scripts/test-java.sh: the jars built, JUnit 5, Spark in the JVM). IRINORM_SKIP_PYTHON=1
# skips the Python part, IRINORM_SKIP_JAVA=1 the Java part (both: the same as `cargo test`).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test"
cargo test --locked

if [ "${IRINORM_SKIP_PYTHON:-0}" = 1 ]; then
    echo "== python tests: skipped (IRINORM_SKIP_PYTHON=1)"
elif [ ! -d python ]; then
    echo "== python tests: no python/ package in this tree"
else
    echo "== python tests (python/ci.sh)"
    bash python/ci.sh
fi

if [ "${IRINORM_SKIP_JAVA:-0}" = 1 ]; then
    echo "== java tests: skipped (IRINORM_SKIP_JAVA=1)"
    exit 0
fi
echo "== java tests (scripts/test-java.sh)"
bash scripts/test-java.sh
