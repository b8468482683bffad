#!/usr/bin/env bash
# The Python package's checks: a virtual environment with the engines, the package built
# from source (`pip install ./python`), the CLI its keys are compared with, then pytest.
#
#   python/ci.sh                 # venv in python/.venv
#   IRINORM_VENV=/tmp/v python/ci.sh
#   python/ci.sh -k spark -x     # extra arguments go to pytest
#   IRINORM_PYTHON_READY=1 IRINORM_VENV=/v python/ci.sh   # venv and ./python installed already
#
# Spark needs Java (its tests skip, saying so, without it) and a loopback address.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

venv=${IRINORM_VENV:-$root/python/.venv}
python=${PYTHON:-python3}
export SPARK_LOCAL_IP=127.0.0.1

started=$SECONDS
if [ "${IRINORM_PYTHON_READY:-0}" = 1 ]; then
  # The caller (.ci/run) made the venv and installed the dependencies and ./python.
  echo "== python venv: $venv (prepared by the caller)"
else
  if [ ! -x "$venv/bin/python" ]; then
    echo "== python venv: $venv"
    "$python" -m venv "$venv"
  fi
  echo "== pip install (test dependencies)"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  # pandas<3: PySpark 4 warns on pandas 3.
  "$venv/bin/python" -m pip install --quiet maturin pyarrow 'pandas<3' pyspark 'dask[dataframe]' polars duckdb pytest
  # The oracles of the compatibility profiles, pinned (python/tests/test_compat_oracles.py).
  "$venv/bin/python" -m pip install --quiet surt==0.3.1 w3lib==2.5.0

  echo "== pip install ./python"
  "$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
fi
echo "setup: $((SECONDS - started)) s"

echo "== cargo build --release --locked --bin irinorm (the CLI the keys are compared with)"
cargo build --release --locked --bin irinorm
export IRINORM_BIN=$root/target/release/irinorm

echo "== pytest"
# The package is imported from the venv, not from the source folder: run from elsewhere.
cd "$root/python/tests"
export PYSPARK_PYTHON="$venv/bin/python"
set +e
"$venv/bin/python" -m pytest -q -rs -p no:cacheprovider --durations=10 "$@" .
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
