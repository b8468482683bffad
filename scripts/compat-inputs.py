#!/usr/bin/env python3
"""Writes URL-shaped lines for checking the compatibility profiles against their peers
(docs/compat-wayback.md, docs/compat-w3lib.md): the same seed gives the same lines.

    python3 scripts/compat-inputs.py --seed 1 --count 1000000 > /tmp/compat-1M.txt

Each line is built from parts drawn at random, most of them odd on purpose: scheme in odd
case, missing or repeated (`http://http://`), userinfo, hosts (`www`/`www2` labels, IDN and
other non-ASCII names, Punycode, percent-encoded, IPv4 in decimal, octal, hex and short
forms, IPv6 with zones, empty and long labels, stray dots), ports (empty, default, zero,
huge, non-numeric), paths (dot segments, `%25`, `%2F`, `%26`, invalid `%`, non-ASCII,
ASP.NET session segments), queries (empty and repeated parameters, session ids, `cfid`
and `cftoken`, `=` in values), fragments, and spaces, tabs, vertical tabs and form feeds
around and inside. A line never holds NUL, `\\n` or `\\r`; about one line in 200 holds
bytes that are not UTF-8 (so the output is bytes: read it in binary).
"""
import argparse
import random
import sys

SCHEMES = [
    "http://", "http://", "http://", "https://", "https://", "HTTP://", "Https://", "hTtP://",
    "", "", "//", "http:", "http:/", "http:///", "http:////", "http://http://", "https://http://",
    "http://https://", "ftp://", "FTP://", "dns:", "mailto:", "file://", "file:///", "ws://",
    "javascript:", "data:text/plain,", "urn:isbn:", "a+b.c-d://", "1http://", "-x://",
    "httpfoo://", "http:\\\\", "HTTP:////",
]
TLDS = ["com", "org", "net", "de", "co.uk", "jp", "COM", "xn--p1ai", "рф", "中国", "museum", "a"]
WORDS = ["example", "Example", "foo", "bar", "a", "b-c", "x_y", "test", "bücher", "münchen",
         "日本語", "ελληνικά", "עברית", "العربية", "☃", "ＡＢＣ", "faß", "İstanbul", "xn--bcher-kva",
         "xn--", "xn--ü", "%41", "%2e", "%e4%b8%ad", "%C3%BC", "%25", "a%2Eb", "%zz", "%",
         "www", "WWW", "www2", "www10", "wwwx", "ww", "s p", "\u00ad", "\u200b", "ǅ", "ﬀ",
         "\u0301e", "e\u0301", "\u05d01\u05d1", "\u05d0a", "１２３", "\u3002", "\uff0e", "a\u3002b",
         "l" * 63, "m" * 64, "n" * 70, "ü" * 30, "0", "123", "~", "!$&'()*+,;="]
PREFIXES = ["", "", "", "", "www.", "www.", "WWW.", "www2.", "www3.", "www10.", "wwwx.", "www.www.",
            "ftp.", "m.", ".", "..", "www..", "www"]


def host(r):
    k = r.random()
    if k < 0.55:
        labels = [r.choice(WORDS) for _ in range(r.choice([1, 1, 1, 2, 3]))]
        name = r.choice(PREFIXES) + ".".join(labels) + "." + r.choice(TLDS)
        if r.random() < 0.05:
            name += "."
        if r.random() < 0.03:
            name = name.replace(".", "..", 1)
        if r.random() < 0.1:
            name = "".join(c.upper() if r.random() < 0.3 else c for c in name)
        return name
    if k < 0.75:
        return ipv4(r)
    if k < 0.82:
        return r.choice(["[::1]", "[2001:db8::1]", "[2001:DB8::A]", "[fe80::1%25eth0]",
                         "[fe80::1%eth0]", "[::ffff:1.2.3.4]", "[::]", "[", "[::1", "a[b]c",
                         "[v1.x]", "[1:2:3:4:5:6:7:8]", "[::1]x"])
    if k < 0.86:
        return ""
    if k < 0.93:
        return "".join(r.choice("abcXYZ019.-_%~!$&'()*+,;=:@[] \u00e9\u4e2d") for _ in
                       range(r.randrange(1, 12)))
    return r.choice(["localhost", "LOCALHOST", "a", "-", ".", "..", "...", "com", "www.",
                     "www1", "www.com", "a.b.c.d.e.f", "0", "00", "1.", ".1"])


