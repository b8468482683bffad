//! Memory sizes on the command line: `--unique-memory SIZE` and its default, a share of the
//! memory this process may use.

/// The share of the memory this process may use that `--unique` takes by default: half,
/// leaving the rest to the engine's chunks, the output's buffers and the other programs.
const DEFAULT_SHARE: (usize, usize) = (1, 2);

/// The default cap of `--unique`'s set: [`DEFAULT_SHARE`] of the machine's memory, or of
/// the control group's limit where that is lower (a container). Where neither can be read
/// (not Linux), 4 GiB.
pub(crate) fn default_unique_memory() -> usize {
    let total = [physical_memory(), cgroup_limit()]
        .into_iter()
        .flatten()
        .min();
    total.map_or(4 << 30, |bytes| bytes / DEFAULT_SHARE.1 * DEFAULT_SHARE.0)
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory limit of this process's control group (cgroup v2 `memory.max`), where it has
/// one.
fn cgroup_limit() -> Option<usize> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let max = std::fs::read_to_string(format!("/sys/fs/cgroup{path}/memory.max")).ok()?;
    max.trim().parse().ok()
}

/// Parses a size above 0: a whole number of bytes, or with a binary unit `K`, `M`, `G` or
/// `T` (1024, 1024², …), optionally followed by `iB` or `B` (`8M`, `512KiB`, `2GB`).
pub(crate) fn parse_size(text: &str) -> Result<usize, String> {
    let bad =
        || format!("{text:?} is not a size (a number of bytes above 0, or with K, M, G or T)");
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    let shift = match unit {
        "" | "B" => 0,
        "K" | "k" | "KB" | "KiB" => 10,
        "M" | "m" | "MB" | "MiB" => 20,
        "G" | "g" | "GB" | "GiB" => 30,
        "T" | "t" | "TB" | "TiB" => 40,
        _ => return Err(bad()),
    };
    let n: usize = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1 << shift).filter(|&n| n > 0).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("8M"), Ok(8 << 20));
        assert_eq!(parse_size("8MiB"), Ok(8 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("2GB"), Ok(2 << 30));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        assert_eq!(parse_size("1000"), Ok(1000));
        for bad in [
            "",
            "M",
            "-1M",
            "+8M",
            "0",
            "1iB",
            "1.5G",
            "8X",
            " 8M",
            "99999999999999999999T",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_default_is_a_share_of_a_real_amount() {
        let cap = default_unique_memory();
        assert!(cap >= 1 << 20, "{cap}");
        if let Some(total) = physical_memory() {
            assert!(cap <= total / 2, "{cap} of {total}");
        }
    }
}
