"""The package as a stage of Spark, Dask, Polars and DuckDB: keys equal to the CLI's.

Spark runs in a local session (`local[2]`) at 1, 4 and 16 partitions and Arrow batches of
1, 7 and 10,000 records, through `key_column` (the Arrow UDF, and the pandas UDF that older
Spark versions get) and `add_keys` (mapInArrow); batches of one record run on the first
few thousand records, the others on every record of the corpora, the sample and the
groups. Dask, Polars and DuckDB run the recipes of `examples/` once each; the Spark and Dask
recipes also run on clusters of processes on loopback (a Spark standalone master and worker,
a Dask `LocalCluster` of worker processes).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import irinorm
from conftest import REPO, cli_keys, java_missing, mismatches, read_records

EXAMPLES = REPO / "examples"
# The rows that batches of one record run on (each batch costs Spark a round trip).
ONE_RECORD_BATCH_ROWS = 3000


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def records(all_records_file):
    return read_records(all_records_file)


@pytest.fixture(scope="module")
def table_file(tmp_path_factory, records) -> Path:
    """The records as Parquet: `line` (0-based) and `url`, with null URLs appended."""
    urls = records + [None, None]
    path = tmp_path_factory.mktemp("spark") / "records.parquet"
    pq.write_table(pa.table({"line": pa.array(range(len(urls)), pa.int64()), "url": pa.array(urls, pa.string())}), path)
    return path


@pytest.fixture(scope="module")
def spark():
    why = java_missing()
    if why:
        pytest.skip(f"Spark tests skipped: {why}")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # The workers run this interpreter, which has irinorm.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("irinorm-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_keys(spark, table_file, rows, partitions, batch, method, options):
    """(line, key) of the first `rows` records through Spark, in line order."""
    from pyspark.sql import functions as F

    import irinorm.spark

    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(batch))
    df = spark.read.parquet(str(table_file))
    if rows is not None:
        df = df.where(F.col("line") < rows)
    df = df.repartition(partitions)
    assert df.rdd.getNumPartitions() == partitions
    if method == "add_keys":
        out = irinorm.spark.add_keys(df, "url", "key", **options).select("line", "key")
    else:
        out = df.select("line", irinorm.spark.key_column("url", **options).alias("key"), batch_length("url").alias("n"))
    got = out.toPandas().sort_values("line")
    if method != "add_keys" and irinorm.spark._has_arrow_udf():
        # The batches had the size asked for (a partition may hold fewer rows than a batch).
        assert got["n"].max() <= batch
        if batch < 100:
            assert got["n"].max() == batch
    return got["line"].tolist(), got["key"].where(got["key"].notna(), None).tolist()


def batch_length(col):
    """A column of the length of the Arrow batch each row came in."""
    from pyspark.sql.functions import arrow_udf

    def length(v: pa.Array) -> pa.Array:
        return pa.array([len(v)] * len(v), pa.int64())

    return arrow_udf(length, "long")(col)


@pytest.mark.parametrize("partitions", [1, 4, 16])
@pytest.mark.parametrize("batch", [1, 7, 10000])
@pytest.mark.parametrize("method", ["key_column", "add_keys"])
def test_spark_keys_equal_the_cli(spark, cli, all_records_file, records, table_file, partitions, batch, method):
    want = cli_keys(cli, all_records_file) + [None, None]
    urls = records + [None, None]
    rows = ONE_RECORD_BATCH_ROWS if batch == 1 else None
    lines, got = spark_keys(spark, table_file, rows, partitions, batch, method, {})
    n = len(want) if rows is None else rows
    assert lines == list(range(n))
    assert got == want[:n], mismatches(got, want[:n], urls)
    if rows is None:
        assert got[-2:] == [None, None]


@pytest.mark.parametrize("options", [dict(profile="crawler", form="surt"), dict(level="syntax", form="iri")])
def test_spark_options_reach_the_workers(spark, cli, all_records_file, records, table_file, options):
    want = cli_keys(cli, all_records_file, **options) + [None, None]
    for method in ("key_column", "add_keys"):
        _, got = spark_keys(spark, table_file, None, 4, 10000, method, options)
        assert got == want, mismatches(got, want, records + [None, None])


def test_spark_pandas_udf_of_older_versions(spark, cli, all_records_file, records, table_file, monkeypatch):
    import irinorm.spark

    monkeypatch.setattr(irinorm.spark, "_has_arrow_udf", lambda: False)
    want = cli_keys(cli, all_records_file, form="iri") + [None, None]
    _, got = spark_keys(spark, table_file, None, 4, 10000, "key_column", dict(form="iri"))
    assert got == want, mismatches(got, want, records + [None, None])


def test_spark_executors_are_checked(spark):
    import irinorm.spark

    info = irinorm.spark.check_executors(spark, tasks=3)
    assert info["key_version"] == irinorm.KEY_VERSION
    assert info["pythons"] and all("Python 3." in p for p in info["pythons"])
    # An executor without the package: a RuntimeError saying so, and what to set.
    with pytest.raises(RuntimeError, match="not importable on an executor.*No module named.*PYSPARK_PYTHON"):
        irinorm.spark.check_executors(spark, tasks=2, _module="irinorm_not_installed")


def test_spark_bad_options_raise_on_the_driver(spark):
    import irinorm.spark

    df = spark.createDataFrame([("http://a/",)], "url string")
    with pytest.raises(ValueError, match="needs --rules"):
        irinorm.spark.key_column("url", level="protocol")
    with pytest.raises(ValueError, match="no column"):
        irinorm.spark.add_keys(df, "nope")
    with pytest.raises(TypeError, match="not string"):
        irinorm.spark.add_keys(spark.createDataFrame([(1,)], "n int"), "n")
    # add_keys replaces an existing key column.
    out = irinorm.spark.add_keys(df.withColumn("key", df.url), "url")
    assert out.columns == ["url", "key"]
    assert [r.key for r in out.collect()] == ["http://a/"]


def check_recipe_output(cli, input_file, rows, options, url_column="url"):
    """Every written row has the CLI's key of its URL, and every valid key is there once."""
    records = read_records(input_file)
    want = dict(zip(records, cli_keys(cli, input_file, **options)))
    keys = rows.column("key").to_pylist()
    urls = rows.column(url_column).to_pylist()
    assert len(keys) == len(set(keys)), "a key was written twice"
    assert None not in keys
    for url, key in zip(urls, keys):
        assert want[url] == key, url
    assert set(keys) == {k for k in want.values() if k is not None}
    # The input had duplicates under these options, or dropping them was not tested.
    assert len(keys) < len(records)


