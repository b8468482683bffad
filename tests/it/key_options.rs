//! The library's table of key options (`KEY_OPTIONS`) is what every other declaration of
//! them says: the fields of `Settings` and `Options` and their defaults, the names a
//! `Settings` takes them by, the native Python signature (`python/src/lib.rs`) and the
//! Python stub (`python/irinorm/__init__.pyi`). The command line's arguments are held to it
//! by the tests of `src/cli/args.rs`; the Python runtime by `python/tests/test_key_options.py`.

use irinorm::internals::{KeyOption, OptionKind, FORM_NAMES, KEY_OPTIONS, LEVEL_NAMES};
use irinorm::{Form, Level, Options, Settings};

use crate::common::repo;

/// The field names of a struct's `Debug` text: `Name { a: .., b: .. }` → `[a, b]`.
fn debug_fields(debug: &str) -> Vec<String> {
    let body = &debug[debug.find('{').unwrap() + 1..];
    let mut fields = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0
                && body[start..i]
                    .trim()
                    .chars()
                    .all(|c| c == '_' || c.is_ascii_lowercase()) =>
            {
                fields.push(
                    body[start..i]
                        .trim()
                        .trim_start_matches(',')
                        .trim()
                        .to_owned(),
                );
            }
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    fields
}

fn table_fields() -> Vec<String> {
    KEY_OPTIONS.iter().map(|o| o.field.to_owned()).collect()
}

#[test]
fn settings_have_the_tables_fields_in_its_order() {
    assert_eq!(
        debug_fields(&format!("{:?}", Settings::default())),
        table_fields()
    );
}

#[test]
fn options_have_the_tables_fields_but_the_profile() {
    let mut fields = debug_fields(&format!("{:?}", Options::default()));
    // A profile is rules, or a compatibility profile, in typed options.
    let mut want: Vec<String> = table_fields()
        .into_iter()
        .filter(|f| f != "profile")
        .chain(["compat".to_owned()])
        .collect();
    fields.sort();
    want.sort();
    assert_eq!(
        fields, want,
        "a profile is rules or compat in typed options"
    );
}

#[test]
fn the_defaults_are_the_tables() {
    let mut s = Settings::default();
    for o in KEY_OPTIONS {
        match o.kind {
            OptionKind::Flag => assert_eq!(o.default, None, "a flag is off: {}", o.field),
            OptionKind::File => assert_eq!(o.default, None, "{}", o.field),
            _ => s.set_text(o.field, o.default.map(str::to_owned)).unwrap(),
        }
    }
    // The defaults the table shows are what `Settings` leaves unset means.
    assert_eq!(s.to_options(), Settings::default().to_options());
    assert_eq!(
        Settings::default().to_options().unwrap(),
        Options::default()
    );
}

#[test]
fn every_option_is_set_by_its_name_and_kind() {
    for o in KEY_OPTIONS {
        let mut s = Settings::default();
        let (flag, text) = (s.set_flag(o.field, true), s.set_text(o.field, None));
        match o.kind {
            OptionKind::Flag => assert!(flag.is_ok() && text.is_err(), "{}", o.field),
            OptionKind::File => assert!(flag.is_err() && text.is_err(), "{}", o.field),
            _ => assert!(flag.is_err() && text.is_ok(), "{}", o.field),
        }
    }
    let on = Settings::default().set_flag("surt_scheme", true);
    assert!(on.is_ok());
}

#[test]
fn the_choices_are_the_levels_and_forms() {
    let levels: Vec<_> = LEVEL_NAMES
        .iter()
        .map(|n| Level::from_name(n).unwrap())
        .collect();
    assert_eq!(
        levels,
        [Level::String, Level::Syntax, Level::Scheme, Level::Protocol]
    );
    let forms: Vec<_> = FORM_NAMES
        .iter()
        .map(|n| Form::from_name(n).unwrap())
        .collect();
    assert_eq!(forms, [Form::Uri, Form::Iri, Form::Surt]);
    assert_eq!(
        KeyOption::named("level").kind,
        OptionKind::Choice(LEVEL_NAMES)
    );
    assert_eq!(
        KeyOption::named("form").kind,
        OptionKind::Choice(FORM_NAMES)
    );
}

