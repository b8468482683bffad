"""The package's API: options and their errors, nulls, array kinds, threads, pickling,
check_arrow, explain, equivalent, and the GIL released during a batch."""

from __future__ import annotations

import copy
import pathlib
import pickle
import subprocess
import threading
import time

import pyarrow as pa
import pytest

import irinorm
from conftest import read_records

URLS = [
    "HTTP://Example.COM:80/a/./b/../%7Ec",
    None,
    "http://[bad",
    "  http://Bücher.example/ä  ",
    "http://example.com/?utm_source=x&id=1",
    "",
]


def test_read_lines_gives_the_records_the_cli_reads(cli, tmp_path):
    # A BOM, CRLF, a bare CR inside a line, stray octets (never U+FFFD: two different
    # octets must stay two different records), an empty line, no final line feed.
    data = (
        b"\xef\xbb\xbfhttp://a/\r\n"
        b"http://a/\xff\r\n"
        b"http://a/\xfe\n"
        b"http://a/b\rc\n"
        b"\n"
        b"HTTP://A/\xc3\xa9"
    )
    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    records = irinorm.read_lines(path)
    assert records == [
        "http://a/",
        "http://a/%FF",
        "http://a/%FE",
        "http://a/b\rc",
        "",
        "HTTP://A/\u00e9",
    ]
    assert irinorm.read_lines(str(path)) == records
    out = subprocess.run(
        [str(cli), "normalize", "-q", "--output", "tsv", str(path)], capture_output=True
    )
    # The input column holds the raw octets; the key column is text.
    rows = [line.split(b"\t") for line in out.stdout.rstrip(b"\n").split(b"\n")]
    assert len(rows) == len(records)
    for record, row in zip(records, rows):
        # The CLI's key column, or empty for an invalid record.
        assert (irinorm.normalize(record) or "") == row[1].decode(), (record, row)


def test_key_version():
    assert isinstance(irinorm.KEY_VERSION, int) and irinorm.KEY_VERSION >= 1


def test_normalize_one():
    assert irinorm.normalize("HTTP://Example.COM:80/a/./b/../%7Ec") == "http://example.com/a/~c"
    assert irinorm.normalize("http://Bücher.example/", form="iri") == "http://bücher.example/"
    assert irinorm.normalize("http://[bad") is None
    assert irinorm.normalize(None) is None
    assert irinorm.normalize("http://a.example/%7e", level="string") == "http://a.example/%7e"
    with pytest.raises(TypeError):
        irinorm.normalize(b"http://a.example/")


def test_level_defaults_to_protocol_with_a_profile():
    n = irinorm.Normalizer(profile="crawler")
    assert n.normalize("http://example.com/?utm_source=x&id=1") == "http://example.com/?id=1"
    assert irinorm.Normalizer().normalize("http://example.com/?utm_source=x") == (
        "http://example.com/?utm_source=x"
    )


def cli_message(cli, *args):
    """The CLI's message for bad options: its stderr without the `irinorm: ` prefix."""
    out = subprocess.run([str(cli), "normalize", *args], input=b"", capture_output=True)
    assert out.returncode == 2, out
    text = out.stderr.decode().strip()
    assert text.startswith("irinorm: "), text
    return text[len("irinorm: "):]


@pytest.mark.parametrize(
    "options, args",
    [
        (dict(level="protocol"), ["--level", "protocol"]),
        (dict(level="scheme", profile="crawler"), ["--level", "scheme", "--profile", "crawler"]),
        (dict(profile="crawler@99"), ["--profile", "crawler@99"]),
        (dict(base="relative/base"), ["--base", "relative/base"]),
        (dict(base="http://[bad"), ["--base", "http://[bad"]),
    ],
)
def test_bad_options_raise_the_cli_message(cli, options, args):
    with pytest.raises(ValueError) as e:
        irinorm.Normalizer(**options)
    assert str(e.value) == cli_message(cli, *args)
    with pytest.raises(ValueError):
        irinorm.normalize("http://a/", **options)


def test_bad_option_names_and_types():
    for options in [dict(level="exact"), dict(form="url")]:
        with pytest.raises(ValueError, match="unknown"):
            irinorm.Normalizer(**options)
    with pytest.raises(TypeError):
        irinorm.Normalizer(levle="string")
    with pytest.raises(TypeError):
        irinorm.Normalizer(strict="yes")
    with pytest.raises(TypeError):
        irinorm.Normalizer(level=3)
    with pytest.raises(TypeError):
        irinorm.Normalizer("scheme")


