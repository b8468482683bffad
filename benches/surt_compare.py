#!/usr/bin/env python3
"""Compare irinorm's SURT keys with the `surt` Python package over the shared corpora.

Usage:
    pip install surt            # the Internet Archive's package (tested with 0.3.1)
    python3 benches/surt_compare.py [--dump DIR] [--variant V] [--examples N] [CORPUS ...]

Without --dump, the script first runs

    IRINORM_SURT_DUMP=DIR cargo test --release --test it surt::surts_over_the_corpora

which writes one JSON line per corpus line (../shared/corpora/*.txt) to DIR/<corpus>.jsonl:
the input, irinorm's scheme-rung key (uri form), and three SURTs of it:

    surt              the key as it is                       (--form surt)
    crawler_surt      after the crawler@1 profile            (--profile crawler --form surt)
    crawler_www_surt  after crawler@1 plus strip-www
    ia_like_surt      after the rules file of docs/surt.md    (closest to the package:
                      crawler@1 + strip-www + trailing-slash remove + sort-params)

It then computes `surt.surt(input)` with the package's defaults for every line and
compares it with the chosen variant (default: crawler_www_surt). Every difference is
explained, where possible, by the package behaviours listed in CLASSES: the script undoes
them one by one on irinorm's side (or applies them to both sides for the order- and
decoding-insensitive ones) until the two agree, then keeps only the classes that were
needed. Rows that no combination explains are reported as `unexplained`.

Nothing here is copied from the package: it is only called.
"""

import argparse
import collections
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse

try:
    import surt as surt_pkg
except ImportError:  # pragma: no cover
    sys.exit("the `surt` package is not installed: pip install surt")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = os.path.join(ROOT, "..", "shared", "corpora")


def split_surt(s):
    """(host part, rest) of a SURT without scheme; (None, s) when there is no ')'."""
    i = s.find(")")
    if i < 0:
        return None, s
    return s[:i], s[i + 1 :]


def join(host, rest):
    return rest if host is None else host + ")" + rest


def on_host(f):
    def g(s):
        host, rest = split_surt(s)
        if host is None:
            return s
        return join(f(host), rest)

    return g


def on_rest(f):
    def g(s):
        host, rest = split_surt(s)
        return join(host, f(rest))

    return g


IPV4 = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(:\d+)?$")


def reverse_ipv4(host):
    m = IPV4.match(host)
    if not m:
        return host
    return ",".join(reversed(m.groups()[:4])) + (m.group(5) or "")


def unbracket(host):
    return host.replace("[", "").replace("]", "")


def strip_root_label(host):
    # irinorm writes a trailing root dot as an empty first label: ",com,example".
    return re.sub(r"^,+", "", host)


def strip_www(host):
    name, _, port = host.partition(":")
    labels = name.split(",")
    while len(labels) > 1 and re.fullmatch(r"www\d*", labels[-1]):
        labels.pop()
    return ",".join(labels) + (":" + port if port else "")


def drop_fragment(rest):
    return rest.split("#", 1)[0]


def drop_empty_query(rest):
    path, q, query = rest.partition("?")
    return path if q and query == "" else rest


def strip_trailing_slash(rest):
    path, q, query = rest.partition("?")
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    return path + q + query


def empty_path_slash(rest):
    return "/" + rest if rest == "" or rest.startswith("?") else rest


def collapse_slashes(rest):
    path, q, query = rest.partition("?")
    return re.sub(r"/{2,}", "/", path) + q + query


def sort_query(rest):
    path, q, query = rest.partition("?")
    if not q:
        return rest
    return path + "?" + "&".join(sorted(query.split("&")))


# What crawler@1 drops (profiles/crawler-1.toml), to redo it on the package's side.
SESSION_QUERY = re.compile(
    r"^((jsessionid|phpsessid|aspsessionid[^=]*)(=.*)?"
    r"|sid=[0-9a-f]{32}|(sessionid|session_id)=.{16,})$",
    re.I,
)
TRACKING_QUERY = re.compile(
    r"^(utm_.*|gclid|gclsrc|dclid|gbraid|wbraid|_ga|_gl|fbclid|msclkid|yclid|ttclid|twclid"
    r"|igshid|mc_cid|mc_eid|_hsenc|_hsmi|__hstc|__hssc|__hsfp|mkt_tok)(=|$)",
    re.I,
)


def filter_query(rest, pattern):
    path, q, query = rest.partition("?")
    if not q:
        return rest
    kept = [p for p in query.split("&") if not pattern.match(p)]
    return path + ("?" + "&".join(kept) if kept else "")


def drop_session_ids(rest):
    path, q, query = rest.partition("?")
    path = re.sub(r";(jsessionid|phpsessid)=[^;/]*", "", path, flags=re.I)
    return filter_query(path + q + query, SESSION_QUERY)


def drop_tracking(rest):
    return filter_query(rest, TRACKING_QUERY)


def unquote_all(rest):
    prev = None
    while prev != rest:
        prev, rest = rest, urllib.parse.unquote(rest, errors="surrogateescape")
    return rest.lower()


def unquote_host(host):
    return unquote_all(host)