/// The `name=default` pairs of the `#[pyo3(signature = (*, ...))]` of the native
/// normalizer's constructor.
fn native_signature() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo().join("python/src/lib.rs")).unwrap();
    let at = text
        .find("#[pyo3(signature = (*,")
        .expect("the constructor's signature");
    let rest = &text[at + "#[pyo3(signature = (*,".len()..];
    let list = &rest[..rest.find("))]").unwrap()];
    list.split(',')
        .map(|p| {
            let (name, default) = p.split_once('=').expect("name=default");
            (name.trim().to_owned(), default.trim().to_owned())
        })
        .collect()
}

#[test]
fn the_native_python_signature_is_the_tables() {
    let mut want = Vec::new();
    for o in KEY_OPTIONS {
        match o.kind {
            // The Python package reads the file; the native part takes its name and text.
            OptionKind::File => {
                want.push((format!("{}_origin", o.field), "None".to_owned()));
                want.push((format!("{}_text", o.field), "None".to_owned()));
            }
            OptionKind::Flag => want.push((o.field.to_owned(), "false".to_owned())),
            // `Settings`' unset, which is the table's default (`the_defaults_are_the_tables`).
            _ => want.push((o.field.to_owned(), "None".to_owned())),
        }
    }
    assert_eq!(native_signature(), want);
}

/// The text of the stub between `start` and the next line that starts with `end`.
fn stub_block<'a>(stub: &'a str, start: &str, end: &str) -> &'a str {
    let at = stub
        .find(start)
        .unwrap_or_else(|| panic!("{start} in the stub"));
    let rest = &stub[at + start.len()..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// The quoted names of a `Literal[...]` alias of the stub.
fn stub_literal(stub: &str, alias: &str) -> Vec<String> {
    let line = stub_block(stub, &format!("{alias} = Literal["), "]");
    line.split(',')
        .map(|n| n.trim().trim_matches('"').to_owned())
        .collect()
}

/// What the stub's annotation `annotation` allows for the option `o`.
fn stub_choices(stub: &str, annotation: &str) -> Vec<String> {
    let inner = annotation
        .trim_start_matches("Optional[")
        .trim_end_matches(']');
    match inner {
        "_Level" | "_Form" => stub_literal(stub, inner),
        _ => Vec::new(),
    }
}

fn table_choices(o: &KeyOption) -> Vec<String> {
    match o.kind {
        OptionKind::Choice(names) => names.iter().map(|n| (*n).to_owned()).collect(),
        _ => Vec::new(),
    }
}

/// The Python default of an option: its table default, `False` for a flag.
fn python_default(o: &KeyOption) -> String {
    match (o.kind, o.default) {
        (OptionKind::Flag, _) => "False".to_owned(),
        (_, Some(d)) => format!("\"{d}\""),
        (_, None) => "None".to_owned(),
    }
}

#[test]
fn the_python_stub_is_the_tables() {
    let stub = std::fs::read_to_string(repo().join("python/irinorm/__init__.pyi")).unwrap();
    // `Normalizer(...)`: every option, keyword-only, with its default.
    let init = stub_block(
        &stub,
        "def __init__(\n        self,\n        *,\n",
        "    ) ->",
    );
    let params: Vec<(String, String, String)> = init
        .lines()
        .map(|l| {
            let (name, rest) = l.trim().trim_end_matches(',').split_once(": ").unwrap();
            let (annotation, default) = rest.split_once(" = ").unwrap();
            (name.to_owned(), annotation.to_owned(), default.to_owned())
        })
        .collect();
    let names: Vec<String> = params.iter().map(|p| p.0.clone()).collect();
    assert_eq!(names, table_fields(), "Normalizer.__init__");
    for (o, (_, annotation, default)) in KEY_OPTIONS.iter().zip(&params) {
        assert_eq!(default, &python_default(o), "{}", o.field);
        assert_eq!(
            stub_choices(&stub, annotation),
            table_choices(o),
            "{}",
            o.field
        );
    }
    // The keyword arguments of `normalize` and `lowest_common_rung`: the same, typed alike.
    let typed = stub_block(
        &stub,
        "class _KeyOptions(TypedDict, total=False):",
        "class ",
    );
    let fields: Vec<(&str, &str)> = typed
        .lines()
        .filter_map(|l| l.trim().split_once(": "))
        .filter(|(name, _)| name.chars().all(|c| c == '_' || c.is_ascii_lowercase()))
        .collect();
    let names: Vec<String> = fields.iter().map(|f| f.0.to_owned()).collect();
    assert_eq!(names, table_fields(), "_KeyOptions");
    for ((_, annotation), (_, init_annotation, _)) in fields.iter().zip(&params) {
        assert_eq!(annotation, init_annotation);
    }
}
