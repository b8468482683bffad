#!/usr/bin/env python3
"""Deduplicate URLs with Dask: read a text file (one URL per line) or Parquet, add an irinorm
key to every row with `map_partitions`, keep one row per key, write Parquet.

    python examples/dask_dedup.py urls.txt out.parquet --profile crawler --blocksize 64MB
    python examples/dask_dedup.py urls.txt out.parquet --local-cluster 4   # worker processes
    python examples/dask_dedup.py urls.txt out.parquet --scheduler tcp://10.0.0.5:8786

A text file is read where the tasks run, a block at a time (`dask.bytes.read_bytes`, blocks
cut at line feeds): the client never holds it, and the task graph holds only the blocks'
offsets. Each partition's URL column goes to the native normalizer as one Arrow array (the
GIL is released meanwhile, so Dask's threads run in parallel). Needs `pip install ./python
"dask[dataframe]" pyarrow`, and `distributed` for `--scheduler` and `--local-cluster`.
"""

from __future__ import annotations

import argparse
import os
import sys

import dask
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
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask cluster whose scheduler is at ADDRESS "
                            "(default: this process's threads)")
    where.add_argument("--local-cluster", type=int, metavar="WORKERS",
                       help="run on a cluster of WORKERS processes started on this machine")
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
    valid = df.dropna(subset=["key"])
    kept = valid.drop_duplicates(subset=["key"])
    write = kept.to_parquet(args.output, write_index=False, overwrite=True, compute=False)
    # One pass over the input: the counts and the output share the graph's keys.
    total, valid_count, _ = dask.compute(df.shape[0], valid.shape[0], write)
    written = len(dd.read_parquet(args.output))
    return dict(records=total, invalid=total - valid_count, keys=written)


def cluster_client(args):
    """A `distributed` client where the arguments ask for a cluster (it becomes the default
    scheduler until closed), else None."""
    if args.scheduler is None and args.local_cluster is None:
        return None
    from distributed import Client, LocalCluster

    if args.scheduler is not None:
        return Client(args.scheduler)
    cluster = LocalCluster(n_workers=args.local_cluster, threads_per_worker=1, processes=True)
    return Client(cluster)


def main(argv=None) -> dict:
    args = parse_args(argv)
    client = cluster_client(args)
    try:
        counts = dedup(args)
    finally:
        if client is not None:
            cluster = client.cluster
            client.close()
            if cluster is not None and args.local_cluster is not None:
                cluster.close()
    print(f"{counts['records']} records, {counts['invalid']} invalid, "
          f"{counts['keys']} distinct keys written to {args.output}")
    return counts


if __name__ == "__main__":
    main(sys.argv[1:])
