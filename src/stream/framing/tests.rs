use proptest::prelude::*;

use super::*;

fn framing(format: RecordFormat, url: Option<Field>) -> Framing {
    Framing {
        format,
        url,
        key: KeyPlacement::Append,
        header: false,
        error_field: false,
    }
}

/// The URL of `record` under `f` (its layout read off `first`), or the error's kind and
/// column: the same whether the record is known to be text or not.
fn url_of(f: &Framing, first: &[u8], record: &[u8]) -> Result<String, (ErrorKind, usize)> {
    let layout = f.layout(first).expect("a layout");
    let look = |text: Option<&str>| {
        let mut scratch = Vec::new();
        match f.locate(&layout, record, text, &mut scratch) {
            Ok(at) => Ok(String::from_utf8(at.url(record, &scratch).to_vec()).unwrap()),
            Err(e) => Err((e.kind, e.column)),
        }
    };
    let as_bytes = look(None);
    if let Ok(text) = std::str::from_utf8(record) {
        assert_eq!(look(Some(text)), as_bytes, "{text:?}");
    }
    as_bytes
}

/// `record` written back with `key` under `f`.
fn written(f: &Framing, first: &[u8], record: &[u8], key: Option<&str>) -> String {
    let layout = f.layout(first).expect("a layout");
    let mut out = Vec::new();
    let keyed = Keyed {
        key,
        error: None,
        located: false,
    };
    f.write_record(&layout, record, keyed, &mut out, &mut Vec::new());
    String::from_utf8(out).unwrap()
}

#[test]
fn delimited_fields_by_number_and_by_header_name() {
    let f = framing(RecordFormat::Delimited(b'\t'), Some(Field::Index(1)));
    assert_eq!(url_of(&f, b"", b"a\thttp://x/\tc").unwrap(), "http://x/");
    assert_eq!(url_of(&f, b"", b"a\t\tc").unwrap(), "");
    // Too few fields: at the end of the record.
    assert_eq!(url_of(&f, b"", b"abc"), Err((ErrorKind::Record, 4)));
    let named = framing(
        RecordFormat::Delimited(b','),
        Some(Field::Name("url".into())),
    );
    assert!(named.reads_header());
    assert_eq!(
        url_of(&named, b"id,url", b"1,http://y/").unwrap(),
        "http://y/"
    );
    let missing = named.layout(b"id,link").unwrap_err();
    assert!(missing.contains("no field named \"url\"") && missing.contains("id, link"));
}

#[test]
fn csv_fields_are_unquoted_and_unterminated_quotes_are_errors() {
    let f = framing(RecordFormat::Csv(b','), Some(Field::Index(1)));
    assert_eq!(
        url_of(&f, b"", b"a,\"http://x/a,b\",c").unwrap(),
        "http://x/a,b"
    );
    assert_eq!(
        url_of(&f, b"", b"a,\"http://x/\"\"q\"\"\",c").unwrap(),
        "http://x/\"q\""
    );
    assert_eq!(
        url_of(&f, b"", "é,http://ü/,c".as_bytes()).unwrap(),
        "http://ü/"
    );
    // The quote opened at column 3 never closes on the line.
    assert_eq!(
        url_of(&f, b"", b"a,\"http://x/,c"),
        Err((ErrorKind::Record, 3))
    );
    assert_eq!(url_of(&f, b"", b"a"), Err((ErrorKind::Record, 2)));
    // A carriage return inside a record is data; a quote left open after the URL too is
    // a malformed record.
    assert_eq!(url_of(&f, b"", b"x\ry,http://a/,z").unwrap(), "http://a/");
    assert_eq!(
        url_of(&f, b"", b"a,http://a/,\"z"),
        Err((ErrorKind::Record, 13))
    );
    let named = framing(RecordFormat::Csv(b';'), Some(Field::Name("the url".into())));
    assert_eq!(
        url_of(&named, b"id;\"the url\"", b"1;http://z/").unwrap(),
        "http://z/"
    );
}

