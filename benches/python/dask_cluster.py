#!/usr/bin/env python3
"""The Dask text recipe (`examples/dask_dedup.py`) on a cluster of worker processes on this
machine (`distributed.LocalCluster(processes=True)`): what the client holds while the
workers read and key a text file.

    python benches/python/dask_cluster.py urls.txt --workers 2 --blocksize 64MB

Prints one JSON object: the records, invalid records and keys written, the wall time, the
client's peak resident memory (`ru_maxrss` of this process: the client, not the workers),
and the warnings the client gave, among them `distributed`'s "Sending large graph" should
the file's contents travel in the task graph.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import pathlib
import resource
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_recipe():
    spec = importlib.util.spec_from_file_location("dask_dedup", ROOT / "examples" / "dask_dedup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Collect(logging.Handler):
    """Keeps the warnings `distributed` logs."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a text file of URLs, one per line")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    p.add_argument("--blocksize", default="64MB", help="bytes per partition (default: 64MB)")
    p.add_argument("--profile", default="crawler", help="the key's profile (default: crawler)")
    args = p.parse_args(argv)

    recipe = load_recipe()
    logs = Collect()
    logging.getLogger("distributed").addHandler(logs)
    with tempfile.TemporaryDirectory() as out, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        counts = recipe.main([args.input, str(pathlib.Path(out) / "keys"), "--profile", args.profile,
                              "--blocksize", args.blocksize, "--local-cluster", str(args.workers)])
        wall = time.perf_counter() - start
    said = [str(w.message) for w in caught] + logs.messages
    result = dict(
        input_bytes=pathlib.Path(args.input).stat().st_size,
        workers=args.workers,
        blocksize=args.blocksize,
        **counts,
        wall_s=round(wall, 2),
        client_peak_rss_mib=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        large_graph_warnings=sum("large graph" in m for m in said),
        warnings=said[:5],
    )
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
