//! What moving from one kind of key to another does to a set of records (`irinorm migrate`,
//! Python's `migration_report`): how many records change key, how many groups of records
//! that shared a key are split, how many keys are merged, and which steps of `--explain`
//! cause it.
//!
//! A record is seen under both normalizers at once ([`Migration::observe`], which any
//! number of threads may call), and the [`Observation`]s are added to a
//! [`MigrationReport`] in input order. The report keeps 128-bit fingerprints of the keys,
//! never the keys: its memory grows with the number of distinct keys (a hash map entry per
//! distinct key on each side), not with their length.
//!
//! The cause of a change is what the two explanations of the record do not share: a step
//! (component and rule) that one side takes and the other does not. Where both take the
//! same steps and still write different keys, the cause is the form of the key
//! (`key-form`).

use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::Hasher;
use std::io::Write as _;

use crate::ladder::json::push_json_str;
use crate::ladder::trace::Step;
use crate::ladder::Normalizer;

/// The two normalizers of a migration: the keys a store holds now (`from`), and the ones it
/// would hold (`to`).
#[derive(Clone, Debug)]
pub struct Migration {
    from: Normalizer,
    to: Normalizer,
}

/// Which side of a migration a step belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Side {
    /// A step the `from` keys take and the `to` keys do not.
    From,
    /// A step the `to` keys take and the `from` keys do not.
    To,
    /// The same steps, keys written differently.
    Both,
}

impl Side {
    /// `from`, `to` or `both`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Side::From => "from",
            Side::To => "to",
            Side::Both => "both",
        }
    }
}

/// One cause of a changed key: a step (`component:rule`) one side takes and the other does
/// not.
type Cause = (Side, String);

/// One record seen under both normalizers. Reused from record to record.
#[derive(Clone, Debug, Default)]
pub struct Observation {
    /// The record, shown (lossily where it is not UTF-8).
    pub record: String,
    /// The `from` key, or `None` when the record is invalid there.
    pub from: Option<String>,
    /// The `to` key, or `None` when the record is invalid there.
    pub to: Option<String>,
    /// Where both keys exist and differ: the steps that make them differ.
    causes: Vec<Cause>,
}

impl Observation {
    /// Whether both keys exist and differ.
    pub fn changed(&self) -> bool {
        matches!((&self.from, &self.to), (Some(f), Some(t)) if f != t)
    }
}

/// The line form of an observation, for carrying it through a stream of text
/// ([`Observation::write_line`]): `F T <TAB> from key <TAB> to key <TAB> causes <TAB> record`,
/// `F` and `T` `v` (valid) or `x` (invalid), the causes `side:component:rule` joined by `;`
/// (sides `f`, `t`, `b`). Keys and causes hold no tab or line feed; the record, last, holds
/// no line feed.
impl Observation {
    /// Appends the line form (without a line feed).
    pub fn write_line(&self, out: &mut String) {
        out.push(if self.from.is_some() { 'v' } else { 'x' });
        out.push(if self.to.is_some() { 'v' } else { 'x' });
        for key in [&self.from, &self.to] {
            out.push('\t');
            out.push_str(key.as_deref().unwrap_or(""));
        }
        out.push('\t');
        for (i, (side, rule)) in self.causes.iter().enumerate() {
            if i > 0 {
                out.push(';');
            }
            out.push_str(&side.name()[..1]);
            out.push(':');
            out.push_str(rule);
        }
        out.push('\t');
        out.push_str(&self.record);
    }

    /// Reads the line form back; `false` where `line` is not one.
    pub fn read_line(&mut self, line: &str) -> bool {
        let mut fields = line.splitn(5, '\t');
        let (Some(flags), Some(from), Some(to), Some(causes), Some(record)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return false;
        };
        let key = |flag: Option<u8>, k: &str| (flag == Some(b'v')).then(|| k.to_owned());
        self.from = key(flags.bytes().next(), from);
        self.to = key(flags.as_bytes().get(1).copied(), to);
        self.causes.clear();
        for cause in causes.split(';').filter(|c| !c.is_empty()) {
            let side = match cause.as_bytes()[0] {
                b'f' => Side::From,
                b't' => Side::To,
                _ => Side::Both,
            };
            self.causes
                .push((side, cause.get(2..).unwrap_or("").to_owned()));
        }
        self.record.clear();
        self.record.push_str(record);
        true
    }
}

impl Migration {
    /// A migration from the keys of `from` to the keys of `to`.
    pub fn new(from: Normalizer, to: Normalizer) -> Migration {
        Migration { from, to }
    }