@pytest.fixture(scope="module")
def recipe_input(tmp_path_factory, sample_file, groups_file) -> Path:
    """The sample, the groups and some invalid records: many equivalent spellings."""
    path = tmp_path_factory.mktemp("recipes") / "urls.txt"
    path.write_bytes(sample_file.read_bytes() + groups_file.read_bytes() + b"http://[bad\n\n  \n")
    return path


def test_spark_recipe(spark, cli, recipe_input, tmp_path):
    example = load_example("spark_dedup")
    out = tmp_path / "spark_out"
    counts = example.main([str(recipe_input), str(out), "--profile", "crawler", "--partitions", "3"])
    check_recipe_output(cli, recipe_input, pq.read_table(out), dict(profile="crawler"))
    assert counts["invalid"] == 3
    # From Parquet, through add_keys.
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"link": read_records(recipe_input)}), source)
    out2 = tmp_path / "spark_out2"
    example.main([str(source), str(out2), "--column", "link", "--form", "surt", "--with", "map"])
    check_recipe_output(cli, recipe_input, pq.read_table(out2), dict(form="surt"), url_column="link")


def test_dask_recipe(cli, recipe_input, tmp_path):
    pytest.importorskip("dask.dataframe")
    example = load_example("dask_dedup")
    out = tmp_path / "dask_out"
    counts = example.main([str(recipe_input), str(out), "--profile", "crawler", "--partitions", "5"])
    check_recipe_output(cli, recipe_input, pq.read_table(out), dict(profile="crawler"))
    assert counts["invalid"] == 3
    # Small blocks, read on the workers: many partitions, the same records and keys, a BOM
    # kept where a block starts with one (only the file's first is dropped).
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + recipe_input.read_bytes() + b"\xef\xbb\xbfhttp://a.example/\r\n")
    out = tmp_path / "dask_blocks"
    counts = example.main([str(bom), str(out), "--profile", "crawler", "--blocksize", "700"])
    check_recipe_output(cli, bom, pq.read_table(out), dict(profile="crawler"))
    assert counts["records"] == len(read_records(bom))


