#!/usr/bin/env python3
"""Deduplicate URLs with DuckDB: an Arrow UDF `irinorm_key(VARCHAR) -> VARCHAR` over a text
file (one URL per line) or Parquet, one row kept per key, written as Parquet.

    python examples/duckdb_dedup.py urls.txt out.parquet --profile crawler

The UDF is registered with `type="arrow"`, so DuckDB hands it whole vectors as Arrow arrays,
and `null_handling="special"`, so null URLs reach it (and get a null key) instead of being
filtered around it. Needs `pip install ./python duckdb pyarrow`.
"""

from __future__ import annotations

import argparse
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import irinorm


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a text file of URLs, one per line, or a .parquet file")
    p.add_argument("output", help="the Parquet file to write")
    p.add_argument("--column", default="url", help="the URL column of a Parquet input (default: url)")
    p.add_argument("--level", choices=["string", "syntax", "scheme", "protocol"])
    p.add_argument("--form", choices=["uri", "iri", "surt"], default="uri")
    p.add_argument("--profile", help="a rule profile of the protocol rung, such as crawler")
    return p.parse_args(argv)


def register(con: duckdb.DuckDBPyConnection, normalizer: irinorm.Normalizer, name: str = "irinorm_key") -> None:
    """Registers `name(VARCHAR) -> VARCHAR` on the connection."""

    def irinorm_key(urls):
        return normalizer.normalize_arrow(urls)

    con.create_function(name, irinorm_key, ["VARCHAR"], "VARCHAR", type="arrow",
                        null_handling="special", side_effects=False)


def dedup(args) -> dict:
    options = {k: v for k, v in dict(level=args.level, form=args.form, profile=args.profile).items()
               if v is not None}
    normalizer = irinorm.Normalizer(**options)
    con = duckdb.connect()
    register(con, normalizer)
    if args.input.endswith(".parquet"):
        urls = pq.read_table(args.input, columns=[args.column]).rename_columns(["url"])
    else:
        urls = pa.table({"url": pa.array(irinorm.read_lines(args.input), pa.string())})
    con.register("urls", urls)
    con.sql("CREATE TEMP TABLE keyed AS SELECT url, irinorm_key(url) AS key FROM urls")
    total, invalid = con.sql("SELECT count(*), count(*) - count(key) FROM keyed").fetchall()[0]
    result = con.sql("SELECT DISTINCT ON (key) url, key FROM keyed WHERE key IS NOT NULL ORDER BY key")
    # DuckDB 2 names it to_arrow_table, DuckDB 1 fetch_arrow_table.
    kept = (getattr(result, "to_arrow_table", None) or result.fetch_arrow_table)()
    pq.write_table(kept, args.output)
    return dict(records=total, invalid=invalid, keys=kept.num_rows)


def main(argv=None) -> dict:
    args = parse_args(argv)
    counts = dedup(args)
    print(f"{counts['records']} records, {counts['invalid']} invalid, "
          f"{counts['keys']} distinct keys written to {args.output}")
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
