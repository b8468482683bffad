#!/usr/bin/env bash
# The Python package's checks: a virtual environment with the engines, the package built
# from source (`pip install ./python`), the CLI its keys are compared with, then pytest.
#
#   python/ci.sh                 # venv in python/.venv
#   IRINORM_VENV=/tmp/v python/ci.sh
#   python/ci.sh -k spark -x     # extra arguments go to pytest
#   IRINORM_PYTHON_READY=1 IRINORM_VENV=/v python/ci.sh   # venv and ./python installed already
#
# A second run in the same venv needs no package index: the test dependencies are found
# in place, and ./python is built without build isolation (maturin from the venv).
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
  # A venv that has them all already needs no package index (a second run works offline).
  if "$venv/bin/python" - <<'PY' 2>/dev/null
import importlib.metadata as m, shutil, sys
import pyarrow, pandas, pyspark, dask.dataframe, distributed, polars, duckdb, pytest, maturin
assert m.version("surt") == "0.3.1" and m.version("w3lib") == "2.5.0"
assert int(m.version("pandas").split(".")[0]) < 3
PY
  then
    echo "== test dependencies: in the venv already"
  else
    echo "== pip install (test dependencies; a few minutes)"
    pip_install=("$venv/bin/python" -m pip install --progress-bar off)
    "${pip_install[@]}" --upgrade pip
    # pandas<3: PySpark 4 warns on pandas 3.
    "${pip_install[@]}" maturin pyarrow 'pandas<3' pyspark 'dask[dataframe]' distributed polars duckdb pytest
    # The oracles of the compatibility profiles, pinned (python/tests/test_compat_oracles.py).
    "${pip_install[@]}" surt==0.3.1 w3lib==2.5.0
  fi

  # No build isolation: maturin is in the venv, so the build needs no package index. The
  # release build of the native library takes several minutes.
  echo "== pip install ./python (the native library's release build: several minutes)"
  # (maturin's build hook runs the `maturin` command: the venv's, on PATH.)
  PATH="$venv/bin:$PATH" "$venv/bin/python" -m pip install --no-build-isolation \
    --force-reinstall --no-deps ./python
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
