//! Counting distinct keys without deduplicating them (`--stats` alone) takes fixed memory,
//! however many distinct keys there are (SPEC §8: under 64 MiB resident at default
//! settings): the count is a HyperLogLog estimate.
//!
//! One test streams millions of distinct short lines, generated on the fly, through
//! [`Engine::run`] with `stats` into `io::sink()`, and checks the process's peak resident
//! set (`VmHWM` in `/proc/self/status`, Linux only) and the estimate. Remembering every key
//! instead would take over 100 MiB here. This file holds that one test alone, since the
//! peak is the whole process's.

use std::io::{self, Read};

use irinorm::stream::{Engine, EngineOptions};

mod peak_rss;

/// The lines `x:0` to `x:{n-1}` (the numbers in hex), made as they are read.
struct Distinct {
    next: u64,
    end: u64,
    pending: Vec<u8>,
    offset: usize,
}

impl Read for Distinct {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.offset == self.pending.len() {
            self.pending.clear();
            self.offset = 0;
            while self.next < self.end && self.pending.len() < 1 << 16 {
                self.pending.extend(format!("x:{:x}\n", self.next).bytes());
                self.next += 1;
            }
        }
        let n = buf.len().min(self.pending.len() - self.offset);
        buf[..n].copy_from_slice(&self.pending[self.offset..self.offset + n]);
        self.offset += n;
        Ok(n)
    }
}

/// How many distinct keys go through: fewer in a debug build, where the engine is slower.
const KEYS: u64 = if cfg!(debug_assertions) {
    3_000_000
} else {
    20_000_000
};

#[test]
fn stats_memory_does_not_grow_with_distinct_keys() {
    let n = KEYS;
    let input = Distinct {
        next: 0,
        end: n,
        pending: Vec::new(),
        offset: 0,
    };
    let stats = Engine::new(&peak_rss::copy, EngineOptions::default().with_stats(true))
        .run(input, io::sink())
        .unwrap();
    assert_eq!(stats.records, n);
    assert!(stats.unique_estimated);
    let estimate = stats.unique.unwrap() as f64;
    // Four standard errors of 1.04/√(2¹⁴).
    let error = (estimate - n as f64).abs() / n as f64;
    assert!(error < 4.0 * 0.0082, "{estimate} for {n} distinct keys");
    let what = format!(
        "{n} distinct keys in {:.2?}, estimated {estimate}",
        stats.elapsed
    );
    peak_rss::assert_peak_rss_within_budget(&what);
}
