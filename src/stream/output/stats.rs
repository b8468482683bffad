//! The counts gathered over a run ([`Stats`]) and their two reports: text for people,
//! one line of JSON for programs.

use std::io::{self, Write};
use std::time::Duration;

use crate::iri::error::ErrorKind;
use crate::iri::repair::{RepairKind, Repairs};
use crate::ladder::json::push_decimal;
use crate::stream::hyperloglog::STANDARD_ERROR;

/// Counts gathered over a run, returned by [`crate::stream::Engine::run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Records read (every line, valid or not, written or not).
    pub records: u64,
    /// Invalid records, all kinds together.
    pub invalid: u64,
    /// Invalid records by kind, indexed by [`ErrorKind::index`]; see [`Stats::invalid_of`].
    pub invalid_by_kind: [u64; ErrorKind::ALL.len()],
    /// Repairs made by the lenient preparation of records (`crate::iri::repair`).
    pub repairs: Repairs,
    /// Warnings about valid records (hosts that failed IDNA, ...), all kinds together.
    pub warnings: u64,
    /// Valid records whose key differs from the input line (after the line terminator, and
    /// a byte order mark at the start of the input, were removed).
    pub changed: u64,
    /// Keys written: valid records written to the output (with `unique`, the first record
    /// of each key only). Invalid records are not counted here.
    pub keys_written: u64,
    /// Distinct keys among the valid records, when they were counted: exactly with
    /// `unique` (through 128-bit fingerprints, see [`crate::stream::EngineOptions::unique`]),
    /// estimated with `stats` alone (see [`Stats::unique_estimated`]).
    pub unique: Option<u64>,
    /// Whether [`Stats::unique`] is an estimate: with
    /// [`EngineOptions::stats`](crate::stream::EngineOptions::stats) but not `unique`, the
    /// distinct keys are counted by a HyperLogLog sketch in fixed memory, with a relative
    /// standard error of about 0.8%.
    pub unique_estimated: bool,
    /// Bytes read, after decompression.
    pub input_bytes: u64,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Whether the run was interrupted before the end of its inputs (see
    /// [`crate::stream::Engine::with_interrupt`]).
    pub interrupted: bool,
}

impl Stats {
    /// The number of invalid records of `kind`.
    pub fn invalid_of(&self, kind: ErrorKind) -> u64 {
        self.invalid_by_kind[kind.index()]
    }

    /// Adds the record counts of `other` (records, invalid, repairs, changed) to these.
    pub(crate) fn merge_counts(&mut self, other: &Stats) {
        self.records += other.records;
        self.invalid += other.invalid;
        for (a, b) in self.invalid_by_kind.iter_mut().zip(other.invalid_by_kind) {
            *a += b;
        }
        self.repairs.merge(&other.repairs);
        self.warnings += other.warnings;
        self.changed += other.changed;
        self.keys_written += other.keys_written;
    }

    /// Counts one invalid record.
    pub(crate) fn count_invalid(&mut self, kind: ErrorKind) {
        self.invalid += 1;
        self.invalid_by_kind[kind.index()] += 1;
    }

    /// Writes a human-readable summary: records, invalid records by kind, repairs by kind,
    /// changed records, unique keys, bytes read, time and throughput (decimal megabytes per
    /// second). Kinds with a zero count are left out.
    pub fn write_report(&self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "records      {}", self.records)?;
        writeln!(w, "invalid      {}", self.invalid)?;
        for kind in ErrorKind::ALL {
            let n = self.invalid_of(kind);
            if n > 0 {
                writeln!(w, "  {:<18} {n}", kind.name())?;
            }
        }
        writeln!(w, "repairs      {}", self.repairs.total())?;
        for kind in RepairKind::ALL {
            let n = self.repairs.get(kind);
            if n > 0 {
                writeln!(w, "  {:<18} {n}", kind.name())?;
            }
        }
        writeln!(w, "warnings     {}", self.warnings)?;
        writeln!(w, "changed      {}", self.changed)?;
        writeln!(w, "keys written {}", self.keys_written)?;
        match self.unique {
            Some(n) if self.unique_estimated => {
                let error = STANDARD_ERROR * 100.0;
                writeln!(w, "unique       about {n} (estimate, ±{error:.1}%)")?;
            }
            Some(n) => writeln!(w, "unique       {n}")?,
            None => {}
        }
        writeln!(w, "bytes        {}", self.input_bytes)?;
        let secs = self.elapsed.as_secs_f64();
        writeln!(w, "elapsed      {secs:.3} s")?;
        if self.interrupted {
            writeln!(
                w,
                "interrupted  (the counts cover the records read until then)"
            )?;
        }
        if secs > 0.0 {
            let mb_per_s = self.input_bytes as f64 / 1e6 / secs;
            writeln!(w, "throughput   {mb_per_s:.1} MB/s")?;
        }
        Ok(())
    }
}