def test_dask_recipe_on_worker_processes(cli, recipe_input, tmp_path):
    # A cluster of worker processes (distributed.LocalCluster): the text is read and keyed
    # on the workers, and the graph the client sends holds no data.
    pytest.importorskip("distributed")
    import warnings

    example = load_example("dask_dedup")
    out = tmp_path / "dask_cluster"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        counts = example.main([str(recipe_input), str(out), "--profile", "crawler",
                               "--blocksize", "4000", "--local-cluster", "2"])
    check_recipe_output(cli, recipe_input, pq.read_table(out), dict(profile="crawler"))
    assert counts["records"] == len(read_records(recipe_input))
    assert not [w for w in caught if "large graph" in str(w.message)]


def test_spark_recipe_on_a_standalone_cluster(cli, recipe_input, tmp_path):
    # A master and a worker on loopback (scripts/spark-standalone.sh), the recipe run as
    # docs/python.md says (PYSPARK_PYTHON, SPARK_LOCAL_IP, nothing else), from a driver
    # process of its own; then executors whose Python lacks irinorm: the clear message.
    why = java_missing()
    if why:
        pytest.skip(f"Spark tests skipped: {why}")
    import subprocess
    import venv

    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               PYTHON=sys.executable, SPARK_MASTER_PORT="7177")
    env.pop("PYSPARK_DRIVER_PYTHON", None)
    script = REPO / "scripts" / "spark-standalone.sh"
    state = tmp_path / "cluster"
    started = subprocess.run([str(script), "start", str(state)], env=env, capture_output=True,
                             text=True, timeout=180)
    assert started.returncode == 0, started.stderr
    master = started.stdout.strip().splitlines()[-1]
    assert master == "spark://127.0.0.1:7177"
    try:
        out = tmp_path / "spark_cluster"
        run = subprocess.run([sys.executable, str(EXAMPLES / "spark_dedup.py"), str(recipe_input),
                              str(out), "--profile", "crawler", "--master", master],
                             env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]
        assert f"executors: {sys.executable}" in run.stdout
        check_recipe_output(cli, recipe_input, pq.read_table(out), dict(profile="crawler"))
        # Executors whose Python has no irinorm (a bare venv of this Python).
        bare = tmp_path / "bare"
        venv.create(bare, with_pip=False)
        run = subprocess.run([sys.executable, str(EXAMPLES / "spark_dedup.py"), str(recipe_input),
                              str(tmp_path / "never"), "--master", master],
                             env=dict(env, PYSPARK_PYTHON=str(bare / "bin" / "python")),
                             capture_output=True, text=True, timeout=300)
        assert run.returncode != 0
        assert "RuntimeError: irinorm is not importable on an executor" in run.stderr
        assert "No module named 'irinorm'" in run.stderr and "PYSPARK_PYTHON" in run.stderr
        assert not (tmp_path / "never").exists()
    finally:
        subprocess.run([str(script), "stop", str(state)], env=env, timeout=60)


def test_polars_recipe(cli, recipe_input, tmp_path):
    pl = pytest.importorskip("polars")
    # A Series goes in as it is, through the Arrow stream interface (as string_view).
    n = irinorm.Normalizer()
    urls = ["HTTP://A.example:80/", None, "http://[x", " http://b.example/ c"]
    keys = n.normalize_arrow(pl.Series("url", urls))
    assert isinstance(keys, pa.ChunkedArray)
    assert pl.Series(keys).to_list() == n.normalize_many(urls)
    example = load_example("polars_dedup")
    source = tmp_path / "in.parquet"
    pq.write_table(pa.table({"url": read_records(recipe_input)}), source)
    out = tmp_path / "polars_out.parquet"
    counts = example.main([str(source), str(out), "--form", "iri"])
    check_recipe_output(cli, recipe_input, pq.read_table(out), dict(form="iri"))
    assert counts["invalid"] == 3


def test_duckdb_recipe(cli, recipe_input, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    example = load_example("duckdb_dedup")
    out = tmp_path / "duckdb_out.parquet"
    counts = example.main([str(recipe_input), str(out), "--profile", "crawler"])
    check_recipe_output(cli, recipe_input, pq.read_table(out), dict(profile="crawler"))
    assert counts["invalid"] == 3
    # Null URLs reach the UDF (null_handling="special") and get a null key.
    con = duckdb.connect()
    example.register(con, irinorm.Normalizer())
    rows = con.sql("SELECT irinorm_key(u) FROM (VALUES ('HTTP://A.example:80/'), (NULL), ('http://[x')) t(u)").fetchall()
    assert rows == [("http://a.example/",), (None,), (None,)]
