#!/usr/bin/env python3
"""Deduplicate URLs with Polars: read a text file (one URL per line) or Parquet, add an
irinorm key to every row with `map_batches`, keep one row per key, write Parquet.

    python examples/polars_dedup.py urls.txt out.parquet --profile crawler

The URL column reaches the native normalizer as Arrow, without a copy into Python objects.
Needs `pip install ./python polars pyarrow`.
"""

from __future__ import annotations

import argparse
import sys

import polars as pl

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


def key_expr(column: str, normalizer: irinorm.Normalizer) -> pl.Expr:
    """An expression of the keys of a string column (null where invalid)."""

    def keys(urls: pl.Series) -> pl.Series:
        return pl.Series("key", normalizer.normalize_arrow(urls.to_arrow()), dtype=pl.String)

    return pl.col(column).map_batches(keys, return_dtype=pl.String, is_elementwise=True).alias("key")


def dedup(args) -> dict:
    options = {k: v for k, v in dict(level=args.level, form=args.form, profile=args.profile).items()
               if v is not None}
    normalizer = irinorm.Normalizer(**options)
    if args.input.endswith(".parquet"):
        column = args.column
        df = pl.scan_parquet(args.input)
    else:
        column = "url"
        df = pl.LazyFrame({column: irinorm.read_lines(args.input)}, schema={column: pl.String})
    keyed = df.with_columns(key_expr(column, normalizer)).collect()
    kept = keyed.filter(pl.col("key").is_not_null()).unique(subset="key", keep="first", maintain_order=True)
    kept.write_parquet(args.output)
    return dict(records=keyed.height, invalid=keyed["key"].null_count(), keys=kept.height)


def main(argv=None) -> dict:
    args = parse_args(argv)
    counts = dedup(args)
    print(f"{counts['records']} records, {counts['invalid']} invalid, "
          f"{counts['keys']} distinct keys written to {args.output}")
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