def ipv4(r):
    k = r.random()
    parts = [r.choice([0, 1, 10, 127, 192, 168, 255, 256, 300, 999, 4294967295, 4294967296,
                       r.randrange(256)]) for _ in range(4)]
    if k < 0.3:
        return ".".join(str(p) for p in parts)
    if k < 0.4:
        return str(r.choice([0, 1, 2130706433, 3232235777, 4294967295, 4294967296,
                             99999999999999999999, r.randrange(2 ** 40)]))
    if k < 0.55:
        n = r.choice([1, 2, 3, 4, 5])
        return ".".join(r.choice(["0", "00", "01", "017", "0177", "08", "09", "0377", "0400",
                                  "07777777777", "037777777777", "040000000000"]) for _ in range(n))
    if k < 0.65:
        return ".".join(r.choice(["0x7f", "0X7F", "0xff", "0x", "0x100", "1", "0"]) for _ in
                        range(r.choice([1, 2, 4])))
    if k < 0.85:
        n = r.choice([1, 2, 3, 4, 5])
        return ".".join(str(r.choice([1, 2, 10, 127, 255, 256, 65535, 65536, 16777215,
                                      16777216, 4294967295, r.randrange(1000)]))
                        for _ in range(n))
    return r.choice(["1.2.3.4.", ".1.2.3.4", "1..2.3", "1.2.3.4%0a", "1.2.3.04", "01.02.03.04",
                     "1.2.3.4:", "%31.2.3.4", "1.2.3.4\u3002", "１.２.３.４", "0.0.0.0", "1e2"])


def port(r):
    k = r.random()
    if k < 0.75:
        return ""
    return r.choice([":", ":80", ":443", ":8080", ":0", ":00", ":00080", ":0443", ":65535",
                     ":65536", ":99999999999", ":abc", ":8a", ": 80", ":-1", ":+1", ":\u0663",
                     "::", ":80:", ":21", ":1"])


def userinfo(r):
    if r.random() < 0.92:
        return ""
    return r.choice(["user@", "user:pass@", "u%40x:p@", "@", ":@", "a@b@", "User:P%41SS@",
                     "ü:ß@", "a:b:c@", "x:y@www."])


SEGMENTS = ["a", "B", "Index.HTML", "..", ".", "", "%2F", "%2f", "%25", "%252F", "%2525",
            "%26", "%3F", "%23", "%zz", "%", "%4", "%41", "%7E", "~user", "ü", "%C3%BC", "日本",
            "a b", "a%20b", "+", "x;y=z", ";jsessionid=0123456789ABCDEF0123456789ABCDEF",
            "(S(abcdefghijklmnopqrstuvwx))", "(abcdefghijklmnopqrstuvwx)",
            "(a(abcdefghijklmnopqrstuvwx)b(0123456789abcdefghijklmn))",
            "(X(ABCDEFGHIJKLMNOPQRSTUVWX))", "page.aspx", "Default.ASPX", "x.aspx?y",
            "%2e", "%2e%2e", ".%2E", "\\", "a\\b", "\u200b", "\uff0f", "%00", "%0a", "%09",
            "#", "?", "&", "="]


def path(r):
    k = r.random()
    if k < 0.15:
        return ""
    if k < 0.3:
        return "/"
    segs = [r.choice(SEGMENTS) if r.random() < 0.5 else rword(r) for _ in
            range(r.choice([1, 1, 2, 3, 4, 6]))]
    p = "/" + "/".join(segs)
    if r.random() < 0.2:
        p += "/"
    return p


