//! The compatibility profiles end to end: the same keys in every output mode and through the
//! library, `--explain` naming the peer's steps, a refusal as an invalid record with the
//! peer's reason, and every other key option refused by name. (Their keys against the
//! peers themselves: `python/tests/test_compat_oracles.py`; pinned: `golden::compatibility_profiles`.)

use super::cli::{run, stderr, stdout};

const RECORDS: &str = "http://www.Example.com:80/Path/?b=2&a=1#frag\n\
                       HTTPS://www2.example.com/a%2Fb/./c?utm_source=x&id=7\n\
                       http://a:99999/\n\
                       \n\
                       example.com/x\n";

/// (profile, the keys of RECORDS, None where the peer raises).
const KEYS: [(&str, [Option<&str>; 5]); 2] = [
    (
        "wayback",
        [
            Some("com,example)/path?a=1&b=2"),
            Some("com,example)/a/b/c?id=7&utm_source=x"),
            None,
            Some("-"),
            Some("com,example)/x"),
        ],
    ),
    (
        "w3lib",
        [
            Some("http://www.example.com:80/Path/?a=1&b=2"),
            Some("https://www2.example.com/a%2Fb/c?id=7&utm_source=x"),
            None,
            // canonicalize_url("") is "/".
            Some("/"),
            Some("example.com/x"),
        ],
    ),
];

#[test]
fn every_output_mode_gives_the_profiles_keys() {
    for (profile, keys) in KEYS {
        let o = run(
            &["normalize", "--profile", profile, "--output", "jsonl"],
            RECORDS.as_bytes(),
        );
        let rows: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got: Vec<Option<&str>> = rows.iter().map(|r| r["key"].as_str()).collect();
        assert_eq!(got, keys, "{profile} jsonl");
        assert_eq!(rows[2]["error"]["kind"], "syntax", "{profile}");
        let message = rows[2]["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("ValueError: Port"),
            "{profile}: {message}"
        );

        let o = run(
            &["normalize", "--profile", profile, "--output", "tsv"],
            RECORDS.as_bytes(),
        );
        let tsv: Vec<String> = stdout(&o)
            .lines()
            .map(|l| l.split('\t').nth(1).unwrap().to_owned())
            .collect();
        let want: Vec<String> = keys.iter().map(|k| k.unwrap_or("").to_owned()).collect();
        assert_eq!(tsv, want, "{profile} tsv");

        let o = run(
            &["normalize", "--profile", profile, "-q"],
            RECORDS.as_bytes(),
        );
        assert_eq!(
            stdout(&o).lines().collect::<Vec<_>>(),
            want,
            "{profile} key"
        );
        let o = run(
            &[
                "normalize",
                "--profile",
                profile,
                "--threads",
                "2",
                "--chunk-size",
                "7",
            ],
            RECORDS.as_bytes(),
        );
        assert_eq!(
            stdout(&o).lines().collect::<Vec<_>>(),
            want,
            "{profile} small chunks"
        );
        assert!(
            stderr(&o).contains(":3:"),
            "{profile}: the refusal is reported at line 3"
        );
    }
}

/// A profile keys any line in its runs, not only printable ones: in rows, each record and
/// key is escaped as the format says (a `\\`, a `"`, a tab, a control, non-ASCII), in the
/// runs of lines as line by line.
#[test]
fn rows_escape_the_records_a_profile_keys() {
    let records = [
        "http://a/\\'",
        "http://a/\"q\"",
        "http://a/b\tc",
        "http://a/\u{1}x",
        "http://a/\u{e9}?q=\u{e9}",
        "http://a/x#\\",
    ];
    let input: String = records.iter().map(|r| format!("{r}\n")).collect();
    for profile in ["wayback", "w3lib"] {
        let o = run(
            &["normalize", "--profile", profile, "--output", "jsonl"],
            input.as_bytes(),
        );
        let rows: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{profile}: {l}: {e}")))
            .collect();
        let inputs: Vec<&str> = rows.iter().map(|r| r["input"].as_str().unwrap()).collect();
        assert_eq!(inputs, records, "{profile} jsonl");
        let keys = run(&["normalize", "--profile", profile, "-q"], input.as_bytes());
        let keys = stdout(&keys);
        let keys: Vec<&str> = keys.lines().collect();
        let json_keys: Vec<&str> = rows.iter().map(|r| r["key"].as_str().unwrap()).collect();
        assert_eq!(json_keys, keys, "{profile}: the keys of jsonl rows");
        let o = run(
            &["normalize", "--profile", profile, "--output", "tsv"],
            input.as_bytes(),
        );
        let tsv = stdout(&o);
        let first: Vec<&str> = tsv.lines().map(|l| l.split('\t').next().unwrap()).collect();
        assert_eq!(
            first[0], "http://a/\\\\'",
            "{profile}: a backslash is escaped"
        );
        assert_eq!(first[2], "http://a/b\\tc", "{profile}: a tab is escaped");
        assert_eq!(tsv.lines().count(), records.len(), "{profile} tsv");
    }
}

#[test]
fn the_library_gives_the_command_lines_keys() {
    use irinorm::{Normalizer, Settings};
    for (profile, keys) in KEYS {
        let n = Normalizer::from_settings(&Settings::default().with_profile(Some(profile.into())))
            .unwrap();
        for (record, want) in RECORDS.lines().zip(keys) {
            assert_eq!(
                n.normalize(record).ok().as_deref(),
                want,
                "{profile} {record:?}"
            );
        }
    }
}

#[test]
fn explain_names_the_peers_steps() {
    let o = run(
        &["normalize", "--profile", "wayback", "--explain"],
        RECORDS.lines().next().unwrap().as_bytes(),
    );
    let text = stdout(&o);
    for step in [
        "strip-www",
        "default-port",
        "sort-params",
        "strip-trailing-slash",
    ] {
        assert!(text.contains(step), "{step} in\n{text}");
    }
    let o = run(
        &["normalize", "--profile", "w3lib", "--explain"],
        RECORDS.lines().next().unwrap().as_bytes(),
    );
    let text = stdout(&o);
    assert!(
        text.contains("sort-params") && text.contains("fragment"),
        "{text}"
    );
}

#[test]
fn other_key_options_are_refused_by_name() {
    for (args, says) in [
        (
            &["--profile", "wayback", "--form", "uri"][..],
            "another --form",
        ),
        (&["--profile", "w3lib", "--nfc"][..], "--nfc does not apply"),
        (
            &["--profile", "w3lib", "--level", "scheme"][..],
            "apply only at --level protocol",
        ),
        (&["--profile", "wayback@2"][..], "unknown profile"),
    ] {
        let mut all = vec!["normalize"];
        all.extend_from_slice(args);
        let o = run(&all, b"http://a/\n");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = run(
        &[
            "normalize",
            "--profile",
            "wayback@1",
            "--form",
            "surt",
            "--level",
            "protocol",
        ],
        b"http://www.a.com/\n",
    );
    assert_eq!(stdout(&o), "com,a)/\n");
}
