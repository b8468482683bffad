#!/usr/bin/env python3
"""Deduplicate URLs with Dask: read a text file (one URL per line) or Parquet, add an irinorm
key to every row with `map_partitions`, keep one row per key, write Parquet.

    python examples/dask_dedup.py urls.txt out.parquet --profile crawler --blocksize 64MB

A text file is read where the tasks run, a block at a time (`dask.bytes.read_bytes`, blocks
cut at line feeds): the client never holds it, and the task graph holds only the blocks'
offsets. Each partition's URL column goes to the native normalizer as one Arrow array (the
GIL is released meanwhile, so Dask's threads run in parallel). Needs `pip install ./python
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
    p.add_argument("--blocksize", default="64MB",
                   help="bytes of a text input per partition (default: 64MB)")
    p.add_argument("--partitions", type=int,
                   help="partitions of a text input instead (its size divided evenly)")
    return p.parse_args(argv)


def text_partitions(path: str, column: str, blocksize) -> dd.DataFrame:
    """The records of a text file as a DataFrame of one string column, a partition per block
    of about `blocksize` bytes, each read and split on the worker that runs it."""
    from dask import delayed
    from dask.bytes import read_bytes

    _, (blocks,) = read_bytes(path, delimiter=b"\n", blocksize=blocksize, sample=False)

    def frame(data: bytes, start: bool) -> pd.DataFrame:
        # The records as irinorm reads them; a block that does not start the file keeps a
        # byte order mark at its start (only the file's first is dropped).
        return pd.DataFrame({column: pd.Series(irinorm.read_records(data, start=start), dtype=object)})

    parts = [delayed(frame)(block, k == 0) for k, block in enumerate(blocks)]
    meta = pd.DataFrame({column: pd.Series([], dtype=object)})
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


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
        blocksize = args.blocksize
        if args.partitions:
            blocksize = max(1, -(-os.path.getsize(args.input) // args.partitions))
        df = text_partitions(args.input, column, blocksize)
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
