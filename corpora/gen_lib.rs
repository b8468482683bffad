//! The logic of the corpus generator, shared by the `gen_corpus` example (which writes the
//! files) and by `tests/generated_groups.rs` (which regenerates groups in memory with other
//! seeds). Only `std` is used, so that the expected results do not come from the library under
//! test: the A-labels are computed by a small Punycode encoder (RFC 3492), the IPv6 text form
//! by RFC 5952's rules, and the NFD near-misses by a small table of canonical decompositions.
//!
//! A group is built from one base URL, held as a model ([`Url`]) whose text is canonical at
//! the scheme rung in the IRI form (lowercase scheme, U-label host, no default port, no dot
//! segments, uppercase hex only for encodings that must stay). Equivalent spellings are
//! renderings of that model with equivalence-preserving transforms; near-misses are renderings
//! of a model changed in one meaningful place (and then spelled with some of the same
//! transforms, so they do not look cleaner than the members).

#![allow(dead_code)]

use std::collections::HashSet;
use std::io::{self, Write};

/// The seed of `corpora/groups.tsv`.
pub const DEFAULT_SEED: u64 = 3987;
/// The number of groups of `corpora/groups.tsv`.
pub const DEFAULT_GROUPS: usize = 500;
/// The seed of `corpora/sample.txt` (`--plain`).
pub const SAMPLE_SEED: u64 = 3986;
/// The number of groups of `corpora/sample.txt` (`--plain`).
pub const SAMPLE_GROUPS: usize = 400;

// ---------------------------------------------------------------------------------------
// A small deterministic PRNG (SplitMix64).

