"""Shared fixtures: the repository's files, the CLI the keys are compared with, and the
records of the corpora.

- The CLI: ``$IRINORM_BIN``, else ``target/release/irinorm`` of the repository (built by
  ``cargo build --release --bin irinorm``; ``python/ci.sh`` does it). Tests that compare
  with it skip, saying so, when neither exists; a set ``$IRINORM_BIN`` that does not exist
  is an error.
- The corpora: ``../shared/corpora/*.txt`` beside the repository root; tests of them skip,
  saying so, when the folder is absent. ``corpora/sample.txt`` and ``corpora/groups.tsv`` of
  the repository are always there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest

import irinorm

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO.parent / "shared" / "corpora"

# The key options of the CLI's `normalize`, as keyword arguments of the Python API.
LEVELS = ("string", "syntax", "scheme")
FORMS = ("uri", "iri", "surt")


def cli_path() -> Optional[Path]:
    env = os.environ.get("IRINORM_BIN")
    if env:
        path = Path(env)
        if not path.is_file():
            raise FileNotFoundError(f"IRINORM_BIN={env} does not exist")
        return path
    path = REPO / "target" / "release" / "irinorm"
    return path if path.is_file() else None


@pytest.fixture(scope="session")
def cli() -> Path:
    path = cli_path()
    if path is None:
        pytest.skip(
            "no irinorm CLI to compare with: build it (cargo build --release --bin irinorm) "
            "or set IRINORM_BIN"
        )
    return path


def cli_args(options: Dict[str, object]) -> List[str]:
    """The command-line options of keyword options (``level="syntax"`` -> ``--level syntax``)."""
    args = []
    for name, value in sorted(options.items()):
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        else:
            args += [flag, os.fspath(value)]
    return args


def read_records(path: Path) -> List[str]:
    """The records of a file as the CLI reads them (every file used here is UTF-8)."""
    return irinorm.read_lines(path)


@lru_cache(maxsize=None)
def _cli_records(cli: Path, path: Path, args: Tuple[str, ...]) -> Tuple[dict, ...]:
    run = subprocess.run(
        [os.fspath(cli), "normalize", "--output", "jsonl", "--threads", "2", *args, os.fspath(path)],
        capture_output=True,
    )
    if run.returncode != 0:
        message = run.stderr.decode("utf-8", "replace").strip()
        raise AssertionError(f"the CLI failed ({run.returncode}): {message}")
    out = run.stdout
    records = []
    for n, line in enumerate(out.decode("utf-8").splitlines(), 1):
        obj = json.loads(line)
        assert obj["line"] == n, f"the CLI's line {obj['line']} came as line {n}"
        records.append(obj)
    return tuple(records)


def cli_records(cli: Path, path: Path, **options: object) -> List[dict]:
    """The CLI's JSON line of every line of ``path`` (``key``, ``error``, ``warnings``...)."""
    return list(_cli_records(cli, path, tuple(cli_args(options))))


def cli_keys(cli: Path, path: Path, **options: object) -> List[Optional[str]]:
    """The CLI's key of every line of ``path`` (None for an error record)."""
    return [r["key"] for r in cli_records(cli, path, **options)]


@pytest.fixture(scope="session")
def corpus_files() -> List[Path]:
    files = sorted(CORPORA.glob("*.txt")) if CORPORA.is_dir() else []
    if not files:
        pytest.skip(f"no corpora: {CORPORA} is absent (it lies beside the repository root)")
    return files


@pytest.fixture(scope="session")
def sample_file() -> Path:
    return REPO / "corpora" / "sample.txt"


@pytest.fixture(scope="session")
def groups_file(tmp_path_factory) -> Path:
    """The IRIs of ``corpora/groups.tsv`` (its third column), one per line."""
    rows = read_records(REPO / "corpora" / "groups.tsv")
    path = tmp_path_factory.mktemp("groups") / "groups_iris.txt"
    path.write_bytes(b"".join(r.split("\t", 2)[2].encode("utf-8") + b"\n" for r in rows))
    return path


@pytest.fixture(scope="session")
def groups_rows() -> List[Tuple[str, str, str]]:
    return [tuple(r.split("\t", 2)) for r in read_records(REPO / "corpora" / "groups.tsv")]


@pytest.fixture(scope="session")
def all_records_file(tmp_path_factory, sample_file, groups_file) -> Path:
    """Every record of the corpora (when present), the sample and the groups, in one file."""
    files = sorted(CORPORA.glob("*.txt")) if CORPORA.is_dir() else []
    path = tmp_path_factory.mktemp("all") / "all_records.txt"
    with open(path, "wb") as out:
        for f in [*files, sample_file, groups_file]:
            data = f.read_bytes()
            out.write(data)
            if data and not data.endswith(b"\n"):
                out.write(b"\n")
    return path


def java_missing() -> Optional[str]:
    """Why Spark cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        return "no Java runtime (java on PATH or JAVA_HOME) for Spark"
    return None


def mismatches(got: Sequence, want: Sequence, records: Sequence[str], limit: int = 10) -> str:
    """The first differing records, for a failure message."""
    lines = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            lines.append(f"line {i + 1}: {records[i]!r}: python {g!r} != cli {w!r}")
            if len(lines) >= limit:
                break
    if len(got) != len(want):
        lines.append(f"{len(got)} keys from python, {len(want)} from the cli")
    return "\n".join(lines)
