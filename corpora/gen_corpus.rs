//! `gen_corpus`: writes groups of equivalent spellings of URLs and IRIs, with near-misses,
//! as ground truth for the scheme rung of the comparison ladder (SPEC §4), and large plain
//! corpora for benchmarks.
//!
//! ```text
//! cargo run --release --example gen_corpus -- [--groups N] [--seed S] [--plain] > FILE
//! ```
//!
//! Each group starts from one base URL: a scheme among http, https, ws, wss and ftp; an ASCII
//! host, an IDN host (Latin with diacritics, Greek, Cyrillic, Arabic, Hebrew, Devanagari,
//! Chinese, Japanese, Korean, Thai), an IPv4 or an IPv6 literal; sometimes userinfo and a
//! port; a path, a query and a fragment with words in those scripts and emoji.
//!
//! ## Output (default): one line per spelling, tab-separated
//!
//! ```text
//! group_id<TAB>kind<TAB>iri
//! ```
//!
//! - `group_id`: `g0001`, `g0002`, … The lines of a group are adjacent.
//! - `kind` `eq`: a member of the group. Every member of a group must get the same key at
//!   `--level scheme`, in both forms. Members are the base spelled with transforms that keep
//!   the key: scheme case, host case (IDN hosts too), percent-encoded unreserved characters
//!   (`%7E`, `%41`, `%2D`, `%2E` inside a segment), lowercase hex in encodings that stay,
//!   raw or percent-encoded non-ASCII in userinfo, path, query and fragment, dot segments
//!   (`/./`, `/x/../`, and their encoded forms `%2E`, `%2E%2E`), the default port written
//!   (`:80`, `:0080`) or a port with leading zeros, an empty port (`:`), an empty path for
//!   `/`, the host as U-labels, A-labels (`xn--…`), percent-encoded UTF-8 or a mix of them,
//!   U+3002 as a label separator, and IPv6 literals with leading zeros, uppercase hex or
//!   another `::`.
//! - `kind` `miss:<what>`: a near-miss. Its key must differ from the key of its group and
//!   from the key of every other group. `<what>` is one of: `path-case` (one ASCII letter of
//!   the path in the other case), `trailing-slash` (added or removed), `pct-slash` (a `/` of
//!   the path as `%2F`), `pct-amp` (a `&` of the query as `%26`), `pct-equals` (a `=` of the
//!   query as `%3D`), `port` (another port), `scheme` (http and https, ws and wss swapped;
//!   ftp as http), `empty-query` (`?` added), `empty-fragment` (`#` added), `query-order`
//!   (two parameters swapped), `nfd` (one path character in NFD instead of NFC: NFC is not
//!   applied), `www` (`www.` added to the host), `host-dot` (a trailing dot added to the
//!   host: removing it is a protocol-rung rule), `pct25` (`%25XX` for a character XX, or an
//!   encoding encoded again: `%252F`). A near-miss is spelled with some of the members'
//!   transforms too.
//!
//! Every line is a valid IRI (no repair needed). With one seed the output is the same on
//! every platform (a SplitMix64 generator, no outside randomness).
//!
//! ## Options
//!
//! - `--groups N`: the number of groups (default 500).
//! - `--seed S`: the seed (default 3987).
//! - `--plain`: only the spellings, one per line, without ground truth, the lines of each 64
//!   groups shuffled together (a benchmark corpus: `--plain --groups 1000000` writes about
//!   nine million lines).
//!
//! ## Checked-in files (regenerate both when the generator changes; the tests compare)
//!
//! - `corpora/groups.tsv`: `--groups 500 --seed 3987`, read by `tests/generated_groups.rs`.
//! - `corpora/sample.txt`: `--plain --groups 400 --seed 3986`, the sample of the README and
//!   the input of `tests/golden/generated.tsv`.

#[path = "gen_lib.rs"]
mod gen_lib;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: gen_corpus [--groups N] [--seed S] [--plain]
  --groups N   number of groups (default 500)
  --seed S     seed of the generator (default 3987)
  --plain      write only the IRIs, one per line (benchmark corpus)
Default output: group_id<TAB>kind<TAB>iri, kind `eq` or `miss:<what>`.";

fn main() -> ExitCode {
    let mut groups = gen_lib::DEFAULT_GROUPS;
    let mut seed = gen_lib::DEFAULT_SEED;
    let mut plain = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
            None => (a.clone(), None),
        };
        match name.as_str() {
            "--plain" if inline.is_none() => plain = true,
            "--groups" | "--seed" => {
                let Some(v) = inline.or_else(|| args.next()) else {
                    eprintln!("gen_corpus: {name} needs a value\n{USAGE}");
                    return ExitCode::from(2);
                };
                let Ok(n) = v.parse::<u64>() else {
                    eprintln!("gen_corpus: {name}: not a number: {v}\n{USAGE}");
                    return ExitCode::from(2);
                };
                if name == "--groups" {
                    groups = n as usize;
                } else {
                    seed = n;
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!("gen_corpus: unknown argument {a}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let stdout = io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    let r = if plain {
        gen_lib::write_plain(seed, groups, &mut w)
    } else {
        gen_lib::write_tsv(seed, groups, &mut w)
    }
    .and_then(|()| w.flush());
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            ExitCode::from(2)
        }
    }
}