/// SplitMix64: tiny, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0);
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p` percent.
    pub fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Word and host tables. Every entry is lowercase where it is a host, and NFC everywhere
// (checked by the tests).

struct Script {
    name: &'static str,
    /// Path, query and fragment words.
    words: &'static [&'static str],
    /// Hosts in their canonical U-label form (UTS #46 mapped: lowercase, NFC).
    hosts: &'static [&'static str],
}

const ASCII_HOSTS: &[&str] = &[
    "example.com",
    "www.example.org",
    "en.wikipedia.org",
    "api.github.com",
    "news.ycombinator.com",
    "cdn.shop-online.co.uk",
    "docs.rs",
    "mail.google.com",
    "static.example.net",
    "blog.example.io",
    "ftp.gnu.org",
    "archive.org",
    "maps.example.jp",
    "forum.example.de",
    "data.gov.example",
    "img1.photos-cdn.example",
];

const ASCII_WORDS: &[&str] = &[
    "wiki",
    "Main_Page",
    "index.html",
    "~user",
    "a-b_c",
    "2024",
    "products",
    "search",
    "docs",
    "v1.2.3",
    "README.md",
    "news",
    "blog",
    "item-42",
    "en",
    "api",
    "static",
    "img",
    "page-2",
    "~admin",
    "Special:Search",
    "Foo_(bar)",
    "Article",
    "users",
    "Download",
    "pub",
    "gnu",
    "release-notes",
    "CHANGELOG",
    "space%20here",
    "group%2Fproject",
    "C%2B%2B",
    "100%25_pure",
];

const SCRIPTS: &[Script] = &[
    Script {
        name: "ascii",
        words: ASCII_WORDS,
        hosts: &[],
    },
    Script {
        name: "latin",
        words: &[
            "café",
            "über-uns",
            "Ångström",
            "señor",
            "naïve",
            "São_Paulo",
            "Zürich",
            "Kraków",
            "crème-brûlée",
            "déjà-vu",
            "Bücher",
            "Ölfarbe",
            "straße",
            "Dvořák",
            "Łódź",
            "Málaga",
            "français",
            "Ærø",
        ],
        hosts: &[
            "bücher.de",
            "müller.example",
            "café.fr",
            "españa.com",
            "zürich.ch",
            "kraków.pl",
            "straße.de",
            "árvíztűrő.hu",
            "ñandú.com.ar",
            "dvořák.cz",
        ],
    },
    Script {
        name: "greek",
        words: &[
            "Ελλάδα",
            "φιλοσοφία",
            "Αθήνα",
            "ιστορία",
            "καλημέρα",
            "Θεσσαλονίκη",
            "Ομηρος",
        ],
        hosts: &["παράδειγμα.δοκιμή", "ελλάδα.gr", "αθήνα.ελ"],
    },
    Script {
        name: "cyrillic",
        words: &[
            "статьи",
            "новости",
            "Москва",
            "Россия",
            "ёлка",
            "Київ",
            "йогурт",
            "библиотека",
        ],
        hosts: &["пример.испытание", "москва.рф", "київ.укр", "новости.рф"],
    },
    Script {
        name: "arabic",
        words: &[
            "مقالة",
            "أخبار",
            "القاهرة",
            "آداب",
            "مرحبا",
            "كتاب",
            "مسؤول",
        ],
        hosts: &["مثال.إختبار", "موقع.مصر", "كتب.امارات"],
    },
    Script {
        name: "hebrew",
        words: &["מאמר", "ירושלים", "שלום", "חדשות", "ספרים"],
        hosts: &["דוגמה.ישראל", "ספרים.ישראל"],
    },
    Script {
        name: "devanagari",
        words: &["नमस्ते", "हिन्दी", "समाचार", "भारत", "पुस्तक"],
        hosts: &["उदाहरण.परीक्षा", "मिसाल.भारत", "समाचार.भारत"],
    },
    Script {
        name: "cjk",
        words: &["中文", "页面", "北京", "東京", "漢字", "新闻", "维基百科"],
        hosts: &["例子.测试", "中文网.中国", "北京大学.中国", "東京.jp"],
    },
    Script {
        name: "kana",
        words: &[
            "ひらがな",
            "カタカナ",
            "ニュース",
            "がっこう",
            "ブログ",
            "さくら",
            "ぱん",
            "デザイン",
        ],
        hosts: &["例え.テスト", "ドメイン名例.jp", "さくら.jp", "がっこう.jp"],
    },
    Script {
        name: "korean",
        words: &["한국어", "서울", "뉴스", "안녕하세요", "위키백과"],
        hosts: &["실례.테스트", "한국.kr", "서울.한국"],
    },
    Script {
        name: "thai",
        words: &["ภาษาไทย", "ข่าว", "กรุงเทพ", "สวัสดี"],
        hosts: &["ตัวอย่าง.ไทย", "ไทย.th"],
    },
    Script {
        name: "emoji",
        words: &["😀", "🎉", "🚀", "❤️", "🇯🇵", "👍🏽", "☕", "party-🎉"],
        hosts: &[],
    },
];

const QUERY_KEYS: &[&str] = &[
    "q",
    "lang",
    "page",
    "id",
    "sort",
    "ref",
    "utm_source",
    "s",
    "title",
    "action",
    "next",
    "tag",
    "v",
    "hl",
];

/// Query values with encodings that must stay (reserved characters, `%`, space) or with
/// characters that are reserved but allowed raw in a query.
const QUERY_SPECIAL: &[&str] = &[
    "hello%20world",
    "%2Faccount%2Fsettings",
    "/account/settings",
    "a%3Db",
    "50%25",
    "x%26y",
    "a+b",
    "",
    "Q%3F",
    "path/to?x",
    "€%20and%20more",
];

const FRAGMENT_WORDS: &[&str] = &[
    "top",
    "section-2",
    "History",
    "Geschichte",
    "cite_note-3",
    "L42",
    "%2Fapp%2Fhome",
];

const PORTS: &[u16] = &[8080, 8443, 8000, 3000, 81, 8888, 2121, 9090];

/// Every word of the tables (for the tests).
pub fn all_words() -> Vec<&'static str> {
    let mut v: Vec<&str> = SCRIPTS
        .iter()
        .flat_map(|s| s.words.iter().copied())
        .collect();
    v.extend(QUERY_SPECIAL.iter().copied());
    v.extend(FRAGMENT_WORDS.iter().copied());
    v
}

/// Every host of the tables, with its A-label form computed here (for the tests).
pub fn all_hosts() -> Vec<(&'static str, String)> {
    SCRIPTS
        .iter()
        .flat_map(|s| s.hosts.iter().copied())
        .chain(ASCII_HOSTS.iter().copied())
        .map(|h| {
            let labels: Vec<String> = h.split('.').map(str::to_owned).collect();
            (
                h,
                labels
                    .iter()
                    .map(|l| a_label(l))
                    .collect::<Vec<_>>()
                    .join("."),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Punycode (RFC 3492 §6.3) and A-labels.

fn punycode(input: &[char]) -> String {
    const BASE: u32 = 36;
    const TMIN: u32 = 1;
    const TMAX: u32 = 26;
    fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
        delta /= if first { 700 } else { 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - TMIN) * TMAX) / 2 {
            delta /= BASE - TMIN;
            k += BASE;
        }
        k + (BASE - TMIN + 1) * delta / (delta + 38)
    }
    fn digit(d: u32) -> char {
        if d < 26 {
            (b'a' + d as u8) as char
        } else {
            (b'0' + (d - 26) as u8) as char
        }
    }
    let mut out: String = input.iter().filter(|c| c.is_ascii()).collect();
    let basic = out.len() as u32;
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (128u32, 0u32, 72u32);
    let total = input.len() as u32;
    while handled < total {
        let m = input
            .iter()
            .map(|&c| c as u32)
            .filter(|&c| c >= n)
            .min()
            .unwrap();
        delta += (m - n) * (handled + 1);
        n = m;
        for &c in input {
            let c = c as u32;
            if c < n {
                delta += 1;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        TMIN
                    } else if k >= bias + TMAX {
                        TMAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    out
}

/// The A-label of a canonical (lowercase, NFC) label; an ASCII label is returned as it is.
fn a_label(label: &str) -> String {
    if label.is_ascii() {
        label.to_owned()
    } else {
        let chars: Vec<char> = label.chars().collect();
        format!("xn--{}", punycode(&chars))
    }
}

// ---------------------------------------------------------------------------------------
// Canonical decompositions (one level) of the composed characters the words use.

const DECOMP: &[(char, char, char)] = &[
    ('à', 'a', '\u{300}'),
    ('á', 'a', '\u{301}'),
    ('â', 'a', '\u{302}'),
    ('ã', 'a', '\u{303}'),
    ('ä', 'a', '\u{308}'),
    ('å', 'a', '\u{30A}'),
    ('ç', 'c', '\u{327}'),
    ('è', 'e', '\u{300}'),
    ('é', 'e', '\u{301}'),
    ('ê', 'e', '\u{302}'),
    ('ë', 'e', '\u{308}'),
    ('í', 'i', '\u{301}'),
    ('ï', 'i', '\u{308}'),
    ('ñ', 'n', '\u{303}'),
    ('ó', 'o', '\u{301}'),
    ('ô', 'o', '\u{302}'),
    ('ö', 'o', '\u{308}'),
    ('ú', 'u', '\u{301}'),
    ('û', 'u', '\u{302}'),
    ('ü', 'u', '\u{308}'),
    ('ű', 'u', '\u{30B}'),
    ('ő', 'o', '\u{30B}'),
    ('ř', 'r', '\u{30C}'),
    ('ź', 'z', '\u{301}'),
    ('Å', 'A', '\u{30A}'),
    ('Ö', 'O', '\u{308}'),
    ('Ü', 'U', '\u{308}'),
    ('ά', 'α', '\u{301}'),
    ('έ', 'ε', '\u{301}'),
    ('ή', 'η', '\u{301}'),
    ('ί', 'ι', '\u{301}'),
    ('ό', 'ο', '\u{301}'),
    ('ύ', 'υ', '\u{301}'),
    ('ώ', 'ω', '\u{301}'),
    ('й', 'и', '\u{306}'),
    ('ё', 'е', '\u{308}'),
    ('ї', 'і', '\u{308}'),
    ('آ', 'ا', '\u{653}'),
    ('أ', 'ا', '\u{654}'),
    ('إ', 'ا', '\u{655}'),
    ('ؤ', 'و', '\u{654}'),
];

/// The canonical decomposition of `c` (one level; Hangul syllables algorithmically, kana
/// with (semi-)voiced sound marks by their code layout), if it has one in this small table.
pub fn decompose(c: char) -> Option<Vec<char>> {
    let u = c as u32;
    if (0xAC00..=0xD7A3).contains(&u) {
        let s = u - 0xAC00;
        let l = 0x1100 + s / 588;
        let v = 0x1161 + (s % 588) / 28;
        let t = s % 28;
        let mut out = vec![char::from_u32(l)?, char::from_u32(v)?];
        if t != 0 {
            out.push(char::from_u32(0x11A7 + t)?);
        }
        return Some(out);
    }
    for base in [0x3000u32, 0x3060] {
        // Hiragana at 0x304B.., katakana 0x60 above.
        let h = u.wrapping_sub(base);
        let voiced = 0x3099;
        let pair = if ((0x4C..=0x62).contains(&h) && h % 2 == 0) || [0x65, 0x67, 0x69].contains(&h)
        {
            Some((u - 1, voiced))
        } else if (0x70..=0x7D).contains(&h) {
            match (h - 0x6F) % 3 {
                1 => Some((u - 1, voiced)),
                2 => Some((u - 2, 0x309A)),
                _ => None,
            }
        } else {
            None
        };
        if let Some((b, m)) = pair {
            return Some(vec![char::from_u32(b)?, char::from_u32(m)?]);
        }
    }
    DECOMP
        .iter()
        .find(|(k, _, _)| *k == c)
        .map(|&(_, b, m)| vec![b, m])
}

// ---------------------------------------------------------------------------------------
// The model.

/// One character of a component: a character written as it is, or an octet that must stay
/// percent-encoded (a reserved character, `%`, or one that URIs do not allow raw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    C(char),
    P(u8),
}

fn toks(s: &str) -> Vec<Tok> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if b[i] == b'%' {
            let v = u8::from_str_radix(&s[i + 1..i + 3], 16).expect("hex in table");
            assert!(
                !is_unreserved(v as char),
                "table holds an encoded unreserved octet: {s}"
            );
            out.push(Tok::P(v));
            i += 3;
        } else {
            let c = s[i..].chars().next().unwrap();
            out.push(Tok::C(c));
            i += c.len_utf8();
        }
    }
    out
}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Host {
    /// Labels in canonical U-label form.
    Name(Vec<String>),
    V4([u8; 4]),
    V6([u16; 8]),
}

/// A URL whose canonical rendering ([`Url::canonical`]) is its key at the scheme rung in the
/// IRI form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    scheme: &'static str,
    user: Option<Vec<Tok>>,
    host: Host,
    /// Never the scheme's default port.
    port: Option<u16>,
    /// Segments: the path is `/` + each segment; `[[]]` is the path `/`.
    path: Vec<Vec<Tok>>,
    query: Option<Vec<Tok>>,
    fragment: Option<Vec<Tok>>,
}

fn default_port(scheme: &str) -> u16 {
    match scheme {
        "http" | "ws" => 80,
        "https" | "wss" => 443,
        "ftp" => 21,
        _ => unreachable!("scheme {scheme}"),
    }
}

fn push_hex(out: &mut String, b: u8, lower: bool) {
    const UP: &[u8; 16] = b"0123456789ABCDEF";
    const LO: &[u8; 16] = b"0123456789abcdef";
    let t = if lower { LO } else { UP };
    out.push('%');
    out.push(t[(b >> 4) as usize] as char);
    out.push(t[(b & 15) as usize] as char);
}

fn canon_toks(t: &[Tok], out: &mut String) {
    for &tok in t {
        match tok {
            Tok::C(c) => out.push(c),
            Tok::P(b) => push_hex(out, b, false),
        }
    }
}

/// RFC 5952 §4: lowercase, no leading zeros, the longest run (the first of equal ones) of
/// two or more zero groups as `::`.
fn ipv6_canonical(g: &[u16; 8]) -> String {
    let (mut best, mut best_len) = (8, 0);
    let mut i = 0;
    while i < 8 {
        if g[i] == 0 {
            let start = i;
            while i < 8 && g[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    if best_len < 2 {
        best_len = 0;
        best = 8;
    }
    ipv6_text(g, best, best_len, |x| format!("{x:x}"))
}

/// Writes the groups with `::` in place of `g[start..start + len]` (none when `len == 0`).
fn ipv6_text(g: &[u16; 8], start: usize, len: usize, f: impl Fn(u16) -> String) -> String {
    let parts = |r: &[u16]| r.iter().map(|&x| f(x)).collect::<Vec<_>>().join(":");
    if len == 0 {
        parts(g)
    } else {
        format!("{}::{}", parts(&g[..start]), parts(&g[start + len..]))
    }
}

impl Url {
    /// The key of every spelling of this URL at the scheme rung, IRI form.
    pub fn canonical(&self) -> String {
        let mut s = String::new();
        s.push_str(self.scheme);
        s.push_str("://");
        if let Some(u) = &self.user {
            canon_toks(u, &mut s);
            s.push('@');
        }
        match &self.host {
            Host::Name(l) => s.push_str(&l.join(".")),
            Host::V4(a) => s.push_str(&format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])),
            Host::V6(g) => s.push_str(&format!("[{}]", ipv6_canonical(g))),
        }
        if let Some(p) = self.port {
            s.push_str(&format!(":{p}"));
        }
        for seg in &self.path {
            s.push('/');
            canon_toks(seg, &mut s);
        }
        if let Some(q) = &self.query {
            s.push('?');
            canon_toks(q, &mut s);
        }
        if let Some(f) = &self.fragment {
            s.push('#');
            canon_toks(f, &mut s);
        }
        s
    }

    fn text_toks(&self) -> impl Iterator<Item = &Tok> {
        self.user
            .iter()
            .flatten()
            .chain(self.path.iter().flatten())
            .chain(self.query.iter().flatten())
            .chain(self.fragment.iter().flatten())
    }
}

// ---------------------------------------------------------------------------------------
// Base URLs.

fn random_words(rng: &mut Rng, script: &Script, n: usize) -> Vec<&'static str> {
    (0..n)
        .map(|_| {
            if rng.percent(60) {
                *rng.pick(script.words)
            } else {
                *rng.pick(ASCII_WORDS)
            }
        })
        .collect()
}

fn random_url(rng: &mut Rng) -> Url {
    let scheme = *rng.pick(&[
        "http", "http", "http", "https", "https", "https", "https", "ws", "wss", "ftp", "ftp",
    ]);
    let script = rng.pick(SCRIPTS);
    let r = rng.below(100);
    let host = if r < 4 {
        let mut g = [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0];
        for x in g.iter_mut().skip(2) {
            if rng.percent(45) {
                *x = if rng.percent(50) {
                    rng.below(16) as u16
                } else {
                    rng.next_u64() as u16
                };
            }
        }
        Host::V6(g)
    } else if r < 7 {
        Host::V4([192, 0, 2, rng.range(1, 254) as u8])
    } else if !script.hosts.is_empty() && rng.percent(60) {
        Host::Name(
            rng.pick(script.hosts)
                .split('.')
                .map(str::to_owned)
                .collect(),
        )
    } else {
        Host::Name(
            rng.pick(ASCII_HOSTS)
                .split('.')
                .map(str::to_owned)
                .collect(),
        )
    };
    let user = if (scheme == "ftp" && rng.percent(30)) || rng.percent(3) {
        const USERS: &[&str] = &["anonymous", "user", "user:secret", "Jane.Doe"];
        let name = USERS[rng.below(USERS.len())];
        Some(toks(name))
    } else {
        None
    };
    let port = if rng.percent(12) {
        Some(*rng.pick(PORTS))
    } else {
        None
    };
    let mut path = Vec::new();
    if rng.percent(12) {
        path.push(Vec::new());
    } else {
        let n = rng.range(1, 4);
        for w in random_words(rng, script, n) {
            path.push(toks(w));
        }
        if rng.percent(20) {
            path.push(Vec::new());
        }
    }
    let query = if rng.percent(45) {
        None
    } else {
        let mut keys: Vec<&str> = QUERY_KEYS.to_vec();
        rng.shuffle(&mut keys);
        let n = rng.range(1, 4);
        let mut q = String::new();
        for (i, k) in keys[..n].iter().enumerate() {
            if i > 0 {
                q.push('&');
            }
            q.push_str(k);
            q.push('=');
            let v = match rng.below(10) {
                0..=3 => random_words(rng, script, 1)[0].to_owned(),
                4..=5 => rng.below(10_000).to_string(),
                6..=7 => (*rng.pick(QUERY_SPECIAL)).to_owned(),
                _ => random_words(rng, script, 2).join("+"),
            };
            q.push_str(&v);
        }
        Some(toks(&q))
    };
    let fragment = if rng.percent(20) {
        let w = if rng.percent(50) {
            *rng.pick(FRAGMENT_WORDS)
        } else {
            random_words(rng, script, 1)[0]
        };
        Some(toks(w))
    } else {
        None
    };
    Url {
        scheme,
        user,
        host,
        port,
        path,
        query,
        fragment,
    }
}

// ---------------------------------------------------------------------------------------
// Spellings: the transforms that keep the key at the scheme rung.

const SCHEME_CASE: u32 = 1 << 0;
const HOST_CASE: u32 = 1 << 1;
const PCT_UNRESERVED: u32 = 1 << 2;
const HEX_LOWER: u32 = 1 << 3;
const NON_ASCII_PCT: u32 = 1 << 4;
const DOTS: u32 = 1 << 5;
const PORT_EXPLICIT: u32 = 1 << 6;
const EMPTY_PORT: u32 = 1 << 7;
const EMPTY_PATH: u32 = 1 << 8;
const HOST_FORM: u32 = 1 << 9;
const V6_FORM: u32 = 1 << 10;

/// The transforms that can change a rendering of `u`.
fn applicable(u: &Url) -> u32 {
    let mut f = SCHEME_CASE | DOTS | PORT_EXPLICIT;
    if let Host::Name(labels) = &u.host {
        f |= HOST_FORM;
        if labels
            .iter()
            .any(|l| l.chars().any(|c| upper_of(c).is_some()))
        {
            f |= HOST_CASE;
        }
    }
    if matches!(u.host, Host::V6(_)) {
        f |= V6_FORM;
    }
    if u.text_toks()
        .any(|t| matches!(t, Tok::C(c) if is_unreserved(*c)))
    {
        f |= PCT_UNRESERVED;
    }
    if u.text_toks()
        .any(|t| matches!(t, Tok::P(b) if (b >> 4) > 9 || (b & 15) > 9))
    {
        f |= HEX_LOWER;
    }
    if u.text_toks()
        .any(|t| matches!(t, Tok::C(c) if !c.is_ascii()))
    {
        f |= NON_ASCII_PCT;
    }
    if u.port.is_none() {
        f |= EMPTY_PORT;
    }
    if u.path == [Vec::<Tok>::new()] {
        f |= EMPTY_PATH;
    }
    f
}

/// The uppercase of `c` when it is one character that lowercases back to `c`.
fn upper_of(c: char) -> Option<char> {
    let mut up = c.to_uppercase();
    let u = up.next()?;
    if up.next().is_some() || u == c {
        return None;
    }
    let mut down = u.to_lowercase();
    (down.next() == Some(c) && down.next().is_none()).then_some(u)
}

fn case_mix(s: &str, rng: &mut Rng) -> String {
    s.chars()
        .map(|c| match upper_of(c) {
            Some(u) if rng.percent(50) => u,
            _ => c,
        })
        .collect()
}

/// Percent-encodes every octet of `c`; `style` 0: uppercase hex, 1: lowercase, 2: mixed.
fn pct_char(c: char, style: usize, rng: &mut Rng, out: &mut String) {
    let mut buf = [0u8; 4];
    for &b in c.encode_utf8(&mut buf).as_bytes() {
        let lower = match style {
            0 => false,
            1 => true,
            _ => rng.percent(50),
        };
        push_hex(out, b, lower);
    }
}

struct Render<'r> {
    rng: &'r mut Rng,
    flags: u32,
    /// Hex case of new encodings (see [`pct_char`]).
    style: usize,
    /// Encode every non-ASCII character (else some).
    all_non_ascii: bool,
}

impl Render<'_> {
    fn on(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    fn toks(&mut self, t: &[Tok], out: &mut String) {
        for &tok in t {
            match tok {
                Tok::C(c) if !c.is_ascii() => {
                    if self.on(NON_ASCII_PCT) && (self.all_non_ascii || self.rng.percent(50)) {
                        pct_char(c, self.style, self.rng, out);
                    } else {
                        out.push(c);
                    }
                }
                Tok::C(c) if is_unreserved(c) => {
                    if self.on(PCT_UNRESERVED) && self.rng.percent(25) {
                        pct_char(c, self.style, self.rng, out);
                    } else {
                        out.push(c);
                    }
                }
                Tok::C(c) => out.push(c),
                Tok::P(b) => {
                    let lower = self.on(HEX_LOWER) && self.rng.percent(75);
                    push_hex(out, b, lower);
                }
            }
        }
    }

    fn host(&mut self, h: &Host, out: &mut String) {
        match h {
            Host::Name(labels) => self.name(labels, out),
            Host::V4(a) => out.push_str(&format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])),
            Host::V6(g) => {
                out.push('[');
                if self.on(V6_FORM) {
                    let pad = self.rng.below(3);
                    let upper = self.rng.percent(50);
                    let fmt = |x: u16| {
                        let s = match pad {
                            0 => format!("{x:x}"),
                            1 => format!("{x:04x}"),
                            _ => format!("{x:02x}"),
                        };
                        if upper {
                            s.to_ascii_uppercase()
                        } else {
                            s
                        }
                    };
                    // `::` for any run of zero groups (RFC 4291 §2.2: "one or more"), or none.
                    let runs: Vec<(usize, usize)> = zero_runs(g);
                    let text = if runs.is_empty() || self.rng.percent(30) {
                        ipv6_text(g, 0, 0, fmt)
                    } else {
                        let (s, l) = *self.rng.pick(&runs);
                        let l = self.rng.range(1, l);
                        ipv6_text(g, s, l, fmt)
                    };
                    out.push_str(&text);
                } else {
                    out.push_str(&ipv6_canonical(g));
                }
                out.push(']');
            }
        }
    }

    fn name(&mut self, labels: &[String], out: &mut String) {
        #[derive(Clone, Copy, PartialEq)]
        enum Mode {
            Raw,
            ALabel,
            Pct,
            Mixed,
            FullStop,
            FullWidth,
        }
        let idn = labels.iter().any(|l| !l.is_ascii());
        let mode = if !self.on(HOST_FORM) {
            Mode::Raw
        } else if idn {
            *self.rng.pick(&[
                Mode::ALabel,
                Mode::ALabel,
                Mode::Pct,
                Mode::Mixed,
                Mode::Mixed,
                Mode::FullStop,
                Mode::FullWidth,
            ])
        } else {
            *self
                .rng
                .pick(&[Mode::Pct, Mode::Pct, Mode::FullStop, Mode::FullWidth])
        };
        for (i, label) in labels.iter().enumerate() {
            if i > 0 {
                // U+3002 IDEOGRAPHIC FULL STOP, U+FF0E FULLWIDTH FULL STOP and U+FF61
                // HALFWIDTH IDEOGRAPHIC FULL STOP are label separators (RFC 3490 §3.1; UTS #46
                // maps them to `.`).
                if mode == Mode::FullStop && self.rng.percent(70) {
                    out.push(
                        *self
                            .rng
                            .pick(&['\u{3002}', '\u{3002}', '\u{FF0E}', '\u{FF61}']),
                    );
                } else {
                    out.push('.');
                }
            }
            let text = if self.on(HOST_CASE) {
                case_mix(label, self.rng)
            } else {
                label.clone()
            };
            let m = if mode == Mode::Mixed {
                *self
                    .rng
                    .pick(&[Mode::Raw, Mode::ALabel, Mode::Pct, Mode::FullWidth])
            } else {
                mode
            };
            match m {
                Mode::ALabel if !label.is_ascii() => {
                    let a = a_label(label);
                    let a = if self.on(HOST_CASE) {
                        case_mix(&a, self.rng)
                    } else {
                        a
                    };
                    // An A-label with some of its letters percent-encoded (`%78n--…`).
                    let pct = mode == Mode::Mixed && self.rng.percent(40);
                    for c in a.chars() {
                        if pct && self.rng.percent(25) {
                            pct_char(c, self.style, self.rng, out);
                        } else {
                            out.push(c);
                        }
                    }
                }
                Mode::Pct => {
                    for c in text.chars() {
                        if !c.is_ascii() || self.rng.percent(30) {
                            pct_char(c, self.style, self.rng, out);
                        } else {
                            out.push(c);
                        }
                    }
                }
                Mode::FullWidth => {
                    // UTS #46 maps fullwidth ASCII letters and digits (U+FF10–U+FF5A) to ASCII.
                    for c in text.chars() {
                        if c.is_ascii_alphanumeric() && self.rng.percent(50) {
                            out.push(char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap());
                        } else {
                            out.push(c);
                        }
                    }
                }
                _ => out.push_str(&text),
            }
        }
    }

    fn url(&mut self, u: &Url) -> String {
        let mut s = String::new();
        if self.on(SCHEME_CASE) {
            s.push_str(&case_mix(u.scheme, self.rng));
        } else {
            s.push_str(u.scheme);
        }
        s.push_str("://");
        if let Some(user) = &u.user {
            self.toks(user, &mut s);
            s.push('@');
        }
        self.host(&u.host, &mut s);
        let zeros = "0".repeat(self.rng.range(1, 2));
        match u.port {
            Some(p) if self.on(PORT_EXPLICIT) => s.push_str(&format!(":{zeros}{p}")),
            Some(p) => s.push_str(&format!(":{p}")),
            None if self.on(PORT_EXPLICIT) => {
                let zeros = if self.rng.percent(50) { "" } else { &zeros };
                s.push_str(&format!(":{zeros}{}", default_port(u.scheme)));
            }
            None if self.on(EMPTY_PORT) => s.push(':'),
            None => {}
        }
        let root_only = u.path == [Vec::<Tok>::new()];
        if !(self.on(EMPTY_PATH) && root_only) {
            let mut segs: Vec<Result<&[Tok], &str>> = u.path.iter().map(|s| Ok(&s[..])).collect();
            if self.on(DOTS) {
                for _ in 0..self.rng.range(1, 2) {
                    // Always before an existing segment, so a trailing slash is never made.
                    let at = self.rng.below(segs.len());
                    let w = *self.rng.pick(&["x", "tmp", "old", "a", "v0", "..."]);
                    let ins: &[&str] = match self.rng.below(7) {
                        0 => &["."],
                        1 => &["%2E"],
                        2 => &["%2e"],
                        3 => &[w, ".."],
                        4 => &[w, "%2E%2E"],
                        5 => &[w, ".%2e"],
                        _ => &[w, "%2E."],
                    };
                    for (k, d) in ins.iter().enumerate() {
                        segs.insert(at + k, Err(d));
                    }
                }
            }
            for seg in segs {
                s.push('/');
                match seg {
                    Ok(t) => self.toks(t, &mut s),
                    Err(lit) => s.push_str(lit),
                }
            }
        }
        if let Some(q) = &u.query {
            s.push('?');
            self.toks(q, &mut s);
        }
        if let Some(f) = &u.fragment {
            s.push('#');
            self.toks(f, &mut s);
        }
        s
    }
}

fn zero_runs(g: &[u16; 8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < 8 {
        if g[i] == 0 {
            let s = i;
            while i < 8 && g[i] == 0 {
                i += 1;
            }
            runs.push((s, i - s));
        } else {
            i += 1;
        }
    }
    runs
}

/// Picks a random subset of `avail` (each with probability `p` percent; at least one when
/// `at_least_one`), with conflicting transforms resolved.
fn pick_flags(rng: &mut Rng, avail: u32, p: usize, at_least_one: bool) -> u32 {
    let mut f = 0;
    for bit in 0..11 {
        if avail & (1 << bit) != 0 && rng.percent(p) {
            f |= 1 << bit;
        }
    }
    if f == 0 && at_least_one {
        let bits: Vec<u32> = (0..11).filter(|b| avail & (1 << b) != 0).collect();
        f = 1 << rng.pick(&bits);
    }
    if f & PORT_EXPLICIT != 0 && f & EMPTY_PORT != 0 {
        f &= if rng.percent(50) {
            !PORT_EXPLICIT
        } else {
            !EMPTY_PORT
        };
    }
    f
}

fn render(rng: &mut Rng, u: &Url, flags: u32) -> String {
    let style = rng.below(3);
    let all_non_ascii = rng.percent(60);
    Render {
        rng,
        flags,
        style,
        all_non_ascii,
    }
    .url(u)
}

// ---------------------------------------------------------------------------------------
// Near-misses: one meaningful change to the model.

/// The kinds of near-miss, as written after `miss:`.
pub const MISS_KINDS: &[&str] = &[
    "path-case",
    "trailing-slash",
    "pct-slash",
    "pct-amp",
    "pct-equals",
    "port",
    "scheme",
    "empty-query",
    "empty-fragment",
    "query-order",
    "nfd",
    "www",
    "host-dot",
    "pct25",
];

/// Positions `(segment, index)` of path characters that satisfy `f`.
fn path_positions(u: &Url, f: impl Fn(Tok) -> bool) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for (i, seg) in u.path.iter().enumerate() {
        for (j, &t) in seg.iter().enumerate() {
            if f(t) {
                v.push((i, j));
            }
        }
    }
    v
}

fn pick_some<'a, T>(rng: &mut Rng, xs: &'a [T]) -> Option<&'a T> {
    (!xs.is_empty()).then(|| rng.pick(xs))
}

fn replace_in_query(u: &Url, from: char, to: u8, rng: &mut Rng) -> Option<Url> {
    let q = u.query.as_ref()?;
    let at: Vec<usize> = (0..q.len()).filter(|&i| q[i] == Tok::C(from)).collect();
    if at.is_empty() {
        return None;
    }
    let mut m = u.clone();
    m.query.as_mut().unwrap()[*rng.pick(&at)] = Tok::P(to);
    Some(m)
}

fn make_miss(kind: &str, u: &Url, rng: &mut Rng) -> Option<Url> {
    let mut m = u.clone();
    match kind {
        "path-case" => {
            let at = path_positions(u, |t| matches!(t, Tok::C(c) if c.is_ascii_alphabetic()));
            let &(i, j) = pick_some(rng, &at)?;
            if let Tok::C(c) = u.path[i][j] {
                let f = if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                m.path[i][j] = Tok::C(f);
            }
        }
        "trailing-slash" => {
            if u.path == [Vec::<Tok>::new()] {
                return None;
            }
            if u.path.last().unwrap().is_empty() {
                m.path.pop();
            } else {
                m.path.push(Vec::new());
            }
        }
        "pct-slash" => {
            if u.path.len() < 2 {
                return None;
            }
            let i = rng.below(u.path.len() - 1);
            let next = m.path.remove(i + 1);
            m.path[i].push(Tok::P(b'/'));
            m.path[i].extend(next);
        }
        "pct-amp" => return replace_in_query(u, '&', b'&', rng),
        "pct-equals" => return replace_in_query(u, '=', b'=', rng),
        "port" => {
            let other: Vec<u16> = PORTS
                .iter()
                .copied()
                .filter(|&p| Some(p) != u.port)
                .collect();
            m.port = Some(*rng.pick(&other));
        }
        "scheme" => {
            m.scheme = match u.scheme {
                "http" => "https",
                "https" => "http",
                "ws" => "wss",
                "wss" => "ws",
                _ => "http",
            };
        }
        "empty-query" => {
            if u.query.is_some() {
                return None;
            }
            m.query = Some(Vec::new());
        }
        "empty-fragment" => {
            if u.fragment.is_some() {
                return None;
            }
            m.fragment = Some(Vec::new());
        }
        "query-order" => {
            let q = u.query.as_ref()?;
            let params: Vec<&[Tok]> = q.split(|&t| t == Tok::C('&')).collect();
            let swaps: Vec<usize> = (0..params.len().saturating_sub(1))
                .filter(|&i| params[i] != params[i + 1])
                .collect();
            if swaps.is_empty() {
                return None;
            }
            let mut params = params;
            let i = *rng.pick(&swaps);
            params.swap(i, i + 1);
            let joined = params.join(&Tok::C('&'));
            if &joined == q {
                return None;
            }
            m.query = Some(joined);
        }
        "nfd" => {
            let at = path_positions(u, |t| matches!(t, Tok::C(c) if decompose(c).is_some()));
            let &(i, j) = pick_some(rng, &at)?;
            let Tok::C(c) = u.path[i][j] else {
                return None;
            };
            let d = decompose(c)?;
            m.path[i].splice(j..j + 1, d.into_iter().map(Tok::C));
        }
        "host-dot" => match &mut m.host {
            // A fully qualified name: stripping the dot is a protocol-rung rule.
            Host::Name(labels) => labels.push(String::new()),
            _ => return None,
        },
        "www" => match &mut m.host {
            Host::Name(labels) if labels[0] != "www" => labels.insert(0, "www".to_owned()),
            _ => return None,
        },
        "pct25" => {
            // `%25XX` (a literal `%XX`) where the group has the character XX encodes, or a
            // second encoding of an existing `%XX` (`%252F`).
            let at = path_positions(u, |t| match t {
                Tok::C(c) => is_unreserved(c) || !c.is_ascii(),
                Tok::P(_) => true,
            });
            let &(i, j) = pick_some(rng, &at)?;
            let mut bytes = Vec::new();
            match u.path[i][j] {
                Tok::C(c) => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Tok::P(b) => bytes.push(b),
            }
            let mut rep = Vec::new();
            for b in bytes {
                let mut hex = String::new();
                push_hex(&mut hex, b, rng.percent(30));
                rep.push(Tok::P(b'%'));
                rep.extend(hex[1..].chars().map(Tok::C));
            }
            m.path[i].splice(j..j + 1, rep);
        }
        _ => unreachable!("miss kind {kind}"),
    }
    Some(m)
}

// ---------------------------------------------------------------------------------------
// Groups.

/// One spelling: its kind (`eq` or `miss:<what>`), its text, and the key the model says it
/// has at the scheme rung in the IRI form.
#[derive(Clone, Debug)]
pub struct Line {
    pub kind: String,
    pub iri: String,
    pub expect: String,
}

/// A group: the spellings of one URL, then its near-misses.
#[derive(Clone, Debug)]
pub struct Group {
    pub id: String,
    /// The key of every `eq` line (scheme rung, IRI form).
    pub key: String,
    pub lines: Vec<Line>,
}

/// Builds groups one at a time. With `unique`, no group's key equals another group's key or
/// any near-miss's key (this remembers every key, so it is off for large `--plain` runs,
/// which need no ground truth).
pub struct Generator {
    rng: Rng,
    next_id: usize,
    unique: bool,
    group_keys: HashSet<String>,
    miss_keys: HashSet<String>,
}

impl Generator {
    pub fn new(seed: u64, unique: bool) -> Generator {
        Generator {
            rng: Rng::new(seed),
            next_id: 1,
            unique,
            group_keys: HashSet::new(),
            miss_keys: HashSet::new(),
        }
    }

    pub fn group(&mut self) -> Group {
        let rng = &mut self.rng;
        let base = loop {
            let u = random_url(rng);
            let k = u.canonical();
            if !self.unique || (!self.group_keys.contains(&k) && !self.miss_keys.contains(&k)) {
                break u;
            }
        };
        let key = base.canonical();
        let avail = applicable(&base);
        let mut lines: Vec<Line> = Vec::new();
        let mut seen = HashSet::new();
        if rng.percent(50) {
            seen.insert(key.clone());
            lines.push(Line {
                kind: "eq".to_owned(),
                iri: key.clone(),
                expect: key.clone(),
            });
        }
        let members = rng.range(3, 7);
        let mut tries = 0;
        while lines.len() < members && tries < 40 {
            tries += 1;
            let flags = pick_flags(rng, avail, 40, true);
            let s = render(rng, &base, flags);
            if seen.insert(s.clone()) {
                lines.push(Line {
                    kind: "eq".to_owned(),
                    iri: s,
                    expect: key.clone(),
                });
            }
        }
        let mut kinds: Vec<&str> = MISS_KINDS.to_vec();
        rng.shuffle(&mut kinds);
        let want = rng.range(2, 4);
        let mut misses = 0;
        let mut miss_seen = HashSet::new();
        for kind in kinds {
            if misses == want {
                break;
            }
            let Some(m) = make_miss(kind, &base, rng) else {
                continue;
            };
            let mk = m.canonical();
            if mk == key
                || (self.unique && self.group_keys.contains(&mk))
                || !miss_seen.insert(mk.clone())
            {
                continue;
            }
            let flags = pick_flags(rng, applicable(&m), 30, false);
            let s = render(rng, &m, flags);
            lines.push(Line {
                kind: format!("miss:{kind}"),
                iri: s,
                expect: mk,
            });
            misses += 1;
        }
        if self.unique {
            self.group_keys.insert(key.clone());
            self.miss_keys.extend(miss_seen);
        }
        let id = format!("g{:04}", self.next_id);
        self.next_id += 1;
        Group { id, key, lines }
    }
}

/// The groups of a seed, with the uniqueness guarantees.
pub fn generate(seed: u64, groups: usize) -> Vec<Group> {
    let mut g = Generator::new(seed, true);
    (0..groups).map(|_| g.group()).collect()
}

/// Writes `group_id<TAB>kind<TAB>iri` lines.
pub fn write_tsv(seed: u64, groups: usize, w: &mut dyn Write) -> io::Result<()> {
    let mut g = Generator::new(seed, true);
    for _ in 0..groups {
        let group = g.group();
        for l in &group.lines {
            writeln!(w, "{}\t{}\t{}", group.id, l.kind, l.iri)?;
        }
    }
    Ok(())
}

/// Writes the spellings alone, one per line; the lines of each window of 64 groups are
/// shuffled together, so equivalent spellings are near each other but not adjacent.
pub fn write_plain(seed: u64, groups: usize, w: &mut dyn Write) -> io::Result<()> {
    const WINDOW: usize = 64;
    let mut g = Generator::new(seed, groups <= 100_000);
    let mut shuffle = Rng::new(seed ^ 0x5EED_5EED_5EED_5EED);
    let mut done = 0;
    while done < groups {
        let n = WINDOW.min(groups - done);
        let mut lines: Vec<String> = Vec::new();
        for _ in 0..n {
            lines.extend(g.group().lines.into_iter().map(|l| l.iri));
        }
        shuffle.shuffle(&mut lines);
        for l in &lines {
            writeln!(w, "{l}")?;
        }
        done += n;
    }
    Ok(())
}
