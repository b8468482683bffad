"""irinorm keys as a stage of a PySpark job.

Both functions take the key options of :class:`irinorm.Normalizer` and check them on the
driver (a bad option raises ``ValueError`` there, before any task runs). The normalizer is
shipped to the executors by pickling, its rules as text, so they need no access to the
driver's files, only the ``irinorm`` package installed.

- :func:`key_column` returns a Column: an Arrow UDF (``pyspark.sql.functions.arrow_udf``,
  Spark 4.1 and later), where each Arrow batch goes straight to the native normalizer, or a
  ``pandas_udf`` on older versions.
- :func:`add_keys` appends a key column to a DataFrame with ``mapInArrow`` (Spark 3.3 and
  later), the whole record batch at a time.
- :func:`check_executors` runs a small job first, and fails with a clear message where the
  executors cannot import ``irinorm`` (the wrong Python, the package not installed) or have
  another key version than the driver.

Invalid records get a null key; nothing raises inside a task for a bad record.
"""

from typing import Any, Iterator, Optional

from . import Normalizer

__all__ = ["add_keys", "check_executors", "key_column"]


def _pyspark_version() -> tuple:
    import pyspark

    parts = []
    for piece in pyspark.__version__.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _has_arrow_udf() -> bool:
    if _pyspark_version() < (4, 1):
        return False
    try:
        from pyspark.sql.functions import arrow_udf  # noqa: F401
    except ImportError:
        return False
    return True


def key_column(col: Any, **options: Any):
    """A Column of the keys of the string column ``col`` (a name or a Column), null where
    a record is null or invalid.

    >>> df.withColumn("key", key_column("url", profile="crawler"))  # doctest: +SKIP
    """
    from pyspark.sql.types import StringType

    normalizer = Normalizer(**options)
    # The UDF kinds are told by the type hints (pyspark reads them).
    if _has_arrow_udf():
        import pyarrow as pa
        from pyspark.sql.functions import arrow_udf

        def irinorm_key(urls: pa.Array) -> pa.Array:
            return normalizer.normalize_arrow(urls)

        udf = arrow_udf(irinorm_key, StringType())
    else:
        import pandas as pd
        from pyspark.sql.functions import pandas_udf

        def irinorm_key(urls: pd.Series) -> pd.Series:
            import pyarrow as pa

            keys = normalizer.normalize_arrow(pa.array(urls, type=pa.string(), from_pandas=True))
            out = keys.to_pandas()
            out.index = urls.index
            return out

        udf = pandas_udf(irinorm_key, StringType())
    return udf(col)


def add_keys(df: Any, input_col: str, output_col: str = "key", **options: Any):
    """``df`` with a string column ``output_col`` of the keys of ``input_col`` (replaced
    when it exists), computed batch by batch with ``mapInArrow``."""
    from pyspark.sql.types import StringType, StructField, StructType

    normalizer = Normalizer(**options)
    if input_col not in df.columns:
        raise ValueError(f"no column {input_col!r} in {df.columns}")
    if not isinstance(df.schema[input_col].dataType, StringType):
        raise TypeError(
            f"column {input_col!r} is {df.schema[input_col].dataType.simpleString()}, not string"
        )
    fields = [f for f in df.schema.fields if f.name != output_col]
    schema = StructType(fields + [StructField(output_col, StringType(), True)])
    names = [f.name for f in fields]

    def with_keys(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            keys = normalizer.normalize_arrow(batch.column(input_col))
            columns = [batch.column(name) for name in names]
            yield pa.RecordBatch.from_arrays(columns + [keys], names=names + [output_col])

    return df.mapInArrow(with_keys, schema)


def check_executors(spark: Any, *, tasks: Optional[int] = None, _module: str = "irinorm") -> dict:
    """Checks, with a small job of ``tasks`` tasks (default: the default parallelism), that
    every executor's Python imports ``irinorm`` with the driver's ``KEY_VERSION`` and keys a
    record as the driver does. Returns ``{"key_version": ..., "pythons": [...]}`` (the
    executors' interpreters and versions); raises ``RuntimeError`` saying what is wrong and
    what to set otherwise (see the "Executors" section of docs/python.md).
    """
    from . import KEY_VERSION, normalize

    sample = "HTTP://Example.COM:80/a/./b"
    want = normalize(sample)

    # Defined here, so that it travels by value: the executors need not import irinorm to
    # run it, and report what they find.
    def probe(_: Any) -> Iterator[tuple]:
        import importlib
        import sys

        python = f"{sys.executable} (Python {sys.version.split()[0]})"
        try:
            module = importlib.import_module(_module)
            yield (python, module.KEY_VERSION, module.normalize(sample), None)
        except Exception as e:  # what the executor could not do, reported to the driver
            yield (python, None, None, f"{type(e).__name__}: {e}")

    sc = spark.sparkContext
    n = max(1, tasks or sc.defaultParallelism)
    fix = (
        "install the irinorm wheel on every node (scripts/build-wheel.sh) or ship a packed "
        "venv with spark.archives, and point the executors at that Python with "
        "PYSPARK_PYTHON (docs/python.md, Executors)"
    )
    try:
        rows = sc.parallelize(range(n), n).mapPartitions(probe).collect()
    except Exception as e:
        raise RuntimeError(
            f"the executors could not run a Python task ({type(e).__name__}: "
            f"{str(e).splitlines()[0] if str(e) else ''}); check PYSPARK_PYTHON and that "
            f"its Python version is the driver's; then {fix}"
        ) from e
    for python, version, key, error in rows:
        if error is not None:
            raise RuntimeError(f"irinorm is not importable on an executor ({python}: {error}): {fix}")
        if version != KEY_VERSION or key != want:
            raise RuntimeError(
                f"an executor ({python}) has irinorm with KEY_VERSION {version} (the driver: "
                f"{KEY_VERSION}), keying {sample!r} as {key!r} (the driver: {want!r}): keys "
                f"would not compare; install the driver's irinorm on every node"
            )
    return {"key_version": KEY_VERSION, "pythons": sorted({python for python, *_ in rows})}
