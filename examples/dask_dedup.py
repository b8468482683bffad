#!/usr/bin/env python3
"""Deduplicate URLs with Dask: read a text file (one URL per line) or Parquet, add an irinorm
key to every row with `map_partitions`, keep one row per key, write Parquet.

    python examples/dask_dedup.py urls.txt out.parquet --profile crawler --partitions 8

Each partition's URL column goes to the native normalizer as one Arrow array (the GIL is
released meanwhile, so Dask's threads run in parallel). Needs `pip install ./python
"dask[dataframe]" pyarrow`.
"""

from __future__ import annotations

import argparse
import os
import sys

import dask.dataframe as dd
import pandas as pd
import pyarrow as pa

import irinorm


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a text file of URLs, one per line, or Parquet (.parquet or a folder)")
    p.add_argument("output", help="the Parquet folder to write")
    p.add_argument("--column", default="url", help="the URL column of a Parquet input (default: url)")
    p.add_argument("--level", choices=["string", "syntax", "scheme", "protocol"])
    p.add_argument("--form", choices=["uri", "iri", "surt"], default="uri")
    p.add_argument("--profile", help="a rule profile of the protocol rung, such as crawler")
    p.add_argument("--partitions", type=int, default=4, help="partitions of a text input")
    return p.parse_args(argv)


def keys_of(urls: pd.Series, normalizer: irinorm.Normalizer) -> pd.Series:
    """The keys of one partition's URLs (None where invalid), with the partition's index."""
    keys = normalizer.normalize_arrow(pa.array(urls, type=pa.string(), from_pandas=True))
    return pd.Series(keys.to_pylist(), index=urls.index, name="key", dtype="string")


def dedup(args) -> dict:
    options = {k: v for k, v in dict(level=args.level, form=args.form, profile=args.profile).items()
               if v is not None}
    normalizer = irinorm.Normalizer(**options)
    if args.input.endswith(".parquet") or os.path.isdir(args.input):
        column = args.column
        df = dd.read_parquet(args.input)
    else:
        column = "url"
        df = dd.from_pandas(pd.DataFrame({column: irinorm.read_lines(args.input)}), npartitions=args.partitions)
    df = df.assign(key=df[column].map_partitions(keys_of, normalizer, meta=("key", "string")))
    total = len(df)
    valid = df.dropna(subset=["key"])
    kept = valid.drop_duplicates(subset=["key"])
    kept.to_parquet(args.output, write_index=False, overwrite=True)
    written = len(dd.read_parquet(args.output))
    return dict(records=total, invalid=total - len(valid), keys=written)


def main(argv=None) -> dict:
    args = parse_args(argv)
    counts = dedup(args)
    print(f"{counts['records']} records, {counts['invalid']} invalid, "
          f"{counts['keys']} distinct keys written to {args.output}")
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
