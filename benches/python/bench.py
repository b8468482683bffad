#!/usr/bin/env python3
"""Benchmarks of the Python package (docs/performance.md, "The Python package").

1. `normalize_arrow` at one thread: rows per CPU second over the "21 MB corpus" (every
   `../shared/corpora/*.txt` concatenated, again and again, until at least 21 MB; written
   to a temporary file at run time), in several key modes, and at 2 threads (wall time).
2. The Python canonicalizers a user might call instead, per row, on the same rows (and the
   compatibility profiles against the two peers they reproduce, `--skip compat` to omit):
   `w3lib.url.canonicalize_url`, `surt.surt` and `urlcanon.whatwg` (+ `urlcanon`'s
   "semantic" canonicalizer), each in one Python loop, against irinorm's per-row cost.
3. Spark (local): the wall time of `irinorm.spark.key_column` over the Arrow transport floor,
   an Arrow UDF that returns its input, on the same rows read from Parquet, each written to
   Spark's `noop` sink.

    benches/python/run.sh                 # makes the bench venv, then runs this
    python benches/python/bench.py --help

Times are CPU seconds of this process (`time.process_time`) for (1) and (2), the best of
`--repeat` runs, so that other work on a shared machine counts less; (3) is wall time (a
Spark job spans the JVM and its Python workers) of `--spark-repeat` alternating runs, the
best and the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

import irinorm

REPO = Path(__file__).resolve().parents[2]
TARGET_BYTES = 21 * 1000 * 1000


def corpus_file(corpora: Path, out_dir: Path) -> Path:
    files = sorted(corpora.glob("*.txt"))
    if not files:
        sys.exit(f"no corpora in {corpora}")
    parts = []
    for f in files:
        data = f.read_bytes()
        if data and not data.endswith(b"\n"):
            data += b"\n"
        parts.append(data)
    one = b"".join(parts)
    copies = -(-TARGET_BYTES // len(one))
    path = out_dir / "corpus21.txt"
    path.write_bytes(one * copies)
    return path


def read_records(path: Path) -> list:
    lines = path.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [(ln[:-1] if ln.endswith(b"\r") else ln).decode("utf-8") for ln in lines]


def best_cpu(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def best_wall(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


MODES = [
    ("scheme, uri (default)", {}, []),
    ("scheme, iri", dict(form="iri"), ["--form", "iri"]),
    ("scheme, surt", dict(form="surt"), ["--form", "surt"]),
    ("crawler profile, uri", dict(profile="crawler"), ["--profile", "crawler"]),
    ("crawler profile, surt", dict(profile="crawler", form="surt"), ["--profile", "crawler", "--form", "surt"]),
    ("wayback profile (surt.surt's keys)", dict(profile="wayback"), ["--profile", "wayback"]),
    ("w3lib profile (canonicalize_url's keys)", dict(profile="w3lib"), ["--profile", "w3lib"]),
]


def cli_cpu(cli: Path, args: list, path: Path, repeat: int) -> float:
    """The best CPU time (user + system) of `irinorm normalize --threads 1 ARGS FILE`."""
    import resource
    import subprocess

    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([str(cli), "normalize", "--threads", "1", *args, str(path)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def bench_arrow(arr: pa.Array, repeat: int, cli, path: Path) -> list:
    rows = []
    for name, options, args in MODES:
        n = irinorm.Normalizer(**options)
        n.normalize_arrow(arr.slice(0, 10000))  # warm up
        cpu = best_cpu(lambda: n.normalize_arrow(arr, threads=1), repeat)
        cli_rate = len(arr) / cli_cpu(cli, args, path, repeat) / 1e6 if cli else None
        rows.append((name, len(arr) / cpu / 1e6, cpu, cli_rate))
    return rows


def bench_threads(arr: pa.Array, repeat: int) -> list:
    n = irinorm.Normalizer()
    out = []
    for threads in (1, 2):
        wall = best_wall(lambda: n.normalize_arrow(arr, threads=threads), repeat)
        out.append((threads, len(arr) / wall / 1e6, wall))
    return out


def per_row(fn, urls: list, repeat: int) -> tuple:
    """(ns per row, failures) of calling fn on every url, in a Python loop."""
    failures = 0

    def loop():
        nonlocal failures
        failures = 0
        for u in urls:
            try:
                fn(u)
            except Exception:
                failures += 1

    cpu = best_cpu(loop, repeat)
    return cpu / len(urls) * 1e9, failures


def bench_peers(records: list, rows: int, repeat: int) -> list:
    urls = records[:rows]
    out = []
    n = irinorm.Normalizer()
    arr = pa.array(urls, pa.string())
    cpu = best_cpu(lambda: n.normalize_arrow(arr), repeat)
    out.append(("irinorm `normalize_arrow` (scheme, uri)", cpu / len(urls) * 1e9, n.normalize_arrow(arr).null_count))
    out.append(("irinorm `Normalizer.normalize`, one call per row", *per_row(n.normalize, urls, repeat)))
    for name, options in [("crawler profile", dict(profile="crawler")), ("crawler profile, surt", dict(profile="crawler", form="surt"))]:
        m = irinorm.Normalizer(**options)
        cpu = best_cpu(lambda: m.normalize_arrow(arr), repeat)
        out.append((f"irinorm `normalize_arrow` ({name})", cpu / len(urls) * 1e9, m.normalize_arrow(arr).null_count))
    try:
        from w3lib.url import canonicalize_url

        out.append(("w3lib `canonicalize_url`", *per_row(canonicalize_url, urls, repeat)))
    except ImportError:
        print("w3lib is not installed: skipped", file=sys.stderr)
    try:
        import surt

        out.append(("surt `surt.surt`", *per_row(surt.surt, urls, repeat)))
    except ImportError:
        print("surt is not installed: skipped", file=sys.stderr)
    try:
        import urlcanon

        out.append(("urlcanon `whatwg` (parse, canonicalize, str)", *per_row(lambda u: str(urlcanon.whatwg(u)), urls, repeat)))
        out.append(("urlcanon `semantic` (parse, canonicalize, str)", *per_row(lambda u: str(urlcanon.semantic(u)), urls, repeat)))
    except ImportError:
        print("urlcanon is not installed: skipped", file=sys.stderr)
    return out


def bench_compat(records: list, rows: int, repeat: int) -> list:
    """Per row, one thread: each compatibility profile's `normalize_arrow` against the
    peer whose keys it reproduces, called in a Python loop, on the same rows; with the
    rows on which the two keys agree (an exception of the peer agrees with a null key)."""
    urls = records[:rows]
    arr = pa.array(urls, pa.string())
    out = []
    peers = []
    try:
        import surt

        peers.append(("wayback", "surt `surt.surt`", surt.surt))
    except ImportError:
        print("surt is not installed: skipped", file=sys.stderr)
    try:
        from w3lib.url import canonicalize_url

        peers.append(("w3lib", "w3lib `canonicalize_url`", canonicalize_url))
    except ImportError:
        print("w3lib is not installed: skipped", file=sys.stderr)
    for profile, peer_name, peer in peers:
        n = irinorm.Normalizer(profile=profile)
        ours_ns = best_cpu(lambda: n.normalize_arrow(arr), repeat) / len(urls) * 1e9
        peer_ns, _ = per_row(peer, urls, repeat)

        def key(u):
            try:
                return peer(u)
            except Exception:
                return None

        agree = sum(a == key(u) for a, u in zip(n.normalize_arrow(arr).to_pylist(), urls))
        out.append((profile, ours_ns, peer_name, peer_ns, agree))
    return out


def bench_spark(records: list, out_dir: Path, repeat: int, master: str, batch: int) -> dict:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import arrow_udf

    import irinorm.spark

    source = out_dir / "urls.parquet"
    pq.write_table(pa.table({"url": pa.array(records, pa.string())}), source, row_group_size=50000)
    spark = (
        SparkSession.builder.master(master)
        .appName("irinorm-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch))
        .config("spark.python.worker.reuse", "true")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")

    def same(urls: pa.Array) -> pa.Array:
        return urls

    floor = arrow_udf(same, "string")
    df = spark.read.parquet(str(source)).cache()
    df.count()

    def run(column):
        df.select(column.alias("out")).write.format("noop").mode("overwrite").save()

    jobs = {
        "read only (no UDF)": lambda: run(df.url),
        "floor: Arrow UDF returning its input": lambda: run(floor("url")),
        "key_column (scheme, uri)": lambda: run(irinorm.spark.key_column("url")),
        "key_column (crawler profile)": lambda: run(irinorm.spark.key_column("url", profile="crawler")),
    }
    for job in jobs.values():  # warm up the JVM and the Python workers
        job()
    times = {name: [] for name in jobs}
    for _ in range(repeat):
        for name, job in jobs.items():
            t0 = time.perf_counter()
            job()
            times[name].append(time.perf_counter() - t0)
    partitions = df.rdd.getNumPartitions()
    spark.stop()
    return dict(
        median={k: statistics.median(v) for k, v in times.items()},
        best={k: min(v) for k, v in times.items()},
        all=times,
        partitions=partitions,
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--peer-rows", type=int, default=100000, help="rows the peers run on (they are slow)")
    p.add_argument("--spark-master", default="local[1]")
    p.add_argument("--spark-batch", type=int, default=10000)
    p.add_argument("--spark-repeat", type=int, default=5)
    p.add_argument("--spark-copies", type=int, default=4, help="Spark runs on the rows this many times over")
    p.add_argument("--cli", type=Path, default=REPO / "target" / "release" / "irinorm",
                   help="the irinorm CLI to time on the same file (skipped when absent)")
    p.add_argument("--skip", action="append", default=[], choices=["arrow", "threads", "peers", "compat", "spark"])
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="irinorm-bench-") as tmp:
        tmp = Path(tmp)
        path = corpus_file(args.corpora, tmp)
        records = read_records(path)
        arr = pa.array(records, pa.string())
        print(f"corpus: {path.stat().st_size / 1e6:.1f} MB, {len(records)} rows "
              f"(the corpora concatenated {path.stat().st_size // (sum(f.stat().st_size for f in args.corpora.glob('*.txt')))} times)")
        print(f"python {sys.version.split()[0]}, pyarrow {pa.__version__}, irinorm KEY_VERSION {irinorm.KEY_VERSION}")
        print()
        if "arrow" not in args.skip:
            cli = args.cli if args.cli.is_file() else None
            print("| key mode | `normalize_arrow`, 1 thread: M rows per CPU second | CPU s | CLI `--threads 1`: M rows per CPU second |")
            print("|---|---:|---:|---:|")
            for name, mrows, cpu, cli_rate in bench_arrow(arr, args.repeat, cli, path):
                shown = f"{cli_rate:.2f}" if cli_rate else "(no CLI)"
                print(f"| {name} | {mrows:.2f} | {cpu:.3f} | {shown} |")
            print()
        if "threads" not in args.skip:
            print("| normalize_arrow, threads | M rows per wall second | wall s |")
            print("|---|---:|---:|")
            for threads, mrows, wall in bench_threads(arr, args.repeat):
                print(f"| {threads} | {mrows:.2f} | {wall:.3f} |")
            print()
        if "peers" not in args.skip:
            rows = min(args.peer_rows, len(records))
            print(f"| per row, first {rows} rows, 1 thread | ns per row (CPU) | exceptions (irinorm: null keys) |")
            print("|---|---:|---:|")
            results = bench_peers(records, rows, args.repeat)
            base = results[0][1]
            for name, ns, failures in results:
                print(f"| {name} | {ns:,.0f} ({ns / base:.1f}x) | {failures} |")
            print()
        if "compat" not in args.skip:
            rows = min(args.peer_rows, len(records))
            print(f"| compatibility profile, first {rows} rows, 1 thread | irinorm `normalize_arrow` ns per row | peer | peer ns per row (Python loop) | speed-up | rows agreeing |")
            print("|---|---:|---|---:|---:|---:|")
            for profile, ours, peer_name, theirs, agree in bench_compat(records, rows, args.repeat):
                print(f"| `{profile}` | {ours:,.0f} | {peer_name} | {theirs:,.0f} | {theirs / ours:.0f}x | {agree}/{rows} |")
            print()
        if "spark" not in args.skip:
            spark_rows = records * args.spark_copies
            r = bench_spark(spark_rows, tmp, args.spark_repeat, args.spark_master, args.spark_batch)
            name = "floor: Arrow UDF returning its input"
            floor_best, floor_median = r["best"][name], r["median"][name]
            print(f"| Spark {args.spark_master}, {len(spark_rows)} rows, {r['partitions']} partitions, "
                  f"batches of {args.spark_batch} | best wall s | over the floor | median wall s "
                  f"| over the floor |")
            print("|---|---:|---:|---:|---:|")
            for name in r["best"]:
                b, m = r["best"][name], r["median"][name]
                print(f"| {name} | {b:.2f} | {b / floor_best:.2f}x | {m:.2f} | {m / floor_median:.2f}x |")
            print()
            print("all runs (s):", {k: [round(x, 2) for x in v] for k, v in r["all"].items()})


if __name__ == "__main__":
    main()
