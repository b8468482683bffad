//! The compatibility profiles (`wayback@1`, `w3lib@1`) on any bytes: no panic; a record
//! holding a NUL is the error `nul`; a refused record's column lies within the record (or is
//! 0); the key the engine's entry gives equals the explained key (the plain writer and the
//! tracing one are the same code); the same record gives the same key twice (no state left
//! in the thread's scratch buffers).

#![no_main]

use std::sync::OnceLock;

use irinorm::{Compat, ErrorKind, Normalizer, Notes, Options, RawLine, Repair};
use libfuzzer_sys::fuzz_target;

fn profiles() -> &'static [Normalizer; 2] {
    static SET: OnceLock<[Normalizer; 2]> = OnceLock::new();
    SET.get_or_init(|| {
        [Compat::Wayback1, Compat::W3lib1].map(|c| {
            let o = Options::default()
                .with_level(irinorm::Level::Protocol)
                .with_form(c.form())
                .with_compat(Some(c));
            Normalizer::new(o).expect("a compatibility profile")
        })
    })
}

fuzz_target!(|data: &[u8]| {
    // A record has no line feed.
    let raw = data.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = RawLine {
        bytes: raw,
        text: std::str::from_utf8(raw).ok(),
        repair: Repair::Lenient,
    };
    // A column counts units: a character, or one octet that is not part of valid UTF-8.
    let units: usize = raw
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum();
    for n in profiles() {
        let (mut key, mut again, mut notes) = (String::new(), String::new(), Notes::default());
        let r = n.normalize_raw_into(line, &mut key, &mut notes, false);
        let r2 = n.normalize_raw_into(line, &mut again, &mut notes, false);
        assert_eq!(r, r2, "twice, {raw:?}");
        assert_eq!(key, again, "twice, {raw:?}");
        let explained = n.explain_bytes(raw);
        match (&r, &explained) {
            (Ok(()), Ok(e)) => assert_eq!(e.key, key, "explain, {raw:?}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "explain, {raw:?}"),
            _ => panic!("normalize {r:?} but explain {explained:?} for {raw:?}"),
        }
        if raw.contains(&0) {
            assert_eq!(r.as_ref().map_err(|e| e.kind), Err(ErrorKind::Nul), "{raw:?}");
        }
        if let Err(e) = &r {
            assert!(e.column <= units.max(1) + 1, "column {} of {raw:?}", e.column);
        }
    }
});