impl Stats {
    /// Writes the statistics as one JSON object on one line:
    ///
    /// ```text
    /// {"records":N,"keys_written":N,"changed":N,"invalid":N,"invalid_by_kind":{"empty":N,…},
    ///  "repairs":N,"repairs_by_kind":{"trim":N,…},"warnings":N,"distinct_keys":N|null,
    ///  "distinct_keys_estimated":B,"bytes":N,"seconds":F,"interrupted":B}
    /// ```
    ///
    /// Every kind of invalid record and of repair is listed, zero or not; `distinct_keys` is
    /// `null` when keys were not counted, and `distinct_keys_estimated` says whether it is
    /// an estimate ([`Stats::unique_estimated`]); `bytes` are bytes read after decompression;
    /// `seconds` is the wall-clock time of the run; `interrupted` says whether the run was
    /// cut short (Ctrl-C), so that the counts cover only part of the inputs.
    pub fn write_json(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut out = Vec::with_capacity(512);
        let field = |out: &mut Vec<u8>, name: &str, n: u64| {
            out.extend_from_slice(b"\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            push_decimal(out, n);
        };
        out.push(b'{');
        field(&mut out, "records", self.records);
        out.push(b',');
        field(&mut out, "keys_written", self.keys_written);
        out.push(b',');
        field(&mut out, "changed", self.changed);
        out.push(b',');
        field(&mut out, "invalid", self.invalid);
        out.extend_from_slice(b",\"invalid_by_kind\":{");
        for (i, kind) in ErrorKind::ALL.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            field(&mut out, kind.name(), self.invalid_of(kind));
        }
        out.extend_from_slice(b"},");
        field(&mut out, "repairs", self.repairs.total());
        out.extend_from_slice(b",\"repairs_by_kind\":{");
        for (i, kind) in RepairKind::ALL.into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            field(&mut out, kind.name(), self.repairs.get(kind));
        }
        out.extend_from_slice(b"},");
        field(&mut out, "warnings", self.warnings);
        out.extend_from_slice(b",\"distinct_keys\":");
        match self.unique {
            Some(n) => push_decimal(&mut out, n),
            None => out.extend_from_slice(b"null"),
        }
        let estimated: &[u8] = match self.unique_estimated {
            true => b",\"distinct_keys_estimated\":true,",
            false => b",\"distinct_keys_estimated\":false,",
        };
        out.extend_from_slice(estimated);
        field(&mut out, "bytes", self.input_bytes);
        let seconds = format!(
            ",\"seconds\":{:.6},\"interrupted\":{}}}\n",
            self.elapsed.as_secs_f64(),
            self.interrupted
        );
        out.extend_from_slice(seconds.as_bytes());
        w.write_all(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports() {
        let mut stats = Stats {
            records: 3,
            changed: 1,
            ..Stats::default()
        };
        stats.count_invalid(ErrorKind::Empty);
        stats.repairs.add(RepairKind::Trim);
        let report = report_of(&stats);
        assert!(report.contains("records      3\n"), "{report}");
        assert!(report.contains("  empty"), "{report}");
        assert!(report.contains("  trim"), "{report}");
        assert!(!report.contains("syntax"), "{report}");
        let json = json_of(&stats);
        assert!(json.starts_with(r#"{"records":3,"keys_written":0,"changed":1,"invalid":1,"#));
        assert!(json.contains(r#""empty":1,"#), "{json}");
        assert!(
            json.contains(r#""repairs":1,"repairs_by_kind":{"trim":1,"#),
            "{json}"
        );
        let end = r#""distinct_keys":null,"distinct_keys_estimated":false,"bytes":0,"#;
        assert!(json.contains(end), "{json}");
        assert!(json.ends_with("}\n") && json.lines().count() == 1, "{json}");
        serde_json::from_str::<serde_json::Value>(&json).unwrap();
        // Distinct keys, exact and estimated.
        stats.unique = Some(12);
        let (report, json) = (report_of(&stats), json_of(&stats));
        assert!(report.contains("unique       12\n"), "{report}");
        assert!(json.contains(r#""distinct_keys":12,"distinct_keys_estimated":false,"#));
        stats.unique_estimated = true;
        let (report, json) = (report_of(&stats), json_of(&stats));
        assert!(
            report.contains("unique       about 12 (estimate, ±0.8%)\n"),
            "{report}"
        );
        assert!(json.contains(r#""distinct_keys":12,"distinct_keys_estimated":true,"#));
    }

    fn report_of(stats: &Stats) -> String {
        let mut out = Vec::new();
        stats.write_report(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn json_of(stats: &Stats) -> String {
        let mut out = Vec::new();
        stats.write_json(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}
