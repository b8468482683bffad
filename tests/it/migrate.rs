//! `irinorm migrate` end to end, on a small file whose counts are known by hand, in both
//! directions (merges one way are splits the other), in text and JSON, and the options
//! it refuses.

use super::cli::{run, stderr, stdout};

/// Nine records: at the string rung nine keys; at the scheme rung four, since records 1-3
/// (case, port), 4-6 (a dot segment, case) and 7-8 (`%7E`) merge, and record 9 is alone.
const RECORDS: &str = "http://Example.com/a\n\
                       http://example.com/a\n\
                       http://example.com:80/a\n\
                       http://example.com/a/./b\n\
                       http://example.com/a/b\n\
                       HTTP://EXAMPLE.COM/a/b\n\
                       http://example.com/%7Ex\n\
                       http://example.com/~x\n\
                       bad url with spaces\n";

fn report(from: &str, to: &str) -> serde_json::Value {
    let args = [
        "migrate",
        "--from",
        from,
        "--to",
        to,
        "--format",
        "json",
        "--threads",
        "2",
    ];
    let o = run(&args, RECORDS.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

fn rule<'a>(r: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    r["by_rule"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["rule"] == name)
        .unwrap_or_else(|| panic!("no rule {name} in {r}"))
}

#[test]
fn moving_up_the_ladder_merges_keys() {
    let r = report("--level string", "--level scheme");
    assert_eq!(r["records"], 9);
    assert_eq!(
        (r["invalid_from"].as_u64(), r["invalid_to"].as_u64()),
        (Some(0), Some(0))
    );
    // Records 1, 3, 4, 6 and 7 change key.
    assert_eq!(r["changed"], 5);
    assert_eq!(
        (r["keys_from"].as_u64(), r["keys_to"].as_u64()),
        (Some(9), Some(4))
    );
    assert_eq!(r["split_groups"], 0);
    // 3 + 3 + 2 string keys share a scheme key, in 3 scheme keys.
    assert_eq!(
        (r["merged_keys"].as_u64(), r["merged_into"].as_u64()),
        (Some(8), Some(3))
    );
    let port = rule(&r, "port:default-port");
    assert_eq!(
        (port["side"].as_str(), port["changed"].as_u64()),
        (Some("to"), Some(1))
    );
    assert_eq!(port["merged_keys"], 3);
    assert_eq!(port["examples"][0]["record"], "http://example.com:80/a");
    assert_eq!(port["examples"][0]["to"], "http://example.com/a");
    assert_eq!(rule(&r, "path:dot-segments")["changed"], 1);
    assert_eq!(rule(&r, "path:percent-encoding")["merged_keys"], 2);
}

#[test]
fn moving_down_the_ladder_splits_groups() {
    let r = report("", "--level string");
    assert_eq!(r["changed"], 5);
    assert_eq!(
        (r["keys_from"].as_u64(), r["keys_to"].as_u64()),
        (Some(4), Some(9))
    );
    // The three scheme keys of several records each split; nothing merges.
    assert_eq!(r["split_groups"], 3);
    assert_eq!(r["merged_keys"], 0);
    let port = rule(&r, "port:default-port");
    assert_eq!(
        (port["side"].as_str(), port["split_groups"].as_u64()),
        (Some("from"), Some(1))
    );
}

#[test]
fn the_same_keys_change_nothing() {
    let r = report("--form uri", "");
    assert_eq!(
        (r["changed"].as_u64(), r["split_groups"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(
        (
            r["merged_keys"].as_u64(),
            r["by_rule"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
}

#[test]
fn the_text_report_names_the_counts_and_rules() {
    let o = run(
        &["migrate", "--from", "--level string", "--to", ""],
        RECORDS.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for line in [
        "records                   9",
        "changed key               5",
        "merged keys               8",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    assert!(text.contains("port:default-port"), "{text}");
}

#[test]
fn bad_options_are_usage_errors() {
    for (from, to, says) in [
        ("--bogus", "", "--from"),
        ("", "--level nope", "--to"),
        ("--profile nope", "", "unknown profile"),
    ] {
        let o = run(&["migrate", "--from", from, "--to", to], RECORDS.as_bytes());
        assert_eq!(o.status.code(), Some(2), "{from} {to}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    let o = run(
        &["migrate", "--from", "", "--to", "", "--output", "tsv"],
        b"http://a/\n",
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn leaving_the_wayback_keys_splits_what_www_stripping_merged() {
    // surt.surt strips `www.` (and a trailing `/`); irinorm's SURT form keeps both.
    let records = "http://www.example.com/\nhttp://example.com/\nhttp://example.com/a/\n";
    let args = [
        "migrate",
        "--from",
        "--profile wayback",
        "--to",
        "--form surt",
        "--format",
        "json",
    ];
    let o = run(&args, records.as_bytes());
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (r["records"].as_u64(), r["changed"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(
        (r["keys_from"].as_u64(), r["keys_to"].as_u64()),
        (Some(2), Some(3))
    );
    assert_eq!(
        (r["split_groups"].as_u64(), r["merged_keys"].as_u64()),
        (Some(1), Some(0))
    );
    let www = rule(&r, "host:strip-www");
    assert_eq!(
        (www["side"].as_str(), www["changed"].as_u64()),
        (Some("from"), Some(1))
    );
    assert_eq!(www["split_groups"], 1);
    assert_eq!(www["examples"][0]["from"], "com,example)/");
    assert_eq!(www["examples"][0]["to"], "com,example,www)/");
    assert_eq!(rule(&r, "path:strip-trailing-slash")["changed"], 1);
    // Both sides write SURTs: writing one is no cause.
    let rules = r["by_rule"].as_array().unwrap();
    assert!(rules.iter().all(|x| x["rule"] != "record:surt"), "{r}");
}
