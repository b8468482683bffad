"""Spark local[2]: the cost of irinorm's key in the JVM (`irinorm_key(url)`, the Java UDF of
target/java/irinorm-spark-VERSION.jar) against Spark's own `lower(url)` and
`try_parse_url(url, 'HOST')`, and against the Python package's `irinorm.spark.key_column`,
on the same cached DataFrame. Each expression is written to Spark's `noop` sink (every row
computed, nothing stored): one warm-up, then RUNS timed runs; the median wall time is
reported, with the fastest and slowest.

    scripts/build-jar.sh
    python benches/java/spark_bench.py [--copies 32] [--runs 5] FILE...

Run with the Python of a venv that has pyspark and irinorm installed (python/.venv after
python/ci.sh); Spark needs Java 17 or later.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import irinorm.spark

REPO = Path(__file__).resolve().parents[2]


def jars() -> str:
    found = sorted(glob.glob(str(REPO / "target/java/irinorm-*.jar")))
    if len(found) != 2:
        raise SystemExit("build the jars first: scripts/build-jar.sh (with Spark's jars found)")
    return ",".join(found)


def timed(df, column, runs: int) -> list[float]:
    query = df.select(column.alias("k")).write.format("noop").mode("overwrite")
    query.save()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        query.save()
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--copies", type=int, default=32, help="times the lines are repeated")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The Python workers of key_column run this Python (its venv has irinorm and pyarrow).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.jars", jars())
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # The lines of the files, COPIES times, made in the JVM and cached before any timing.
    lines = spark.read.text(args.files).withColumnRenamed("value", "url")
    df = lines.crossJoin(spark.range(args.copies)).select("url").repartition(2).cache()
    print(f"{df.count()} rows in 2 partitions, local[2], {args.runs} runs after a warm-up")
    configurations = [("", {}), ("--profile crawler --form surt", dict(profile="crawler", form="surt"))]
    for options, kwargs in configurations:
        spark.conf.set("spark.irinorm.options", options)
        spark.udf.registerJavaFunction("irinorm_key", "org.irinorm.spark.IrinormKey", "string")
        cases = [
            ("lower(url)", F.lower("url")),
            ("try_parse_url(url, 'HOST')", F.expr("try_parse_url(url, 'HOST')")),
            ("irinorm_key(url) (Java UDF)", F.expr("irinorm_key(url)")),
            ("irinorm.spark.key_column (Python)", irinorm.spark.key_column("url", **kwargs)),
        ]
        print(f'options "{options}"')
        for name, column in cases:
            t = timed(df, column, args.runs)
            print(f"  {name:36} median {statistics.median(t):6.3f} s (min {min(t):.3f}, max {max(t):.3f})")
    spark.stop()


if __name__ == "__main__":
    main()