def test_rules_file_path_and_errors(cli, tmp_path):
    good = tmp_path / "rules.toml"
    good.write_text('version = 1\n[[rule]]\nkind = "drop-params"\nnames = ["sid"]\n')
    for rules in (good, str(good)):
        n = irinorm.Normalizer(rules=rules)
        assert n.normalize("http://a.example/?sid=1&b=2") == "http://a.example/?b=2"
    bad = tmp_path / "bad.toml"
    bad.write_text('version = 1\n[[rule]]\nkind = "sort-params"\npolicy = "add"\n')
    with pytest.raises(ValueError) as e:
        irinorm.Normalizer(rules=bad)
    assert str(e.value) == cli_message(cli, "--rules", str(bad))
    with pytest.raises(ValueError) as e:
        irinorm.Normalizer(rules=tmp_path / "missing.toml")
    assert str(tmp_path / "missing.toml") in str(e.value)
    with pytest.raises(ValueError, match="cannot be used together"):
        irinorm.Normalizer(rules=good, profile="crawler")
    with pytest.raises(TypeError):
        irinorm.Normalizer(rules=b"version = 1")


def test_nulls_in_and_out():
    n = irinorm.Normalizer()
    out = n.normalize_arrow(pa.array(URLS))
    assert out.type == pa.string() and len(out) == len(URLS)
    assert out.to_pylist() == [
        "http://example.com/a/~c",
        None,
        None,
        "http://xn--bcher-kva.example/%C3%A4",
        "http://example.com/?utm_source=x&id=1",
        None,
    ]
    assert out.null_count == 3
    # All null, and empty.
    assert n.normalize_arrow(pa.array([None, None], pa.string())).to_pylist() == [None, None]
    assert n.normalize_arrow(pa.array([], pa.string())).to_pylist() == []
    nulls = n.normalize_arrow(pa.array([None, None]))
    assert nulls.type == pa.null() and len(nulls) == 2


@pytest.mark.parametrize("type_", [pa.string(), pa.large_string(), pa.string_view()])
def test_string_types_keep_their_type(type_):
    n = irinorm.Normalizer()
    out = n.normalize_arrow(pa.array(URLS, type_))
    assert out.type == type_
    assert out.to_pylist() == n.normalize_many(URLS)


def test_sliced_arrays():
    n = irinorm.Normalizer()
    arr = pa.array(URLS * 50)
    for offset, length in [(1, 5), (3, 200), (7, 0), (0, 300)]:
        part = arr.slice(offset, length)
        assert n.normalize_arrow(part).to_pylist() == n.normalize_many(part.to_pylist())


def test_chunked_arrays_keep_their_chunks():
    n = irinorm.Normalizer(form="iri")
    chunks = [pa.array(URLS), pa.array([], pa.string()), pa.array(URLS[::-1])]
    out = n.normalize_arrow(pa.chunked_array(chunks))
    assert isinstance(out, pa.ChunkedArray)
    assert [len(c) for c in out.chunks] == [len(c) for c in chunks]
    assert out.to_pylist() == n.normalize_many(URLS + URLS[::-1])
    empty = n.normalize_arrow(pa.chunked_array([], pa.string()))
    assert isinstance(empty, pa.ChunkedArray) and len(empty) == 0
    large = n.normalize_arrow(pa.chunked_array([pa.array(URLS, pa.large_string())]))
    assert large.type == pa.large_string()


def test_objects_with_the_capsule_interface():
    class OnlyArray:
        def __init__(self, a):
            self.a = a

        def __arrow_c_array__(self, requested_schema=None):
            return self.a.__arrow_c_array__(requested_schema)

    class OnlyStream:
        def __init__(self, a):
            self.a = a

        def __arrow_c_stream__(self, requested_schema=None):
            return self.a.__arrow_c_stream__(requested_schema)

    n = irinorm.Normalizer()
    want = n.normalize_many(URLS)
    assert n.normalize_arrow(OnlyArray(pa.array(URLS))).to_pylist() == want
    stream = n.normalize_arrow(OnlyStream(pa.chunked_array([pa.array(URLS)])))
    assert isinstance(stream, pa.ChunkedArray) and stream.to_pylist() == want


def test_wrong_arrays_raise_type_error():
    n = irinorm.Normalizer()
    # The message names the type as pyarrow does.
    with pytest.raises(TypeError, match="strings.*got int64$"):
        n.normalize_arrow(pa.array([1, 2]))
    with pytest.raises(TypeError, match="got binary$"):
        n.check_arrow(pa.array([b"http://a/"]))
    ints = pa.array([1, 1]).dictionary_encode()
    with pytest.raises(TypeError, match=r"got dictionary<values=int64, indices=int32, ordered=0>$"):
        n.normalize_arrow(ints)
    # Not Arrow at all: what is taken, and what to do instead.
    for wrong in (["http://a/"], "http://a/", 3):
        with pytest.raises(TypeError, match="Arrow PyCapsule interface.*normalize_many"):
            n.normalize_arrow(wrong)
        with pytest.raises(TypeError, match="Arrow PyCapsule interface"):
            n.check_arrow(wrong)
        with pytest.raises(TypeError, match="Arrow PyCapsule interface"):
            irinorm.migration_report(wrong, from_={}, to={"form": "surt"})
    with pytest.raises(ValueError):
        n.normalize_arrow(pa.array(["http://a/"]), threads=-1)


