"""The compatibility profiles against the canonicalizers they reproduce, run as oracles:
``wayback`` against ``surt.surt`` (surt 0.3.1) and ``w3lib`` against
``w3lib.url.canonicalize_url`` (w3lib 2.5.0), on every line of the corpora and on a million
generated URL-shaped lines (``scripts/compat-inputs.py``), through the CLI (which gets each
record's bytes exactly) and through the Python API.

A record on which the two differ must be listed, with its reason, in
``compat_known_differences.tsv`` beside this file (and a listed record must still differ,
so that the list never goes stale). A record the peer raises on must be invalid here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pyarrow as pa
import pytest

import irinorm

from conftest import CORPORA, REPO

surt = pytest.importorskip("surt", reason="the oracle surt 0.3.1 is not installed")
w3lib_url = pytest.importorskip("w3lib.url", reason="the oracle w3lib 2.5.0 is not installed")

HERE = Path(__file__).resolve().parent
KNOWN = HERE / "compat_known_differences.tsv"
# How many generated lines: a million, unless IRINORM_COMPAT_GENERATED says otherwise.
GENERATED = int(os.environ.get("IRINORM_COMPAT_GENERATED", "1000000"))


def _surt(raw: bytes) -> str:
    try:
        return surt.surt(raw.decode("utf-8"))
    except UnicodeDecodeError:
        # surt takes bytes too; a key that is not UTF-8 (a `filedesc` record handed back as
        # it is) is kept as such, so that it differs from any key of ours.
        return surt.surt(raw).decode("utf-8", "surrogateescape")


def _w3lib(raw: bytes) -> str:
    try:
        text: object = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw
    return w3lib_url.canonicalize_url(text)


PEERS: Dict[str, Callable[[bytes], str]] = {"wayback": _surt, "w3lib": _w3lib}


def peer_key(profile: str, raw: bytes) -> Optional[str]:
    """The peer's key, or None where it raises."""
    try:
        return PEERS[profile](raw)
    except Exception:  # the peer's exception is the record's error
        return None


def records(data: bytes) -> List[bytes]:
    """The records of a file as the CLI reads them (no NUL: the engine refuses those)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = [l[:-1] if l.endswith(b"\r") else l for l in lines]
    return [l for l in out if b"\0" not in l]


def cli_keys(cli: Path, profile: str, data: bytes) -> List[Optional[str]]:
    """The CLI's key of each record of `data` (None: invalid), in order."""
    run = subprocess.run(
        [str(cli), "normalize", "--profile", profile, "--output", "jsonl", "--quiet", "--binary", "text"],
        input=data,
        capture_output=True,
        check=True,
    )
    return [json.loads(row)["key"] for row in run.stdout.splitlines()]


def known_differences() -> Dict[Tuple[str, bytes], str]:
    known = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            profile, record, reason = line.split("\t")
            known[(profile, record.encode("utf-8").decode("unicode_escape").encode("latin-1"))] = reason
    return known


def compare(cli: Path, profile: str, recs: List[bytes]) -> List[Tuple[bytes, Optional[str], Optional[str]]]:
    """The records whose keys differ: (record, ours, the peer's)."""
    data = b"".join(r + b"\n" for r in recs)
    ours = cli_keys(cli, profile, data)
    assert len(ours) == len(recs), "one row per record"
    return [
        (r, o, p) for r, o in zip(recs, ours) if o != (p := peer_key(profile, r))
    ]


def corpus_records() -> List[bytes]:
    files = sorted(CORPORA.glob("*.txt")) if CORPORA.is_dir() else []
    files += [REPO / "corpora" / "sample.txt"]
    out: List[bytes] = []
    for f in files:
        out += records(f.read_bytes())
    return out


def generated_records() -> List[bytes]:
    script = REPO / "scripts" / "compat-inputs.py"
    run = subprocess.run(
        [sys.executable, str(script), "--seed", "1", "--count", str(GENERATED)],
        capture_output=True,
        check=True,
    )
    return records(run.stdout)


def check(differences, profile: str, what: str, known) -> None:
    unexplained = [d for d in differences if (profile, d[0]) not in known]
    shown = "\n".join(f"{r!r}: ours {o!r}, peer {p!r}" for r, o, p in unexplained[:20])
    assert not unexplained, f"{len(unexplained)} {what} records differ from the peer:\n{shown}"


@pytest.mark.parametrize("profile", sorted(PEERS))
def test_the_corpora_give_the_peers_keys(cli, profile):
    recs = corpus_records()
    known = known_differences()
    differences = compare(cli, profile, recs)
    check(differences, profile, "corpus", known)
    # The documented differences are at most 0.01% of the real-URL lines.
    assert len(differences) <= len(recs) // 10_000, (len(differences), len(recs))


@pytest.mark.parametrize("profile", sorted(PEERS))
def test_generated_inputs_give_the_peers_keys(cli, profile):
    recs = generated_records()
    assert len(recs) == GENERATED
    check(compare(cli, profile, recs), profile, "generated", known_differences())


def test_every_known_difference_still_differs(cli):
    for (profile, record), reason in known_differences().items():
        (ours,) = cli_keys(cli, profile, record + b"\n")
        assert ours != peer_key(profile, record), f"{profile} {record!r} ({reason}) agrees now"


@pytest.mark.parametrize("profile", sorted(PEERS))
def test_the_python_api_gives_the_clis_keys(cli, profile):
    recs = [r.decode("utf-8") for r in corpus_records()[:20000] if r.isascii() or _is_utf8(r)]
    ours = irinorm.Normalizer(profile=profile).normalize_arrow(pa.array(recs)).to_pylist()
    data = "".join(r + "\n" for r in recs).encode("utf-8")
    assert ours == cli_keys(cli, profile, data)


def _is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