def rword(r):
    return "".join(r.choice("abcdefghijKLMNOPxyz0123456789-_.~") for _ in range(r.randrange(1, 10)))


def alnum(r, n, letters_only=False):
    pool = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if not letters_only:
        pool += "0123456789"
    return "".join(r.choice(pool) for _ in range(n))


def param(r):
    k = r.random()
    if k < 0.08:
        return "jsessionid=" + alnum(r, r.choice([32, 32, 31, 33]))
    if k < 0.12:
        return "PHPSESSID=" + alnum(r, 32)
    if k < 0.16:
        return r.choice(["sid", "SID", "Sid", "xsid"]) + "=" + alnum(r, r.choice([32, 32, 20]))
    if k < 0.19:
        return "ASPSESSIONID" + alnum(r, 8, True) + "=" + alnum(r, r.choice([24, 24, 23]), True)
    if k < 0.22:
        return "cfid=" + rword(r) + "&cftoken=" + r.choice([rword(r), ""])
    if k < 0.27:
        return r.choice(["", "=", "a", "a=", "=b", "a=b=c", "a==b", "&"])
    name = r.choice(["a", "A", "b", "B", "q", "Q", "utm_source", "id", "ID", "x", "page",
                     "%41", "a%26b", "a%3Db", "ü", "%C3%BC", "a+b", "a b", "z", "aa", "a.b"])
    value = r.choice(["1", "2", "10", "", "X", "x", "hello world", "a%20b", "%2525", "%26",
                      "%3D", "ü", "%E4%B8%AD", "a+b", "%zz", "%", "/path?x", "#", "Ä"]
                     + [rword(r)])
    return name + "=" + value if r.random() < 0.9 else name


def query(r):
    k = r.random()
    if k < 0.45:
        return ""
    if k < 0.5:
        return "?"
    params = [param(r) for _ in range(r.choice([1, 1, 2, 3, 4, 6]))]
    if r.random() < 0.1:
        params.append(params[0])
    sep = "&&" if r.random() < 0.05 else "&"
    return "?" + sep.join(params)


def fragment(r):
    if r.random() < 0.85:
        return ""
    return r.choice(["#", "#frag", "#Frag?x=1", "#a#b", "#%20", "#ü", "#/path", "#?"])


def spaces(r, url):
    k = r.random()
    if k < 0.9:
        return url
    if k < 0.93:
        return r.choice([" ", "  ", "\t", " \t", "\x0b", "\x0c"]) + url
    if k < 0.96:
        return url + r.choice([" ", "\t", "\x0b", " \x0c"])
    at = r.randrange(len(url) + 1)
    return url[:at] + r.choice(["\t", " ", "\x0b"]) + url[at:]


def url(r):
    k = r.random()
    if k < 0.03:
        # A soup of printable ASCII and a few others.
        return "".join(r.choice("abcAB01:/?#[]@!$&'()*+,;=%.-_~ \t\u00e9")
                       for _ in range(r.randrange(0, 30)))
    if k < 0.035:
        return r.choice(["", " ", "\t", "filedesc://x.arc", "filedesc:a", "http", "http:", ":",
                         "/", "//", "?", "#", "?a=1", "#x", "%", "www", "dns:x", "mailto:"])
    scheme = r.choice(SCHEMES)
    u = scheme + userinfo(r) + host(r) + port(r) + path(r) + query(r) + fragment(r)
    return spaces(r, u)


def not_utf8(r, line):
    at = r.randrange(len(line) + 1)
    return line[:at] + r.choice([b"\xff", b"\xc3", b"\xe4\xb8", b"\x80", b"%\xff", b"\xed\xa0\x80"]) + line[at:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    args = ap.parse_args()
    r = random.Random(args.seed)
    out = sys.stdout.buffer
    for _ in range(args.count):
        line = url(r).encode("utf-8")
        if r.random() < 0.005:
            line = not_utf8(r, line)
        line = line.replace(b"\0", b"").replace(b"\n", b"").replace(b"\r", b"")
        out.write(line + b"\n")


if __name__ == "__main__":
    main()
