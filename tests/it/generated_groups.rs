//! Generated groups of equivalent spellings and near-misses (`corpora/gen_corpus.rs`) run
//! through the scheme rung in both forms.
//!
//! For `corpora/groups.tsv` and for groups regenerated in memory with other seeds:
//! - every `eq` member of a group gets the group's key (100% merged), in the `uri` and the
//!   `iri` form;
//! - no near-miss gets its group's key or any other group's key (no false merge), and no two
//!   groups share a key;
//! - `to_uri(iri_key, irinorm::HostMapping::ToAscii) == uri_key` for every line (both forms put the same records
//!   together);
//! - in memory, where the generator's model says what the key must be, the `iri` key is that
//!   text.
//!
//! Every failing line is printed with its keys before the test fails.

#[path = "../../corpora/gen_lib.rs"]
mod gen_lib;

use std::collections::{BTreeMap, HashMap};

use irinorm::to_uri;
use irinorm::{Form, Level, Normalizer, Options};

struct Rec {
    group: String,
    kind: String,
    iri: String,
    /// The model's key (scheme rung, iri form), when known.
    expect: Option<String>,
}

fn normalizer(form: Form) -> Normalizer {
    Normalizer::new(Options::default().with_level(Level::Scheme).with_form(form)).unwrap()
}

fn key(n: &Normalizer, s: &str) -> String {
    match n.normalize(s) {
        Ok(k) => k.into_owned(),
        Err(e) => format!("!{}@{}", e.kind.name(), e.column),
    }
}

fn from_groups(groups: &[gen_lib::Group]) -> Vec<Rec> {
    groups
        .iter()
        .flat_map(|g| {
            g.lines.iter().map(|l| Rec {
                group: g.id.clone(),
                kind: l.kind.clone(),
                iri: l.iri.clone(),
                expect: Some(l.expect.clone()),
            })
        })
        .collect()
}

/// Checks every property; returns the failures (one message per offending line) and the
/// counts `(groups, eq lines, near-misses)`.
fn check(recs: &[Rec], label: &str) -> (Vec<String>, (usize, usize, usize)) {
    let mut failures = Vec::new();
    let uri_n = normalizer(Form::Uri);
    let iri_n = normalizer(Form::Iri);
    let uri: Vec<String> = recs.iter().map(|r| key(&uri_n, &r.iri)).collect();
    let iri: Vec<String> = recs.iter().map(|r| key(&iri_n, &r.iri)).collect();

    // Lines of each group, in order.
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in recs.iter().enumerate() {
        groups.entry(&r.group).or_default().push(i);
    }
    let eq_lines = recs.iter().filter(|r| r.kind == "eq").count();
    let counts = (groups.len(), eq_lines, recs.len() - eq_lines);

    for (form, keys) in [("uri", &uri), ("iri", &iri)] {
        // The group's key: the key of its first member; every member must share it.
        let mut group_key: HashMap<&str, (&str, &str)> = HashMap::new();
        let mut owner: HashMap<&str, &str> = HashMap::new();
        for (g, idx) in &groups {
            let members: Vec<usize> = idx
                .iter()
                .copied()
                .filter(|&i| recs[i].kind == "eq")
                .collect();
            let Some(&first) = members.first() else {
                failures.push(format!("[{label}] {g}: no eq member"));
                continue;
            };
            let k = keys[first].as_str();
            if members.iter().any(|&i| keys[i] != k) || k.starts_with('!') {
                let mut msg = format!("[{label}] {form}: group {g} is not merged:");
                for &i in &members {
                    msg.push_str(&format!("\n    {}  ->  {}", recs[i].iri, keys[i]));
                }
                failures.push(msg);
            }
            if let Some(other) = owner.insert(k, g) {
                failures.push(format!(
                    "[{label}] {form}: groups {other} and {g} share the key {k}"
                ));
            }
            group_key.insert(g, (k, recs[first].iri.as_str()));
        }
        for (i, r) in recs.iter().enumerate() {
            if r.kind == "eq" {
                continue;
            }
            let k = keys[i].as_str();
            if k.starts_with('!') {
                failures.push(format!(
                    "[{label}] {form}: {} {} {}: error {k}",
                    r.group, r.kind, r.iri
                ));
            } else if let Some(&g) = owner.get(k) {
                let (_, member) = group_key[g];
                let whose = if g == r.group { "its own" } else { g };
                failures.push(format!(
                    "[{label}] {form}: false merge: {} {} {}\n    key {k}\n    is the key of {whose} group (e.g. {member})",
                    r.group, r.kind, r.iri
                ));
            }
        }
    }

    for (i, r) in recs.iter().enumerate() {
        if iri[i].starts_with('!') {
            continue;
        }
        match to_uri(&iri[i], irinorm::HostMapping::ToAscii) {
            Ok(m) if m == uri[i] => {}
            other => failures.push(format!(
                "[{label}] forms disagree: {} {} {}\n    iri key {}\n    to_uri  {:?}\n    uri key {}",
                r.group, r.kind, r.iri, iri[i], other, uri[i]
            )),
        }
        if let Some(e) = &r.expect {
            if &iri[i] != e {
                failures.push(format!(
                    "[{label}] iri key is not the model's key: {} {} {}\n    got      {}\n    expected {e}",
                    r.group, r.kind, r.iri, iri[i]
                ));
            }
        }
    }
    (failures, counts)
}

