//! What the tests of every backend share: the checks that a backend agrees with the
//! portable reference.

use super::authority::is_lowercase_ldh_host;
use super::blocks::Blocks;
use super::scalar;
use super::tail::{look, scan_tail, scan_tail_reference};
use super::{Backend, FastPath};
use crate::iri::scheme::lookup;
use crate::iri::test_rng::Rng;
use crate::ladder::{Form, Level, Options};

/// The masks of `lanes` are those of the scalar reference: every byte value in every
/// position, random blocks, at the start of a text, further on and at its end.
pub(super) fn blocks_agree_with_the_scalar_reference<L: Blocks + std::fmt::Debug>(lanes: L) {
    let w = L::WIDTH;
    let check = |c: &[u8]| {
        // The block at the start of a text, further on, and at its end (where line feeds
        // follow the text).
        let mut text = b"0123456789".to_vec();
        text.extend_from_slice(c);
        let mut end = c[w / 2..].to_vec();
        end.resize(w, b'\n');
        for (b, i, bytes) in [
            (c, 0, c),
            (&text[..], 10, c),
            (&text[..], 10 + w / 2, &end[..]),
        ] {
            let at = format!("{lanes:?} {bytes:?}");
            // Each choice of the classes the scan may look for.
            let want = |looks| scalar::tail_masks(bytes, looks);
            assert_eq!(lanes.tail_masks::<0>(b, i), want(0), "{at}");
            assert_eq!(
                lanes.tail_masks::<{ look::MARKS }>(b, i),
                want(look::MARKS),
                "{at}"
            );
            assert_eq!(lanes.host_masks(b, i), scalar::host_masks(bytes), "{at}");
            for x in [b'(', b'&', b'=', b'\n', 0x80, 0xff] {
                let want = scalar::mask_of(bytes, |c| c == x);
                assert_eq!(lanes.eq_mask(b, i, x), want, "{at} {x}");
            }
            let capitals = scalar::mask_of(bytes, |c| c.is_ascii_uppercase());
            assert_eq!(lanes.capitals(b, i), capitals, "{at}");
        }
    };
    for x in 0..=255u8 {
        for k in 0..w {
            let mut c = vec![b'a'; w];
            c[k] = x;
            check(&c);
        }
    }
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..20_000 {
        check(&rng.bytes(w, b"azAZ(&=09-._~/?#%:@[]\n\r\t \\\"<>{|}^`\x7f\xc3\xa9"));
    }
    // A text that ends inside the block, at every length, and a block past its end: line
    // feeds after the text.
    for _ in 0..200 {
        let c = rng.bytes(w, b"az09-._~/?#%:@[]\n\r\t \\\"<>{|}^`\x7f\xc3\xa9");
        for cut in 0..=w {
            let mut bytes = c[..cut].to_vec();
            bytes.resize(w, b'\n');
            for (b, i) in [(&c[..cut], 0), (&c[..cut], cut + 1)] {
                let want = if i == 0 {
                    &bytes[..]
                } else {
                    &[b'\n'; 64][..w]
                };
                let plain = scalar::tail_masks(want, 0);
                assert_eq!(lanes.tail_masks::<0>(b, i), plain, "{lanes:?} {b:?} at {i}");
                let marks = scalar::tail_masks(want, look::MARKS);
                let got = lanes.tail_masks::<{ look::MARKS }>(b, i);
                assert_eq!(got, marks, "{lanes:?} {b:?} at {i}");
                let host = scalar::host_masks(want);
                assert_eq!(lanes.host_masks(b, i), host, "{lanes:?} {b:?} at {i}");
            }
        }
    }
}

