#!/usr/bin/env bash
# A Spark standalone cluster on this machine's loopback, for trying a job as it runs on a
# cluster (executors in processes of their own, started by a worker, not by the driver):
# one master and one worker, from the Spark of the `pyspark` package (or $SPARK_HOME).
#
#   scripts/spark-standalone.sh start [DIR]   # prints the master's URL: spark://127.0.0.1:PORT
#   scripts/spark-standalone.sh stop [DIR]
#
# DIR (default: target/spark-standalone) holds the processes' ids and logs. PYTHON (default:
# python3) is the Python whose pyspark gives the Spark; SPARK_MASTER_PORT (default 7077),
# SPARK_WORKER_CORES (default 2) and SPARK_WORKER_MEMORY (default 2g) size it. The worker
# starts executors with the environment of `start`, so PYSPARK_PYTHON is the job's to set
# (docs/python.md, "Executors").
set -euo pipefail

cmd="${1:-}"
dir="${2:-target/spark-standalone}"
python="${PYTHON:-python3}"
port="${SPARK_MASTER_PORT:-7077}"
export SPARK_LOCAL_IP=127.0.0.1

spark_home() {
  if [[ -n "${SPARK_HOME:-}" ]]; then
    echo "$SPARK_HOME"
  else
    "$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))'
  fi
}

# Waits until the log `$1` says `$2`, or fails after a minute.
wait_for() {
  for _ in $(seq 120); do
    if grep -q "$2" "$1" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "spark-standalone: no '$2' in $1 after a minute:" >&2
  tail -20 "$1" >&2
  return 1
}

case "$cmd" in
  start)
    home="$(spark_home)"
    mkdir -p "$dir"
    export SPARK_HOME="$home" SPARK_LOG_DIR="$dir" SPARK_WORKER_DIR="$dir/work"
    master="spark://127.0.0.1:$port"
    "$home/bin/spark-class" org.apache.spark.deploy.master.Master \
      --host 127.0.0.1 --port "$port" --webui-port 0 >"$dir/master.log" 2>&1 &
    echo $! >"$dir/master.pid"
    wait_for "$dir/master.log" "I have been elected leader"
    "$home/bin/spark-class" org.apache.spark.deploy.worker.Worker "$master" \
      --host 127.0.0.1 --webui-port 0 --work-dir "$dir/work" \
      --cores "${SPARK_WORKER_CORES:-2}" --memory "${SPARK_WORKER_MEMORY:-2g}" \
      >"$dir/worker.log" 2>&1 &
    echo $! >"$dir/worker.pid"
    wait_for "$dir/worker.log" "Successfully registered with master"
    echo "$master"
    ;;
  stop)
    for role in worker master; do
      if [[ -f "$dir/$role.pid" ]]; then
        kill "$(cat "$dir/$role.pid")" 2>/dev/null || true
        rm -f "$dir/$role.pid"
      fi
    done
    ;;
  *)
    echo "usage: scripts/spark-standalone.sh start|stop [DIR]" >&2
    exit 2
    ;;
esac