fn report(label: &str, failures: &[String], counts: (usize, usize, usize)) {
    eprintln!(
        "{label}: {} groups, {} eq lines, {} near-misses, {} failures",
        counts.0,
        counts.1,
        counts.2,
        failures.len()
    );
    for f in failures {
        eprintln!("{f}");
    }
}

#[test]
fn checked_in_groups() {
    let path = crate::common::repo().join("corpora").join("groups.tsv");
    let text = std::fs::read_to_string(&path).expect("corpora/groups.tsv");
    let mut recs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut f = line.splitn(3, '\t');
        let (Some(g), Some(k), Some(iri)) = (f.next(), f.next(), f.next()) else {
            panic!("groups.tsv:{}: not group<TAB>kind<TAB>iri: {line:?}", n + 1);
        };
        assert!(
            k == "eq" || k.starts_with("miss:"),
            "groups.tsv:{}: bad kind {k:?}",
            n + 1
        );
        recs.push(Rec {
            group: g.to_owned(),
            kind: k.to_owned(),
            iri: iri.to_owned(),
            expect: None,
        });
    }
    let (failures, counts) = check(&recs, "groups.tsv");
    report("groups.tsv", &failures, counts);
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &recs {
        *by_kind.entry(&r.kind).or_default() += 1;
    }
    eprintln!("groups.tsv lines by kind: {by_kind:?}");
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// The seeds to regenerate: the checked-in one (so its groups are also checked against the
/// model's keys) and two others; `IRINORM_GEN_SEEDS=N` adds seeds 100..100+N for a wider
/// search (`IRINORM_GEN_SEEDS=200 cargo test --release --test it generated_groups::`).
fn seeds() -> Vec<(u64, usize)> {
    let mut v = vec![
        (gen_lib::DEFAULT_SEED, gen_lib::DEFAULT_GROUPS),
        (1, 400),
        (20_240_601, 400),
    ];
    if let Some(n) = std::env::var("IRINORM_GEN_SEEDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        v.extend((100..100 + n).map(|s| (s, 500)));
    }
    v
}

#[test]
fn regenerated_groups() {
    let mut all = Vec::new();
    for (seed, n) in seeds() {
        let recs = from_groups(&gen_lib::generate(seed, n));
        let label = format!("seed {seed}");
        let (failures, counts) = check(&recs, &label);
        report(&label, &failures, counts);
        all.extend(failures);
    }
    assert!(all.is_empty(), "{} failures", all.len());
}

#[test]
fn checked_in_files_are_current() {
    let mut tsv = Vec::new();
    gen_lib::write_tsv(gen_lib::DEFAULT_SEED, gen_lib::DEFAULT_GROUPS, &mut tsv).unwrap();
    let mut plain = Vec::new();
    gen_lib::write_plain(gen_lib::SAMPLE_SEED, gen_lib::SAMPLE_GROUPS, &mut plain).unwrap();
    for (name, want, how) in [
        ("groups.tsv", tsv, "--groups 500 --seed 3987"),
        ("sample.txt", plain, "--plain --groups 400 --seed 3986"),
    ] {
        let have = std::fs::read(crate::common::repo().join("corpora").join(name)).unwrap();
        assert!(
            have == want,
            "corpora/{name} is not what the generator writes now; regenerate it with \
             `cargo run --example gen_corpus -- {how} > corpora/{name}` (and re-bless \
             tests/golden if sample.txt changed)"
        );
    }
}

#[test]
fn generator_tables() {
    use unicode_normalization::UnicodeNormalization;
    // Words are NFC, and the NFD near-misses decompose like Unicode does.
    for w in gen_lib::all_words() {
        assert!(
            unicode_normalization::is_nfc(w),
            "table word {w:?} is not NFC"
        );
        for c in w.chars() {
            if let Some(d) = gen_lib::decompose(c) {
                let nfd: Vec<char> = c.to_string().nfd().collect();
                assert_eq!(d, nfd, "decomposition of {c:?}");
            }
        }
    }
    // Hosts are canonical U-labels, and the generator's Punycode gives idna's A-labels.
    for (host, a) in gen_lib::all_hosts() {
        let (u, r) = idna::domain_to_unicode(host);
        assert!(
            r.is_ok() && u == host,
            "host {host:?} is not canonical: {u:?}"
        );
        assert_eq!(idna::domain_to_ascii(host).ok(), Some(a), "{host}");
    }
}