/// The scan of a path, query and fragment with `lanes` is the plain reference's.
pub(super) fn tail_scans_agree_with_the_reference<L: Blocks + std::fmt::Debug>(lanes: L) {
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    for len in 0..150 {
        for _ in 0..200 {
            // Often a stop early, or (mostly) none before the end: tails over many blocks.
            let bytes = if len % 2 == 0 {
                rng.bytes(len, b"ab/./a.\n%#/?xQ\xc3\xa9 \r\n")
            } else {
                rng.bytes_from(len, b"ab/./a.%/?x_-~:@!$&'()*+,;=ABCDEFG", len % 4 == 1)
            };
            for from in [0, len / 4, len / 2, len] {
                assert_eq!(
                    scan_tail::<_, 0>(lanes, &bytes, from),
                    scan_tail_reference(&bytes, from, 0),
                    "{lanes:?} {bytes:?} from {from}"
                );
                assert_eq!(
                    scan_tail::<_, { look::MARKS }>(lanes, &bytes, from),
                    scan_tail_reference(&bytes, from, look::MARKS),
                    "{lanes:?} {bytes:?} from {from}"
                );
            }
        }
    }
}

/// The DNS authorities `lanes` takes are exactly the lowercase LDH hosts below 64 bytes.
pub(super) fn dns_authorities_agree_with_the_full_host_check<L: Blocks + std::fmt::Debug>(
    lanes: L,
) {
    let f = FastPath::new(&Options::default());
    let http = lookup("http").unwrap();
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for len in 0..70 {
        for _ in 0..200 {
            let mut a = rng.bytes_from(len, b"ab0.-x-n.", false);
            a.push(b'/');
            let fast = f.dns_authority(lanes, &a, 0, Some(http), false).map(|e| {
                assert_eq!((e.host, e.ldh), (e.end, true));
                e.end
            });
            let host = &a[..len];
            let want = host.is_empty() || is_lowercase_ldh_host(host);
            // Authorities of 64 bytes or more are left to the full ladder.
            let expect = (want && len < 64).then_some(len);
            assert_eq!(fast, expect, "{lanes:?} {:?}", String::from_utf8_lossy(&a));
        }
    }
}

/// [`FastPath::accepts_lines`] with `backend` is [`FastPath::accepts_line`] one line at a
/// time, stopping at the first line that fails, is too long, or does not end in a line
/// feed alone.
pub(super) fn runs_of_lines_are_what_line_by_line_gives(backend: Backend) {
    let reference = |f: &FastPath, rest: &str, max_line: usize| {
        let (mut at, mut lines) = (0, 0u64);
        while let Some(n) = f.accepts_line(&rest[at..]) {
            if n > max_line || rest.as_bytes().get(at + n) != Some(&b'\n') {
                break;
            }
            at += n + 1;
            lines += 1;
        }
        (at, lines)
    };
    let pieces = [
        "http://a.example/b\n",
        "https://example.com/x?y=1#z\n",
        "http://a.example/\r\n",
        "HTTP://A/\n",
        "http://a/b\n",
        "\n",
        "a/b\n",
        "http://a.example/a-rather-long-path/that/goes/on/and/on/for/a/while.html\n",
        "http://a.example/no-line-feed",
        "x y\n",
        "http://a.example/\u{e9}t\u{e9}\n",
        "https://a.example/%C3%A9/\u{65e5}\u{672c}?q=\u{e9}\n",
    ];
    let mut rng = Rng(0x5EED_0F11_E5E5);
    for options in [
        Options::default(),
        Options::default().with_level(Level::String),
        // The `iri` form takes raw non-ASCII text: lines cut after it.
        Options::default().with_form(Form::Iri),
    ] {
        let f = FastPath {
            backend,
            ..FastPath::new(&options)
        };
        for _ in 0..3000 {
            let count = (rng.next() % 12) as usize;
            let text: String = (0..count)
                .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
                .collect();
            for max_line in [10, 40, 1 << 20] {
                let want = reference(&f, &text, max_line);
                let got = f.accepts_lines(&text, max_line);
                assert_eq!(got, want, "{backend:?} {text:?} {max_line}");
            }
        }
        assert_eq!(f.off().accepts_lines("http://a/b\n", 100), (0, 0));
    }
}
