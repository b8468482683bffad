#!/usr/bin/env python3
"""Deduplicate URLs with PySpark: read a text file (one URL per line) or Parquet, add an
irinorm key to every row, keep one row per key, write Parquet.

    python examples/spark_dedup.py urls.txt.gz out.parquet --profile crawler
    spark-submit examples/spark_dedup.py crawl.parquet out.parquet --column url --form surt

The output has the URL column (`url` for a text input) and `key`; records whose key is null
(invalid URLs) are left out and counted. Needs `pip install ./python pyspark` (and Java);
the executors need the `irinorm` package installed too.
"""

from __future__ import annotations

import argparse
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import irinorm.spark


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a text file of URLs, one per line, or Parquet (.parquet or a folder)")
    p.add_argument("output", help="the Parquet folder to write")
    p.add_argument("--column", default="url", help="the URL column of a Parquet input (default: url)")
    p.add_argument("--level", choices=["string", "syntax", "scheme", "protocol"])
    p.add_argument("--form", choices=["uri", "iri", "surt"], default="uri")
    p.add_argument("--profile", help="a rule profile of the protocol rung, such as crawler")
    p.add_argument("--rules", help="a TOML rules file of the protocol rung")
    p.add_argument("--drop-fragment", action="store_true")
    p.add_argument("--with", dest="method", choices=["column", "map"], default="column",
                   help="key_column (an Arrow UDF) or add_keys (mapInArrow); the same keys")
    p.add_argument("--partitions", type=int, help="repartition the input first")
    p.add_argument("--master", help="the Spark master (default: as spark-submit or local[*])")
    return p.parse_args(argv)


def is_parquet(path: str) -> bool:
    return path.endswith(".parquet") or os.path.isdir(path)


def dedup(spark, args) -> dict:
    options = {k: v for k, v in dict(level=args.level, form=args.form, profile=args.profile,
                                      rules=args.rules, drop_fragment=args.drop_fragment).items()
               if v not in (None, False)}
    if is_parquet(args.input):
        column = args.column
        df = spark.read.parquet(args.input)
    else:
        # Records as the irinorm command reads them: lines end at LF, one final CR removed.
        column = "url"
        df = spark.read.option("lineSep", "\n").text(args.input)
        df = df.select(F.regexp_replace("value", "\\r\\z", "").alias(column))
    if args.partitions:
        df = df.repartition(args.partitions)
    if args.method == "map":
        keyed = irinorm.spark.add_keys(df, column, "key", **options)
    else:
        keyed = df.withColumn("key", irinorm.spark.key_column(column, **options))
    keyed = keyed.cache()
    total = keyed.count()
    invalid = keyed.where(F.col("key").isNull()).count()
    kept = keyed.where(F.col("key").isNotNull()).dropDuplicates(["key"])
    kept.write.mode("overwrite").parquet(args.output)
    written = spark.read.parquet(args.output).count()
    keyed.unpersist()
    return dict(records=total, invalid=invalid, keys=written)


def main(argv=None) -> dict:
    args = parse_args(argv)
    builder = SparkSession.builder.appName("irinorm-dedup")
    if args.master:
        builder = builder.master(args.master)
        if args.master.startswith("local"):
            # Local workers run this interpreter, which has irinorm (a cluster's executors
            # use their own, configured by spark-submit).
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    if not spark.sparkContext.master.startswith("local"):
        # Executors of a cluster run their own Python: fail now, with what to set, rather
        # than in the middle of the job (docs/python.md, "Executors").
        checked = irinorm.spark.check_executors(spark)
        print(f"executors: {', '.join(checked['pythons'])}")
    counts = dedup(spark, args)
    print(f"{counts['records']} records, {counts['invalid']} invalid, "
          f"{counts['keys']} distinct keys written to {args.output}")
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
    SparkSession.builder.getOrCreate().stop()
