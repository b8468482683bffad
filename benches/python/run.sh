#!/usr/bin/env bash
# Runs benches/python/bench.py in its own venv (default benches/python/.venv, or
# $IRINORM_BENCH_VENV), which also holds the peers it compares with (w3lib, surt,
# urlcanon: they are not test dependencies), and builds the CLI it is compared with.
# Arguments go to bench.py.
#
#   benches/python/run.sh
#   benches/python/run.sh --skip spark --repeat 5
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${IRINORM_BENCH_VENV:-$PWD/benches/python/.venv}
export SPARK_LOCAL_IP=127.0.0.1
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet pyarrow 'pandas<3' pyspark w3lib surt urlcanon
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
# The CLI, timed on the same file for comparison.
cargo build --release --locked --bin irinorm
cd benches/python
exec "$venv/bin/python" bench.py "$@"