def test_records_of_a_piece_as_of_the_file():
    data = b"\xef\xbb\xbfhttp://a/\r\nhttp://b/\xff\n\n\xef\xbb\xbfhttp://c/\n"
    whole = irinorm.read_records(data)
    assert whole == ["http://a/", "http://b/%FF", "", "\ufeffhttp://c/"]
    # Cut at a line feed: the pieces give the whole's records, a BOM kept past the start.
    cut = data.index(b"\n\xef") + 1
    pieces = irinorm.read_records(data[:cut]) + irinorm.read_records(data[cut:], start=False)
    assert pieces == whole
    assert irinorm.read_records(data[cut:]) == ["http://c/"]
    with pytest.raises(TypeError):
        irinorm.read_records("http://a/")


def test_dictionary_arrays_give_the_keys_of_their_values(sample_file):
    records = read_records(sample_file)[:100] + [None]
    plain = pa.array(records * 3)
    for index_type in (pa.int8(), pa.int32(), pa.int64()):
        encoded = plain.dictionary_encode()
        encoded = pa.DictionaryArray.from_arrays(encoded.indices.cast(index_type), encoded.dictionary)
        for options in ({}, {"form": "surt"}, {"profile": "wayback"}):
            n = irinorm.Normalizer(**options)
            keys = n.normalize_arrow(encoded)
            assert keys.type == encoded.type
            # The same keys as the decoded array, each distinct value keyed once.
            assert keys.to_pylist() == n.normalize_arrow(plain).to_pylist()
            assert len(keys.dictionary) == len(encoded.dictionary)
            assert n.check_arrow(encoded).to_pylist() == n.check_arrow(plain).to_pylist()
            chunked = pa.chunked_array([encoded, encoded[:5]])
            assert n.normalize_arrow(chunked).to_pylist() == n.normalize_arrow(
                pa.chunked_array([plain, plain[:5]])
            ).to_pylist()
    report = irinorm.migration_report(plain.dictionary_encode(), from_={}, to={"form": "surt"})
    assert report == irinorm.migration_report(plain, from_={}, to={"form": "surt"})


def test_threads_give_the_same_result(sample_file):
    records = read_records(sample_file)
    arr = pa.array(records * 8 + [None] * 5)
    for options in [dict(), dict(form="iri"), dict(profile="crawler", form="surt")]:
        n = irinorm.Normalizer(**options)
        one = n.normalize_arrow(arr, threads=1)
        for threads in (2, 3, 0):
            assert n.normalize_arrow(arr, threads=threads).equals(one)
        view = pa.array(arr.to_pylist(), pa.string_view())
        assert n.normalize_arrow(view, threads=2).to_pylist() == one.to_pylist()
        chunked = pa.chunked_array([arr.slice(0, 10000), arr.slice(10000)])
        assert n.normalize_arrow(chunked, threads=2).to_pylist() == one.to_pylist()


