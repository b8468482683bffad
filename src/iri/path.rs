//! Dot-segment removal (RFC 3986 §5.2.4).
//!
//! [`remove_dot_segments`] implements the five rules (A–E) of RFC 3986 §5.2.4 exactly as
//! written, in a single left-to-right pass that is linear in the length of the input: the
//! input is never shifted (a cursor moves through it) and removing the last output segment
//! only scans the bytes that are being removed.
//!
//! Only segments that are exactly `.` or `..` are dot segments here; `.a`, `..a` and the
//! percent-encoded forms (`%2E`, `%2e%2E`, …) are ordinary segments. Decoding `%2E` to `.`
//! (RFC 3986 §6.2.2.2) is the caller's business and must happen before this step if wanted.
//!
//! [`has_dot_segments`] is a cheap test that lets callers skip the rewrite: when it returns
//! `false`, [`remove_dot_segments`] would copy its input unchanged.

use crate::iri::find::find;

/// Removes the dot segments (`.` and `..`) of `input` following the algorithm of
/// RFC 3986 §5.2.4, appending the resulting path to `out`.
///
/// `out` may already hold a prefix (such as `http://host`); that prefix is never touched:
/// rule C ("remove the last segment and its preceding `/` from the output buffer") only
/// looks at what this call appended.
///
/// The rules are applied literally, including their less intuitive consequences for
/// relative paths (a rootless path that climbs above its first segment becomes absolute):
///
/// | input              | output  |
/// |--------------------|---------|
/// | `.` / `..`         | (empty) |
/// | `/.` / `/..`       | `/`     |
/// | `a/..`             | `/`     |
/// | `/a/b/../../..`    | `/`     |
/// | `./a` / `../a`     | `a`     |
/// | `a/./b/.`          | `a/b/`  |
/// | `/a/b/c/./../../g` | `/a/g`  |
/// | `mid/content=5/../6` | `mid/6` |
///
/// Runs in time linear in `input.len()` (plus the amortised cost of growing `out`), even
/// for inputs made of a very large number of `../` or `./` segments.
pub fn remove_dot_segments(input: &str, out: &mut String) {
    let mut buf = Output::new(out);
    let rest = leading(input, &mut buf);
    buf.segments(rest, true);
}

/// Computes `remove_dot_segments(dir + reference)` without building the concatenation.
///
/// `dir` must be empty or end with `/` (it is the "all but the last segment of the base
/// URI's path" part of the merge of RFC 3986 §5.2.3). Used by reference resolution so
/// that the merged path never has to be materialised.
pub(crate) fn remove_dot_segments_merged(dir: &str, reference: &str, out: &mut String) {
    debug_assert!(dir.is_empty() || dir.ends_with('/'));
    // Rule A on the part of the input that lies in `dir`.
    let mut d = dir;
    loop {
        if let Some(r) = d.strip_prefix("../") {
            d = r;
        } else if let Some(r) = d.strip_prefix("./") {
            d = r;
        } else {
            break;
        }
    }
    if d.is_empty() {
        // All of `dir` was consumed by rule A: the input is now `reference` alone, still
        // in the leading position where rules A and D apply.
        remove_dot_segments(reference, out);
        return;
    }
    let mut buf = Output::new(out);
    // `d` is non-empty and ends with '/', so it is neither `.` nor `..` (rule D) and, if
    // rootless, its first segment ends inside `d` (rule E).
    if !d.starts_with('/') {
        let k = memchr::memchr(b'/', d.as_bytes()).unwrap_or(d.len());
        buf.out.push_str(&d[..k]);
        d = &d[k..];
    }
    // Every segment of `d` before its trailing '/' is complete (and not the last of the
    // input); the trailing '/' opens the segment that continues with `reference`.
    buf.segments(&d[..d.len() - 1], false);
    let k = memchr::memchr(b'/', reference.as_bytes()).unwrap_or(reference.len());
    let (first, tail) = reference.split_at(k);
    buf.segment(first, tail.is_empty());
    buf.segments(tail, true);
}