#[test]
fn json_members_by_path_with_escapes() {
    let f = framing(RecordFormat::JsonLines, Some(Field::Name("a.url".into())));
    assert_eq!(
        url_of(&f, b"", br#"{"a":{"url":"http://x/"}}"#).unwrap(),
        "http://x/"
    );
    assert_eq!(
        url_of(
            &f,
            b"",
            br#"{"b":[1,{"c":2}],"a":{"x":null,"url":"http:\/\/x\/\u00e9"}}"#
        )
        .unwrap(),
        "http://x/é"
    );
    assert_eq!(
        url_of(&f, b"", br#"{"a":{"url":"x\ud83d\ude00\n"}}"#).unwrap(),
        "x\u{1F600}\n"
    );
    assert_eq!(
        url_of(&f, b"", br#"{"a":{"url":"x\ud83d"}}"#).map_err(|e| e.0),
        Err(ErrorKind::Record)
    );
    // An escaped member name is the same name.
    assert_eq!(url_of(&f, b"", br#"{"\u0061":{"url":"u"}}"#).unwrap(), "u");
    // The first of two members of one name.
    assert_eq!(
        url_of(&f, b"", br#"{"a":{"url":"1","url":"2"}}"#).unwrap(),
        "1"
    );
    for bad in [
        &br#"{"a":{"url":1}}"#[..],
        br#"{"a":"x"}"#,
        br#"{"b":1}"#,
        br#"{"a":{"url":"x"}"#,
        b"[1]",
        b"",
        b"\xff",
    ] {
        assert_eq!(
            url_of(&f, b"", bad).map_err(|e| e.0),
            Err(ErrorKind::Record),
            "{bad:?}"
        );
    }
}

#[test]
fn cdx_legend_and_cdxj_block() {
    let f = framing(RecordFormat::Cdx, None);
    let record = b"com,a)/ 2020 http://a.com/ text/html 200";
    // Without a legend, the 11-field layout: `a` is the third field.
    assert_eq!(
        url_of(&f, b"com,a)/ 2020 x", record).unwrap(),
        "http://a.com/"
    );
    let legend = b" CDX a b N";
    assert!(f.layout(legend).unwrap().header);
    assert_eq!(
        url_of(&f, legend, b"http://b/ 2020 b)/").unwrap(),
        "http://b/"
    );
    let j = framing(RecordFormat::Cdxj, None);
    assert_eq!(
        url_of(&j, b"", br#"a)/ 2020 {"url": "http://a/"}"#).unwrap(),
        "http://a/"
    );
    assert_eq!(
        url_of(&j, b"", b"a)/ {}").map_err(|e| e.0),
        Err(ErrorKind::Record)
    );
}

#[test]
fn log_lines_give_the_request_target_or_the_referer() {
    let line = br#"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a?q=\"x\" HTTP/1.1" 200 5 "http://r/" "ua""#;
    let request = framing(RecordFormat::Log(LogPart::Request), None);
    assert_eq!(url_of(&request, b"", line).unwrap(), "/a?q=\"x\"");
    let referer = framing(RecordFormat::Log(LogPart::Referer), None);
    assert_eq!(url_of(&referer, b"", line).unwrap(), "http://r/");
    let escaped = br#"h - - [d] "GET /\x41b HTTP/1.1" 200 5 "-" "ua""#;
    assert_eq!(url_of(&request, b"", escaped).unwrap(), "/Ab");
    assert_eq!(
        url_of(&referer, b"", escaped).map_err(|e| e.0),
        Err(ErrorKind::Record)
    );
    assert_eq!(
        url_of(&request, b"", b"h - - [d \"GET").map_err(|e| e.0),
        Err(ErrorKind::Record)
    );
    assert_eq!(
        url_of(&request, b"", b"h - - [d] \"-\" 400").map_err(|e| e.0),
        Err(ErrorKind::Record)
    );
}

#[test]
fn keys_are_appended_or_replace_a_field() {
    let mut f = framing(RecordFormat::Csv(b','), Some(Field::Index(1)));
    assert_eq!(written(&f, b"", b"a,b", Some("k,1")), "a,b,\"k,1\"");
    assert_eq!(written(&f, b"", b"a,b", None), "a,b,");
    f.key = KeyPlacement::Replace(Field::Index(1));
    assert_eq!(written(&f, b"", b"a,\"b,c\",d", Some("k")), "a,k,d");
    let mut cdx = framing(RecordFormat::Cdx, None);
    cdx.key = KeyPlacement::Replace(Field::Name("N".into()));
    assert_eq!(
        written(&cdx, b"", b"old 2020 http://a/", Some("new")),
        "new 2020 http://a/"
    );
    let cdxj = framing(RecordFormat::Cdxj, None);
    assert_eq!(
        written(&cdxj, b"", br#"a)/ 2020 {"url": "u"}"#, Some("k")),
        r#"a)/ 2020 {"url": "u","key":"k"}"#
    );
    let mut j = framing(RecordFormat::JsonLines, Some(Field::Name("u".into())));
    assert_eq!(
        written(&j, b"", br#"{"u":"x"} "#, Some("k")),
        r#"{"u":"x","key":"k"} "#
    );
    assert_eq!(written(&j, b"", b"{ }", None), r#"{ "key":null}"#);
    j.key = KeyPlacement::Replace(Field::Name("u".into()));
    assert_eq!(
        written(&j, b"", br#"{"u":"x","v":1}"#, Some("\"k\"")),
        r#"{"u":"\"k\"","v":1}"#
    );
    j.key = KeyPlacement::Member("m".into());
    j.error_field = true;
    let mut out = Vec::new();
    let e = Error::new(ErrorKind::Syntax, 3, "bad");
    // An object whose URL was located is not parsed again: the same bytes.
    let keyed = Keyed {
        key: None,
        error: Some(&e),
        located: true,
    };
    j.write_record(
        &Layout::default(),
        br#"{"u":"x"} "#,
        keyed,
        &mut out,
        &mut Vec::new(),
    );
    let got = String::from_utf8(out).unwrap();
    assert_eq!(
        got,
        r#"{"u":"x","m":null,"error":{"kind":"syntax","column":3,"message":"bad"}} "#
    );
    // A line that is not an object is written as it is.
    assert_eq!(written(&j, b"", b"nope", Some("k")), "nope");
}

/// A field of generated records: text with delimiters, quotes and non-ASCII.
fn piece() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-z:/.,;\" é\t]{0,8}").unwrap()
}

proptest! {
    /// Record output keeps every byte of the record: the key is a field appended at the end
    /// (CSV quoted where it must be), which, taken off, gives the record back.
    #[test]
    fn appending_the_key_keeps_the_record(fields in proptest::collection::vec(piece(), 1..5), key in piece()) {
        for (format, d) in [(RecordFormat::Delimited(b'\t'), b'\t'), (RecordFormat::Csv(b','), b',')] {
            let f = framing(format, None);
            let fields: Vec<String> = fields.iter().map(|p| p.replace(char::from(d), "")).collect();
            let record = fields.join(&char::from(d).to_string());
            let key = key.replace(['\t'], "");
            let out = written(&f, b"", record.as_bytes(), Some(&key));
            let mut field = Vec::new();
            if let RecordFormat::Csv(_) = format {
                csv::push_field(key.as_bytes(), d, &mut field);
            } else {
                field.extend_from_slice(key.as_bytes());
            }
            let suffix = [&[d][..], &field].concat();
            prop_assert!(out.as_bytes().ends_with(&suffix));
            prop_assert_eq!(&out.as_bytes()[..out.len() - suffix.len()], record.as_bytes());
        }
    }

    /// A JSON object with the key added parses to the object with one more member.
    #[test]
    fn a_json_record_gains_one_member(values in proptest::collection::vec(piece(), 0..4), key in piece()) {
        let object: serde_json::Map<String, serde_json::Value> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("m{i}"), serde_json::Value::String(v.clone())))
            .collect();
        let record = serde_json::to_string(&object).unwrap();
        let f = framing(RecordFormat::JsonLines, Some(Field::Name("m0".into())));
        let out = written(&f, b"", record.as_bytes(), Some(&key));
        let mut parsed: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&out).unwrap();
        prop_assert_eq!(parsed.remove("key"), Some(serde_json::Value::String(key)));
        prop_assert_eq!(parsed, object);
        prop_assert!(out.starts_with(&record[..record.len() - 1]));
    }
}