    /// Sees the raw record `raw` under both normalizers, into `obs`.
    pub fn observe(&self, raw: &[u8], obs: &mut Observation) {
        obs.record.clear();
        obs.record.push_str(&String::from_utf8_lossy(raw));
        obs.causes.clear();
        let (from, to) = (
            self.from.explain_bytes(raw).ok(),
            self.to.explain_bytes(raw).ok(),
        );
        if let (Some(f), Some(t)) = (&from, &to) {
            if f.key != t.key {
                let same_form = self.from.options().form == self.to.options().form;
                causes(&f.steps, &t.steps, same_form, &mut obs.causes);
            }
        }
        // The keys move into the observation; only the steps were needed besides.
        obs.from = from.map(|e| e.key);
        obs.to = to.map(|e| e.key);
    }
}

/// The steps that one side's explanation has and the other's lacks; `key-form` where they
/// are the same. Where both sides write the same form, the step that writes it (a SURT:
/// `record:surt`, which a compatibility profile does not name, writing its own SURTs) is
/// not a cause.
fn causes(from: &[Step], to: &[Step], same_form: bool, causes: &mut Vec<Cause>) {
    let names = |steps: &[Step]| -> Vec<(&'static str, &'static str)> {
        let form_step = |s: &&Step| same_form && (s.component, s.rule) == ("record", "surt");
        let mut s: Vec<_> = steps
            .iter()
            .filter(|s| !form_step(s))
            .map(|s| (s.component, s.rule))
            .collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let (from, to) = (names(from), names(to));
    let cause = |side, &(c, r): &(&str, &str)| (side, format!("{c}:{r}"));
    causes.extend(
        from.iter()
            .filter(|s| !to.contains(s))
            .map(|s| cause(Side::From, s)),
    );
    causes.extend(
        to.iter()
            .filter(|s| !from.contains(s))
            .map(|s| cause(Side::To, s)),
    );
    if causes.is_empty() {
        causes.push((Side::Both, "key:key-form".to_owned()));
    }
}

/// Appends the JSON member `"name":"value"`.
fn member(j: &mut Vec<u8>, name: &str, value: &str) {
    j.push(b'"');
    j.extend_from_slice(name.as_bytes());
    j.extend_from_slice(b"\":\"");
    push_json_str(j, value);
    j.push(b'"');
}

/// A key's 128-bit fingerprint.
fn fingerprint(key: &str) -> u128 {
    let half = |seed: u8| {
        let mut h = DefaultHasher::new();
        h.write_u8(seed);
        h.write(key.as_bytes());
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// The causes seen in a group of records, as bits of [`MigrationReport::rules`] (the 64th
/// bit stands for all rules past the 63rd).
type RuleBits = u64;

/// The records of one `from` key.
struct FromGroup {
    /// The `to` key of its first record.
    to: u128,
    /// Its records have more than one `to` key.
    split: bool,
    causes: RuleBits,
}

/// The records of one `to` key.
struct ToGroup {
    /// How many `from` keys have it as the `to` key of their first record.
    from_keys: u64,
    causes: RuleBits,
}

/// What one cause did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleCount {
    /// The side whose step it is: `from`, `to`, or `both` (the same steps, keys written
    /// differently).
    pub side: &'static str,
    /// `component:rule`.
    pub rule: String,
    /// The records whose key it changed.
    pub changed: u64,
    /// The `from` groups split where it took part.
    pub split_groups: u64,
    /// The `from` keys merged where it took part.
    pub merged_keys: u64,
    /// A few records it changed: record, `from` key, `to` key.
    pub examples: Vec<[String; 3]>,
}

/// The counts of a migration, added to record by record ([`MigrationReport::add`]).
#[derive(Default)]
pub struct MigrationReport {
    records: u64,
    invalid_from: u64,
    invalid_to: u64,
    changed: u64,
    from_groups: HashMap<u128, FromGroup>,
    to_groups: HashMap<u128, ToGroup>,
    rules: Vec<RuleCount>,
    rule_index: HashMap<(Side, String), usize>,
}

/// The examples kept per rule.
const EXAMPLES: usize = 3;

impl MigrationReport {
    /// Adds one observed record.
    pub fn add(&mut self, obs: &Observation) {
        self.records += 1;
        self.invalid_from += u64::from(obs.from.is_none());
        self.invalid_to += u64::from(obs.to.is_none());
        let (Some(from), Some(to)) = (&obs.from, &obs.to) else {
            return;
        };
        let bits = self.note_causes(obs);
        self.changed += u64::from(from != to);
        let (f, t) = (fingerprint(from), fingerprint(to));
        let new_from = match self.from_groups.entry(f) {
            Entry::Occupied(mut g) => {
                let g = g.get_mut();
                g.split |= g.to != t;
                g.causes |= bits;
                false
            }
            Entry::Vacant(v) => {
                v.insert(FromGroup {
                    to: t,
                    split: false,
                    causes: bits,
                });
                true
            }
        };
        let g = self.to_groups.entry(t).or_insert(ToGroup {
            from_keys: 0,
            causes: 0,
        });
        g.from_keys += u64::from(new_from);
        g.causes |= bits;
    }

    /// Counts the causes of a changed record per rule, keeping a few examples; returns
    /// their bits.
    fn note_causes(&mut self, obs: &Observation) -> RuleBits {
        let mut bits = 0;
        for cause in &obs.causes {
            let next = self.rules.len();
            let at = *self.rule_index.entry(cause.clone()).or_insert(next);
            if at == next {
                self.rules.push(RuleCount {
                    side: cause.0.name(),
                    rule: cause.1.clone(),
                    ..RuleCount::default()
                });
            }
            let r = &mut self.rules[at];
            r.changed += 1;
            if r.examples.len() < EXAMPLES {
                let key = |k: &Option<String>| k.clone().unwrap_or_default();
                r.examples
                    .push([obs.record.clone(), key(&obs.from), key(&obs.to)]);
            }
            bits |= 1 << at.min(63);
        }
        bits
    }

    /// The summary: the counts, and per rule what it did (the rules that change most
    /// records first).
    pub fn summary(&self) -> MigrationSummary {
        let mut rules = self.rules.clone();
        let n = rules.len();
        let rules_of = move |bits: RuleBits| (0..n).filter(move |&i| bits & (1 << i.min(63)) != 0);
        let mut split_groups = 0;
        for g in self.from_groups.values().filter(|g| g.split) {
            split_groups += 1;
            for i in rules_of(g.causes) {
                rules[i].split_groups += 1;
            }
        }
        let (mut merged_keys, mut merged_into) = (0, 0);
        for g in self.to_groups.values().filter(|g| g.from_keys > 1) {
            merged_keys += g.from_keys;
            merged_into += 1;
            for i in rules_of(g.causes) {
                rules[i].merged_keys += g.from_keys;
            }
        }
        // The causes that change most records first (ties in order of first sight).
        rules.sort_by_key(|r| std::cmp::Reverse(r.changed));
        MigrationSummary {
            records: self.records,
            invalid_from: self.invalid_from,
            invalid_to: self.invalid_to,
            changed: self.changed,
            keys_from: self.from_groups.len() as u64,
            keys_to: self.to_groups.len() as u64,
            split_groups,
            merged_keys,
            merged_into,
            by_rule: rules,
        }
    }
}

/// What a migration does to a set of records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrationSummary {
    /// The records read.
    pub records: u64,
    /// The records invalid under `from`.
    pub invalid_from: u64,
    /// The records invalid under `to`.
    pub invalid_to: u64,
    /// The records valid under both whose key changes.
    pub changed: u64,
    /// The distinct `from` keys (of records valid under both).
    pub keys_from: u64,
    /// The distinct `to` keys (of records valid under both).
    pub keys_to: u64,
    /// The `from` keys whose records get more than one `to` key.
    pub split_groups: u64,
    /// The `from` keys that share their `to` key with another `from` key (a key whose
    /// records split counts with the `to` key of its first record).
    pub merged_keys: u64,
    /// The `to` keys that such merged `from` keys share.
    pub merged_into: u64,
    /// Per cause, those that change most records first.
    pub by_rule: Vec<RuleCount>,
}

impl MigrationSummary {
    /// The summary as one JSON object.
    pub fn to_json(&self) -> String {
        let mut j = Vec::new();
        let _ = write!(
            j,
            "{{\"records\":{},\"invalid_from\":{},\"invalid_to\":{},\"changed\":{},\
             \"keys_from\":{},\"keys_to\":{},\"split_groups\":{},\"merged_keys\":{},\
             \"merged_into\":{},\"by_rule\":[",
            self.records,
            self.invalid_from,
            self.invalid_to,
            self.changed,
            self.keys_from,
            self.keys_to,
            self.split_groups,
            self.merged_keys,
            self.merged_into
        );
        for (i, r) in self.by_rule.iter().enumerate() {
            j.extend_from_slice(if i == 0 { b"{" } else { b",{" });
            member(&mut j, "rule", &r.rule);
            j.push(b',');
            member(&mut j, "side", r.side);
            let _ = write!(
                j,
                ",\"changed\":{},\"split_groups\":{},\"merged_keys\":{},\"examples\":[",
                r.changed, r.split_groups, r.merged_keys
            );
            for (k, [record, from, to]) in r.examples.iter().enumerate() {
                j.extend_from_slice(if k == 0 { b"{" } else { b",{" });
                member(&mut j, "record", record);
                j.push(b',');
                member(&mut j, "from", from);
                j.push(b',');
                member(&mut j, "to", to);
                j.push(b'}');
            }
            j.extend_from_slice(b"]}");
        }
        j.extend_from_slice(b"]}");
        // Only UTF-8 text was written.
        String::from_utf8_lossy(&j).into_owned()
    }

    /// The summary for people.
    pub fn to_text(&self) -> String {
        let mut t = String::new();
        let pct = |n: u64| 100.0 * n as f64 / self.records.max(1) as f64;
        let _ = writeln!(t, "records        {:>12}", self.records);
        let _ = writeln!(t, "invalid (from) {:>12}", self.invalid_from);
        let _ = writeln!(t, "invalid (to)   {:>12}", self.invalid_to);
        let _ = writeln!(
            t,
            "changed key    {:>12}  ({:.2}% of records)",
            self.changed,
            pct(self.changed)
        );
        let _ = writeln!(t, "keys (from)    {:>12}", self.keys_from);
        let _ = writeln!(t, "keys (to)      {:>12}", self.keys_to);
        let _ = writeln!(
            t,
            "split groups   {:>12}  (from keys whose records get several to keys)",
            self.split_groups
        );
        let _ = writeln!(
            t,
            "merged keys    {:>12}  (from keys sharing a to key, into {} to keys)",
            self.merged_keys, self.merged_into
        );
        if !self.by_rule.is_empty() {
            let _ = writeln!(
                t,
                "\nby rule (side: a step one side takes and the other does not)"
            );
        }
        for r in &self.by_rule {
            let side = r.side;
            let _ = writeln!(
                t,
                "  {side:<4} {:<32} changed {:>10}  split {:>8}  merged {:>8}",
                r.rule, r.changed, r.split_groups, r.merged_keys
            );
            for [record, from, to] in &r.examples {
                let _ = writeln!(
                    t,
                    "       {record}\n         from {from}\n         to   {to}"
                );
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_observation_goes_through_its_line_form_unchanged() {
        let obs = Observation {
            record: "http://a/b\tc d".to_owned(),
            from: Some("http://a/b%09c%20d".to_owned()),
            to: None,
            causes: vec![
                (Side::From, "host:strip-www".to_owned()),
                (Side::Both, "key:key-form".to_owned()),
            ],
        };
        let mut line = String::new();
        obs.write_line(&mut line);
        let mut back = Observation::default();
        assert!(back.read_line(&line));
        assert_eq!(
            (back.record, back.from, back.to, back.causes),
            (obs.record, obs.from, obs.to, obs.causes)
        );
        assert!(!Observation::default().read_line("no tabs"));
    }

    #[test]
    fn groups_split_and_merge_by_first_sight() {
        let mut report = MigrationReport::default();
        let obs = |from: &str, to: &str| Observation {
            record: String::new(),
            from: Some(from.to_owned()),
            to: Some(to.to_owned()),
            causes: if from == to {
                vec![]
            } else {
                vec![(Side::To, "r:x".to_owned())]
            },
        };
        // A splits into A and B; C and D merge into D; E is invalid under `to`.
        for o in [obs("A", "A"), obs("A", "B"), obs("C", "D"), obs("D", "D")] {
            report.add(&o);
        }
        report.add(&Observation {
            from: Some("E".into()),
            ..Observation::default()
        });
        let s = report.summary();
        assert_eq!(
            (s.records, s.invalid_from, s.invalid_to, s.changed),
            (5, 0, 1, 2)
        );
        assert_eq!((s.keys_from, s.keys_to), (3, 3));
        assert_eq!((s.split_groups, s.merged_keys, s.merged_into), (1, 2, 1));
        let r = &s.by_rule[0];
        assert_eq!((r.changed, r.split_groups, r.merged_keys), (2, 1, 2));
    }
}