/// Whether the syntax rung removes the dot segments of `path` (RFC 3986 §6.2.2.3, §5.2.4):
/// in an absolute reference, one with an authority, or an absolute path, as resolution would
/// clean them. A relative-path reference keeps its dots, whose meaning depends on the base.
#[inline]
pub fn removes_dot_segments(absolute: bool, has_authority: bool, path: &str) -> bool {
    absolute || has_authority || path.starts_with('/')
}

/// Returns `true` if some segment of `path` (the pieces between `/` characters) is exactly
/// `.` or `..`, that is, if `remove_dot_segments` (RFC 3986 §5.2.4) could change it.
///
/// When this returns `false`, `remove_dot_segments(path)` appends `path` unchanged, so the
/// rewrite can be skipped. `.a`, `..a`, `...` and `%2E` do not count.
pub fn has_dot_segments(path: &str) -> bool {
    let b = path.as_bytes();
    let mut from = 0;
    while let Some(k) = find(b'.', &b[from..]) {
        let i = from + k;
        from = i + 1;
        if i > 0 && b[i - 1] != b'/' {
            continue;
        }
        // `i` starts a segment with a '.'; it is a dot segment if it is `.` or `..`.
        let mut j = i + 1;
        if j < b.len() && b[j] == b'.' {
            j += 1;
        }
        if j == b.len() || b[j] == b'/' {
            return true;
        }
    }
    false
}

/// The output buffer of the algorithm: `out` plus the position where the path starts.
struct Output<'o> {
    out: &'o mut String,
    start: usize,
}

impl<'o> Output<'o> {
    fn new(out: &'o mut String) -> Self {
        let start = out.len();
        Output { out, start }
    }

    /// Rule C's "remove the last segment and its preceding `/` (if any)", never reaching
    /// into the prefix that `out` held before. Scans only the bytes it removes.
    fn pop(&mut self) {
        let tail = &self.out.as_bytes()[self.start..];
        let cut = memchr::memrchr(b'/', tail).unwrap_or(0);
        self.out.truncate(self.start + cut);
    }

    /// Handles one segment `seg` (without its leading `/`) that was preceded by a `/` in
    /// the input; `last` tells whether it ends the input.
    ///
    /// * `.`: rule B (`/./` → `/`, or `/.` → `/` and then rule E on that `/` if last).
    /// * `..`: rule C (the same, after removing the last output segment).
    /// * otherwise: rule E moves `/seg` to the output.
    fn segment(&mut self, seg: &str, last: bool) {
        match seg {
            "." => {
                if last {
                    self.out.push('/');
                }
            }
            ".." => {
                self.pop();
                if last {
                    self.out.push('/');
                }
            }
            _ => {
                self.out.push('/');
                self.out.push_str(seg);
            }
        }
    }

    /// Handles `rest`, which is empty or starts with `/`, segment by segment. `is_final`
    /// tells whether the end of `rest` is the end of the input.
    fn segments(&mut self, mut rest: &str, is_final: bool) {
        while !rest.is_empty() {
            // Segments other than `.` and `..` move as they are (rule E), all at once.
            let Some(at) = first_dot_segment(rest.as_bytes()) else {
                self.out.push_str(rest);
                return;
            };
            if at > 0 {
                self.out.push_str(&rest[..at]);
            }
            // `rest[at..]` is `/.` or `/..`, then a `/` or the end.
            let end = if rest.as_bytes().get(at + 2) == Some(&b'.') {
                at + 3
            } else {
                at + 2
            };
            let next = &rest[end..];
            self.segment(&rest[at + 1..end], is_final && next.is_empty());
            rest = next;
        }
    }
}

/// Where the first segment of `rest` (which starts with `/`) that is exactly `.` or `..`
/// begins: the index of its `/`.
#[inline]
fn first_dot_segment(rest: &[u8]) -> Option<usize> {
    let mut from = 1;
    while let Some(i) = find(b'.', &rest[from..]) {
        let dot = from + i;
        from = dot + 1;
        if rest[dot - 1] != b'/' {
            continue;
        }
        let end = if rest.get(dot + 1) == Some(&b'.') {
            dot + 2
        } else {
            dot + 1
        };
        if rest.get(end).map_or(true, |&b| b == b'/') {
            return Some(dot - 1);
        }
    }
    None
}