def test_pickling_rebuilds_an_equal_normalizer(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('version = 1\n[[rule]]\nkind = "drop-params"\nnames = ["sid"]\n')
    for n in [
        irinorm.Normalizer(),
        irinorm.Normalizer(level="syntax", form="iri", drop_fragment=True, nfc=True),
        irinorm.Normalizer(profile="crawler@1", form="surt", surt_scheme=True),
        irinorm.Normalizer(base="http://base.example/x/", strict=True, absolute=True),
        irinorm.Normalizer(rules=rules),
    ]:
        for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
            m = pickle.loads(pickle.dumps(n, protocol))
            assert m == n and m.options == n.options
            assert m.normalize_many(URLS) == n.normalize_many(URLS)
        assert copy.deepcopy(n) == n
    # The rules travel as text: the file is not needed to unpickle.
    n = irinorm.Normalizer(rules=rules)
    data = pickle.dumps(n)
    rules.unlink()
    m = pickle.loads(data)
    assert m.normalize("http://a.example/?sid=1&b=2") == "http://a.example/?b=2"
    assert "rules.toml" in repr(m)


def test_check_arrow():
    n = irinorm.Normalizer()
    urls = ["http://a.example/", "http://[bad", None, "  http://xn--a.example/ x", ""]
    out = n.check_arrow(pa.array(urls))
    assert out.type.names == ["key", "error_kind", "error_column", "error_message", "warnings"]
    rows = out.to_pylist()
    assert rows[0] == dict(key="http://a.example/", error_kind=None, error_column=None, error_message=None, warnings=[])
    assert rows[1]["key"] is None and rows[1]["error_kind"] == "syntax" and rows[1]["error_column"] == 8
    assert rows[1]["error_message"]
    assert rows[2] == dict(key=None, error_kind=None, error_column=None, error_message=None, warnings=None)
    # A host that fails IDNA keeps its syntax form and warns; the column points into the raw
    # record (two leading spaces trimmed).
    assert rows[3]["key"] == "http://xn--a.example/%20x" and rows[3]["warnings"] == ["idna"]
    assert rows[4]["error_kind"] == "empty"
    assert [r["key"] for r in rows] == n.normalize_many(urls)
    chunked = n.check_arrow(pa.chunked_array([pa.array(urls[:2]), pa.array(urls[2:])]))
    assert isinstance(chunked, pa.ChunkedArray) and chunked.to_pylist() == rows
    large = n.check_arrow(pa.array(urls, pa.large_string()))
    assert large.type.field("key").type == pa.large_string()


def test_a_nul_is_an_invalid_record_never_a_cut_key():
    n = irinorm.Normalizer()
    # A NUL anywhere: an invalid record of the kind "nul", at its first NUL (1-based), in
    # every entry point; the records around it are as without it.
    urls = ["http://a.example/", "http://a.example/\0b", "\0" * 4096 + "http://b.example/", "http://c.example/\0"]
    assert irinorm.normalize(urls[1]) is None and n.normalize(urls[2]) is None
    assert n.normalize_many(urls) == ["http://a.example/", None, None, None]
    assert n.normalize_arrow(pa.array(urls)).to_pylist() == ["http://a.example/", None, None, None]
    rows = n.check_arrow(pa.array(urls)).to_pylist()
    assert [(r["error_kind"], r["error_column"]) for r in rows] == [(None, None), ("nul", 18), ("nul", 1), ("nul", 18)]
    assert n.explain(urls[1])["error"]["kind"] == "nul"


def test_explain():
    n = irinorm.Normalizer()
    e = n.explain(" HTTP://Example.com:80/%7e")
    assert e["key"] == "http://example.com/~" and e["error"] is None
    rules = {(s["component"], s["rule"]) for s in e["steps"]}
    assert ("scheme", "case") in rules
    assert any(s["component"] == "path" for s in e["steps"])
    for s in e["steps"]:
        assert s["before"] != s["after"]
    bad = n.explain("http://[bad")
    assert bad["key"] is None and bad["error"]["kind"] == "syntax" and bad["steps"] == []
    warned = n.explain("http://xn--a.example/")
    assert [w["kind"] for w in warned["warnings"]] == ["idna"]


def test_equivalent():
    assert irinorm.equivalent("http://a.example/b", "http://a.example/b") == "string"
    assert irinorm.equivalent("http://a.example/%7e", "HTTP://a.example/%7E") == "syntax"
    assert irinorm.equivalent("http://a.example:80/", "http://a.example") == "scheme"
    assert irinorm.equivalent("http://a.example/?utm_source=x", "http://a.example/") == "different"
    assert (
        irinorm.equivalent("http://a.example/?utm_source=x", "http://a.example/?", profile="crawler")
        == "protocol"
    )
    assert irinorm.equivalent("http://a.example/#x", "http://a.example/", drop_fragment=True) == "string"
    assert irinorm.equivalent("http://a.example:80/", "http://a.example", level="syntax") == "different"
    with pytest.raises(ValueError, match="^b: syntax"):
        irinorm.equivalent("http://a/", "http://[bad")
    with pytest.raises(TypeError):
        irinorm.equivalent("http://a/", "http://a/", colour="red")


def test_gil_is_released_during_a_batch(sample_file):
    records = read_records(sample_file)
    arr = pa.array(records * 200)
    n = irinorm.Normalizer()
    span = {}
    ticks = []

    def batch():
        span["start"] = time.perf_counter()
        n.normalize_arrow(arr)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=batch)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    worker.join()
    start, end = span["start"], span["end"]
    assert end - start > 0.05, "the batch is too short to tell"
    # This thread ran in the middle of the batch: it held no GIL then.
    middle = [t for t in ticks if start + 0.25 * (end - start) < t < start + 0.75 * (end - start)]
    assert len(middle) >= 3, (len(middle), end - start)


def test_typing_files_are_installed():
    package = pathlib.Path(irinorm.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "__init__.pyi").is_file()
