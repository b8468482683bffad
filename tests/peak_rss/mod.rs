//! The peak resident set of the test process (`VmHWM` in `/proc/self/status`, Linux only),
//! for the test files that hold one test alone so that the peak is that test's.

/// SPEC §8: under 64 MiB resident at default settings, whatever the input.
const BUDGET: u64 = 64 << 20;

/// The peak resident set size of this process, in bytes (`None` off Linux).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Prints `what` with the peak resident set, and checks the peak is within the budget.
pub fn assert_peak_rss_within_budget(what: &str) {
    let Some(peak) = peak_rss() else {
        eprintln!("no /proc/self/status: peak memory not checked");
        return;
    };
    eprintln!("{what}; peak RSS {:.1} MiB", peak as f64 / (1 << 20) as f64);
    assert!(
        peak < BUDGET,
        "peak RSS {peak} bytes is over the {BUDGET} byte budget"
    );
}

/// The operation of the memory tests: every record is its own result.
pub fn copy(record: &str, out: &mut String) -> Result<(), irinorm::Error> {
    out.push_str(record);
    Ok(())
}
