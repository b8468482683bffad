"""Keys byte-identical to the CLI's (`irinorm normalize`, same line, same options) over the
corpora, the generated groups and the sample, for every level and form and the crawler
profile; and through every entry point of the package."""

from __future__ import annotations

import itertools
import subprocess

import pyarrow as pa
import pytest

import irinorm
from conftest import FORMS, LEVELS, cli_keys, cli_records, mismatches, read_records

CASES = [dict(level=level, form=form) for level, form in itertools.product(LEVELS, FORMS)]
CASES += [dict(profile="crawler"), dict(profile="crawler", form="iri"), dict(profile="crawler", form="surt")]


def case_id(options):
    return ",".join(f"{k}={v}" for k, v in sorted(options.items()))


def check_file(cli, path, options):
    records = read_records(path)
    # Every record, a NUL in it or not: the CLI never refuses a file for its bytes.
    want = cli_keys(cli, path, **options)
    assert len(want) == len(records)
    got = irinorm.Normalizer(**options).normalize_arrow(pa.array(records, pa.string())).to_pylist()
    assert got == want, mismatches(got, want, records)
    return records, want


@pytest.mark.parametrize("options", CASES, ids=case_id)
def test_corpora(cli, corpus_files, options, tmp_path):
    for path in corpus_files:
        check_file(cli, path, options)


@pytest.mark.parametrize("options", CASES, ids=case_id)
def test_generated_groups_and_sample(cli, groups_file, sample_file, options):
    records, want = check_file(cli, groups_file, options)
    # The groups hold valid IRIs only: a null here would hide a key that was never compared.
    assert all(k is not None for k in want)
    check_file(cli, sample_file, options)


@pytest.mark.parametrize(
    "options",
    [
        dict(drop_fragment=True),
        dict(nfc=True, form="iri"),
        dict(base="http://base.example/a/b?q"),
        dict(strict=True),
        dict(absolute=True),
        dict(form="surt", surt_scheme=True),
        dict(level="syntax", drop_fragment=True, form="iri"),
    ],
    ids=case_id,
)
def test_switches_on_the_sample(cli, sample_file, options):
    check_file(cli, sample_file, options)


def test_rules_file_agrees(cli, sample_file, tmp_path):
    rules = tmp_path / "my rules.toml"
    rules.write_text(
        'version = 1\n[[rule]]\nkind = "drop-params"\nnames = ["utm_*", "id"]\n'
        '[[rule]]\nkind = "sort-params"\n[[rule]]\nkind = "trailing-slash"\npolicy = "remove"\n',
        encoding="utf-8",
    )
    records, want = check_file(cli, sample_file, dict(rules=rules))
    # The rules changed something, or this test would not tell a file that was ignored.
    plain = cli_keys(cli, sample_file)
    assert want != plain


# Records that need the lenient repairs (or are invalid), compared with the CLI one by one.
REPAIRED = [
    "  http://example.com/a b  ",
    "\thttp://example.com/\t",
    "http://example.com/100%",
    "http://example.com/%zz%4",
    "http://example.com/?p[]=1&q={x}|y^`z\\",
    'http://example.com/"quoted"<tag>',
    "HTTP://BÜCHER.example/ä?ö#ü",
    "http://[::1]:80/",
    "http://[bad/",
    "",
    "   ",
    "/relative/../path?x",
    "a\x7fb",
    "http://example.com/\u200ebidi",
    "http://xn--a.example/",
    "http://ex ample.com/",
]


@pytest.mark.parametrize("options", [dict(), dict(strict=True), dict(form="iri"), dict(profile="crawler")], ids=case_id)
def test_repairs_and_errors_agree(cli, tmp_path, options):
    path = tmp_path / "repairs.txt"
    path.write_bytes("\n".join(REPAIRED).encode("utf-8") + b"\n")
    records = read_records(path)
    assert records == REPAIRED
    want = cli_keys(cli, path, **options)
    n = irinorm.Normalizer(**options)
    assert n.normalize_arrow(pa.array(records)).to_pylist() == want
    assert n.normalize_many(records) == want
    assert [n.normalize(r) for r in records] == want
    assert [irinorm.normalize(r, **options) for r in records] == want
    # Some records were repaired (not only copied), some were errors.
    if not options.get("strict"):
        assert any(k is not None and k != r.strip() for k, r in zip(want, records))
    assert any(k is None for k in want)


def test_entry_points_agree_on_the_sample(cli, sample_file):
    records = read_records(sample_file)
    want = cli_keys(cli, sample_file, form="iri")
    n = irinorm.Normalizer(form="iri")
    assert n.normalize_many(records) == want
    assert [n.normalize(r) for r in records] == want
    assert [n.explain(r)["key"] for r in records] == want
    checked = n.check_arrow(pa.array(records)).field("key").to_pylist()
    assert checked == want


def test_equivalent_agrees_with_cli_compare(cli, groups_rows):
    # A group's first member against every other member (equivalent spellings and near
    # misses), a slice of them: each pair is one CLI process.
    firsts = {}
    pairs = []
    for group, kind, iri in groups_rows:
        if group not in firsts:
            firsts[group] = iri
        else:
            pairs.append((firsts[group], iri))
    pairs = pairs[::20]
    assert len(pairs) >= 100
    seen = set()
    for a, b in pairs:
        out = subprocess.run([str(cli), "compare", a, b], capture_output=True, text=True)
        want = out.stdout.strip()
        assert want in ("string", "syntax", "scheme", "different"), out.stderr
        assert irinorm.equivalent(a, b) == want, (a, b)
        seen.add(want)
    # The slice reaches more than one rung, or it would not test the ladder.
    assert len(seen) >= 3, seen


@pytest.mark.parametrize("options", [dict(), dict(profile="crawler", form="iri")], ids=case_id)
def test_check_arrow_agrees_with_cli_jsonl(cli, all_records_file, tmp_path, options):
    """Errors (kind, column, message) and warnings (kinds) as the CLI's JSON lines say."""
    extra = tmp_path / "extra.txt"
    extra.write_bytes("\n".join(REPAIRED + ["http://xn--a.example/", "  http://xn--a.example/ x"]).encode() + b"\n")
    for path in (all_records_file, extra):
        records = read_records(path)
        want = cli_records(cli, path, **options)
        rows = irinorm.Normalizer(**options).check_arrow(pa.array(records)).to_pylist()
        assert len(rows) == len(want)
        for record, row, obj in zip(records, rows, want):
            error = obj["error"]
            got = (row["key"], row["error_kind"], row["error_column"], row["error_message"], row["warnings"])
            expected = (
                obj["key"],
                error and error["kind"],
                error and error["column"],
                error and error["message"],
                [w["kind"] for w in obj["warnings"]],
            )
            assert got == expected, record
        assert any(obj["warnings"] for obj in want) or path != extra
