"""The bridge from other canonicalizers' keys: ``migration_report`` (the counts of
``irinorm migrate``, on records whose counts are known by hand)."""

from __future__ import annotations

import pyarrow as pa

import irinorm

# At the string rung nine keys; at the scheme rung four: records 1-3 (case, port), 4-6 (a
# dot segment, case) and 7-8 (`%7E`) merge, record 9 stays alone. A null is not a record.
RECORDS = [
    "http://Example.com/a",
    "http://example.com/a",
    "http://example.com:80/a",
    "http://example.com/a/./b",
    "http://example.com/a/b",
    "HTTP://EXAMPLE.COM/a/b",
    "http://example.com/%7Ex",
    "http://example.com/~x",
    "bad url with spaces",
    None,
]


def rule(report, name):
    return next(r for r in report["by_rule"] if r["rule"] == name)


def test_moving_up_the_ladder_merges_keys():
    r = irinorm.migration_report(pa.array(RECORDS), from_={"level": "string"}, to={})
    assert (r["records"], r["invalid_from"], r["invalid_to"]) == (9, 0, 0)
    assert (r["changed"], r["keys_from"], r["keys_to"]) == (5, 9, 4)
    assert (r["split_groups"], r["merged_keys"], r["merged_into"]) == (0, 8, 3)
    port = rule(r, "port:default-port")
    assert (port["side"], port["changed"], port["merged_keys"]) == ("to", 1, 3)
    assert port["examples"] == [
        {"record": "http://example.com:80/a", "from": "http://example.com:80/a", "to": "http://example.com/a"}
    ]


def test_moving_down_the_ladder_splits_groups():
    r = irinorm.migration_report(pa.array(RECORDS), from_={}, to={"level": "string"})
    assert (r["changed"], r["keys_from"], r["keys_to"]) == (5, 4, 9)
    assert (r["split_groups"], r["merged_keys"]) == (3, 0)
    assert rule(r, "port:default-port")["side"] == "from"


def test_a_stream_of_arrays_is_one_set_of_records():
    chunked = pa.chunked_array([RECORDS[:4], RECORDS[4:]])
    whole = irinorm.migration_report(pa.array(RECORDS), from_={"level": "string"})
    assert irinorm.migration_report(chunked, from_={"level": "string"}) == whole