/// The leading part of the algorithm, where the input does not start with `/`: rule A
/// (`../`, `./`), rule D (`.`, `..`) and rule E for a first, rootless segment. Returns what
/// is left of the input, which is empty or starts with `/`; from there on only rules B, C
/// and E can apply.
fn leading<'i>(mut input: &'i str, buf: &mut Output<'_>) -> &'i str {
    loop {
        if let Some(r) = input.strip_prefix("../") {
            input = r;
        } else if let Some(r) = input.strip_prefix("./") {
            input = r;
        } else if input == "." || input == ".." {
            return "";
        } else {
            break;
        }
    }
    if input.starts_with('/') {
        return input;
    }
    let k = find(b'/', input.as_bytes()).unwrap_or(input.len());
    buf.out.push_str(&input[..k]);
    &input[k..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A deliberately naive, literal transcription of RFC 3986 §5.2.4 (quadratic; for
    /// checking only).
    fn literal(input: &str) -> String {
        let mut input = input.to_string();
        let mut output = String::new();
        while !input.is_empty() {
            if input.starts_with("../") {
                input.replace_range(..3, "");
            } else if input.starts_with("./") {
                input.replace_range(..2, "");
            } else if input.starts_with("/./") {
                input.replace_range(..3, "/");
            } else if input == "/." {
                input = "/".to_string();
            } else if input.starts_with("/../") || input == "/.." {
                if input == "/.." {
                    input = "/".to_string();
                } else {
                    input.replace_range(..4, "/");
                }
                match output.rfind('/') {
                    Some(i) => output.truncate(i),
                    None => output.clear(),
                }
            } else if input == "." || input == ".." {
                input.clear();
            } else {
                let from = usize::from(input.starts_with('/'));
                let end = input[from..].find('/').map_or(input.len(), |i| i + from);
                output.push_str(&input[..end]);
                input.replace_range(..end, "");
            }
        }
        output
    }

    fn rds(input: &str) -> String {
        let mut out = String::new();
        remove_dot_segments(input, &mut out);
        out
    }

    #[test]
    fn rfc_worked_examples() {
        // RFC 3986 §5.2.4, the two step-by-step examples.
        assert_eq!(rds("/a/b/c/./../../g"), "/a/g");
        assert_eq!(rds("mid/content=5/../6"), "mid/6");
    }

    #[test]
    fn edge_cases() {
        let cases = [
            ("", ""),
            (".", ""),
            ("..", ""),
            ("./", ""),
            ("../", ""),
            ("/", "/"),
            ("/.", "/"),
            ("/..", "/"),
            ("/./", "/"),
            ("/../", "/"),
            ("a/..", "/"),
            ("a/../b", "/b"),
            ("/a/b/../../..", "/"),
            ("/a/b/../../../", "/"),
            ("./a", "a"),
            ("../a", "a"),
            ("../../a/./b", "a/b"),
            ("a/./b/.", "a/b/"),
            ("a/./b/./", "a/b/"),
            ("/a/.", "/a/"),
            ("/a/..", "/"),
            ("/a/b/..", "/a/"),
            ("/a/b/../", "/a/"),
            ("//", "//"),
            ("//..", "/"),
            ("/.//x", "//x"),
            (".//x", "/x"),
            ("a//../b", "a/b"),
            // Not dot segments.
            (".a", ".a"),
            ("..a", "..a"),
            ("...", "..."),
            ("/a./b../.c/..d", "/a./b../.c/..d"),
            ("%2E", "%2E"),
            ("/%2E/%2e%2E/x", "/%2E/%2e%2E/x"),
            ("/a/%2E%2E", "/a/%2E%2E"),
        ];
        for (input, want) in cases {
            assert_eq!(rds(input), want, "input {input:?}");
            assert_eq!(literal(input), want, "literal on {input:?}");
        }
    }

    #[test]
    fn keeps_prefix() {
        let mut out = String::from("http://host");
        remove_dot_segments("/../../a/../..", &mut out);
        assert_eq!(out, "http://host/");
        let mut out = String::from("x/y");
        remove_dot_segments("..", &mut out);
        assert_eq!(out, "x/y");
        let mut out = String::from("x/y");
        remove_dot_segments("b/..", &mut out);
        assert_eq!(out, "x/y/");
    }

    #[test]
    fn linear_on_many_dot_segments() {
        let n = 100_000;
        let t = std::time::Instant::now();
        assert_eq!(rds(&"../".repeat(n)), "");
        assert_eq!(rds(&format!("{}g", "../".repeat(n))), "g");
        assert_eq!(rds(&"./".repeat(n)), "");
        assert_eq!(rds(&"/..".repeat(n)), "/");
        assert_eq!(rds(&"/.".repeat(n)), "/");
        assert_eq!(rds(&format!("{}{}", "/a".repeat(n), "/..".repeat(n))), "/");
        assert_eq!(rds(&format!("/{}", "b/".repeat(n))).len(), 2 * n + 1);
        let mut out = String::from("http://h");
        remove_dot_segments(&format!("/x{}", "/../".repeat(n)), &mut out);
        assert_eq!(out, "http://h/");
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30), // a quadratic walk would take far longer; not a speed claim
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn has_dot_segments_examples() {
        for p in [
            ".", "..", "/.", "/..", "./a", "../a", "a/.", "a/..", "a/./b", "//./",
        ] {
            assert!(has_dot_segments(p), "{p:?}");
        }
        for p in [
            "", "/", "a", ".a", "..a", "...", "a.", "a..", "/a./b", "%2E", "/%2E%2E/",
        ] {
            assert!(!has_dot_segments(p), "{p:?}");
        }
    }

    #[test]
    fn merged_examples() {
        let m = |d: &str, r: &str| {
            let mut out = String::new();
            remove_dot_segments_merged(d, r, &mut out);
            out
        };
        assert_eq!(m("/b/c/", "../g"), "/b/g");
        assert_eq!(m("/b/c/", "."), "/b/c/");
        assert_eq!(m("/b/c/", ".."), "/b/");
        assert_eq!(m("/b/", "..//x"), "//x");
        assert_eq!(m("./", ".."), "");
        assert_eq!(m("../a/", "b"), "a/b");
        assert_eq!(m("", "g"), "g");
        assert_eq!(m("/", ".//x"), "//x");
    }

    /// Paths over a small alphabet that makes dot segments, `%2E` and empty segments likely.
    fn path_strategy() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("/"),
                Just("."),
                Just(".."),
                Just("a"),
                Just("b."),
                Just("%2E"),
                Just("é"),
            ],
            0..24,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn matches_literal_algorithm(p in path_strategy()) {
            prop_assert_eq!(rds(&p), literal(&p));
        }

        #[test]
        fn no_dot_segments_means_unchanged(p in path_strategy()) {
            if !has_dot_segments(&p) {
                prop_assert_eq!(rds(&p), p.clone());
            }
            let naive = p.split('/').any(|s| s == "." || s == "..");
            prop_assert_eq!(has_dot_segments(&p), naive);
        }

        #[test]
        fn no_dot_segments_arbitrary(p in "[/.a%2E]{0,30}|\\PC{0,20}") {
            if !has_dot_segments(&p) {
                prop_assert_eq!(rds(&p), p.clone());
            }
            prop_assert_eq!(rds(&p), literal(&p));
        }

        #[test]
        fn merged_matches_concatenation(d in path_strategy(), r in path_strategy()) {
            // Make `d` a merge directory: empty or ending with '/'.
            let d = match d.rfind('/') { Some(i) => d[..=i].to_string(), None => String::new() };
            let mut out = String::from("pre");
            remove_dot_segments_merged(&d, &r, &mut out);
            prop_assert_eq!(out, format!("pre{}", literal(&format!("{d}{r}"))));
        }

        #[test]
        fn prefix_untouched(pre in "[a-z/:]{0,8}", p in path_strategy()) {
            let mut out = pre.clone();
            remove_dot_segments(&p, &mut out);
            prop_assert_eq!(out, format!("{pre}{}", literal(&p)));
        }
    }
}