# (class, transform, side) in the order they are tried. side "ours": a package behaviour
# that irinorm does not have, redone on irinorm's SURT; "theirs": an irinorm (crawler@1)
# rule the package does not have, redone on the package's SURT; "both": a normalization
# that makes both sides insensitive to the difference (order, encoding).
CLASSES = [
    ("ipv4-reversed", on_host(reverse_ipv4), "ours"),
    ("ipv6-brackets", on_host(unbracket), "ours"),
    ("trailing-dot", on_host(strip_root_label), "ours"),
    ("www-stripped", on_host(strip_www), "ours"),
    ("fragment-dropped", on_rest(drop_fragment), "ours"),
    ("empty-query-dropped", on_rest(drop_empty_query), "ours"),
    ("percent-decoded", on_rest(unquote_all), "both"),
    ("slashes-collapsed", on_rest(collapse_slashes), "ours"),
    ("trailing-slash-stripped", on_rest(strip_trailing_slash), "ours"),
    ("empty-path-as-slash", on_rest(empty_path_slash), "ours"),
    ("session-ids-dropped-by-irinorm", on_rest(drop_session_ids), "theirs"),
    ("tracking-params-dropped-by-irinorm", on_rest(drop_tracking), "theirs"),
    ("query-sorted", on_rest(sort_query), "both"),
    ("host-decoded", on_host(unquote_host), "both"),
]


def apply(classes, ours, theirs):
    for name, f, side in CLASSES:
        if name in classes:
            if side in ("ours", "both"):
                ours = f(ours)
            if side in ("theirs", "both"):
                theirs = f(theirs)
    return ours, theirs


def explain(ours, theirs):
    """The smallest set of classes (at most three, tried in order of size) that makes the
    two agree; failing that, all classes that change something, pruned; None if even that
    does not make them agree."""
    # A class is worth trying if it changes something on its own, or once all the others
    # have run (a fragment hides a trailing slash until it is dropped).
    names = [c[0] for c in CLASSES]
    everything = apply(names, ours, theirs)
    useful = [
        n
        for n in names
        if apply([n], ours, theirs) != (ours, theirs)
        or apply([m for m in names if m != n], ours, theirs) != everything
    ]
    for k in (1, 2, 3):
        for combo in itertools.combinations(useful, k):
            o, t = apply(combo, ours, theirs)
            if o == t:
                return list(combo)
    used = list(useful)
    o, t = apply(used, ours, theirs)
    if o != t:
        return None
    for name in list(used):
        trial = [u for u in used if u != name]
        o2, t2 = apply(trial, ours, theirs)
        if o2 == t2:
            used = trial
    return used


SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
DOT_SEGMENT = re.compile(r"(^|/)\.\.?(/|$|\?)")


def detect(line, ours, theirs):
    """A class for a difference the transforms cannot undo."""
    stripped = line.strip(" \t")
    if not SCHEME.match(stripped):
        return "input-without-scheme"  # the package assumes http://; irinorm: a relative reference
    if stripped[:5].lower() == "file:":
        return "file-uri"  # the package writes file:/path; irinorm reverses the (empty) host
    th, tr = split_surt(theirs)
    oh, orest = split_surt(ours)
    if th is not None and DOT_SEGMENT.search(tr.split("?")[0]):
        return "package-keeps-dot-segments"
    if th is not None and oh is not None and th != oh:
        if re.fullmatch(r"\d+(,\d+){3}(:\d+)?", th):
            return "numeric-host-parsed-by-package"
        if oh.split(":")[0] == th.split(":")[0]:
            return "default-port-of-other-schemes"
        return "host-other"
    return "unexplained"


def python_surt(line):
    try:
        return surt_pkg.surt(line), None
    except Exception as e:  # the package raises on some inputs
        return None, type(e).__name__


def package_version():
    try:
        from importlib.metadata import version

        return version("surt")
    except Exception:
        return "?"


def dump(dir_):
    env = dict(os.environ, IRINORM_SURT_DUMP=dir_)
    cmd = ["cargo", "test", "--release", "--test", "it", "surt::surts_over_the_corpora"]
    print("running:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", help="directory with the JSONL files (default: run the Rust test)")
    ap.add_argument(
        "--variant",
        default="crawler_www_surt",
        choices=["surt", "crawler_surt", "crawler_www_surt", "ia_like_surt"],
    )
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("corpora", nargs="*", help="corpus names (default: all)")
    args = ap.parse_args()

    dir_ = args.dump
    if not dir_:
        dir_ = tempfile.mkdtemp(prefix="irinorm-surt-")
        dump(dir_)
    names = args.corpora or sorted(
        f[: -len(".jsonl")] for f in os.listdir(dir_) if f.endswith(".jsonl")
    )

    total = same = 0
    counts = collections.Counter()
    combos = collections.Counter()
    examples = collections.defaultdict(list)
    for name in names:
        with open(os.path.join(dir_, name + ".jsonl"), encoding="utf-8") as fh:
            for raw in fh:
                row = json.loads(raw)
                line = row["input"]
                if line == "" and not row["key"]:
                    continue
                total += 1
                ours = row[args.variant]
                theirs, error = python_surt(line)
                if ours is None and theirs is None:
                    same += 1
                    continue
                if ours is None:
                    classes = ["irinorm-rejects"]
                elif theirs is None:
                    classes = ["package-raises:" + error]
                elif ours == theirs:
                    same += 1
                    continue
                else:
                    classes = explain(ours, theirs) or [detect(line, ours, theirs)]
                for c in classes:
                    counts[c] += 1
                    if len(examples[c]) < args.examples:
                        examples[c].append((name, line, ours, theirs))
                combos[" + ".join(classes)] += 1

    print(f"variant: {args.variant}; surt package {package_version()}")
    print(f"lines: {total}; identical: {same} ({100.0 * same / max(total, 1):.1f}%)")
    print()
    print("| class | lines |")
    print("|---|---:|")
    for c, n in counts.most_common():
        print(f"| {c} | {n} |")
    print()
    print("combinations:")
    for c, n in combos.most_common(15):
        print(f"  {n:7d}  {c}")
    print()
    for c, _ in counts.most_common():
        print(f"## {c}")
        for name, line, ours, theirs in examples[c]:
            print(f"  [{name}] {line!r}")
            print(f"      irinorm: {ours!r}")
            print(f"      surt:    {theirs!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
