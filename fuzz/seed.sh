#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from ../shared (beside the repository):
# lines of ../shared/corpora/* and the inputs (and bases) of ../shared/conformance/cases.jsonl.
# Writes SEED_DIR/<target>/<sha1> (default SEED_DIR: fuzz/corpus; gitignored: the seeds
# are lines of the shared corpora, which the project does not copy). Deterministic.
#
#   bash fuzz/seed.sh [SHARED_DIR]     (default: <repo>/../shared)
#
# Without the shared directory it writes a few built-in seeds only, so the targets still run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="${1:-$here/../../shared}"
out="${SEED_DIR:-$here/corpus}"
mkdir -p "$out"
exec python3 - "$shared" "$out" <<'PY'
import hashlib, json, os, sys

shared, out = sys.argv[1], sys.argv[2]
corpora = os.path.join(shared, "corpora")
cases_path = os.path.join(shared, "conformance", "cases.jsonl")

BUILTIN = [
    "http://a/b/c/d;p?q", "HTTP://Example.COM:80/a/./b/../%7Ec", "http://B\u00fccher.example/%C3%A9",
    "http://a/../../../etc", "/a/%2E%2E/b", "foo:/.//x", "http://[2001:DB8::1]:0080/",
    "http://a/%C0%AF%E0%80%AF%ED%A0%80", "http://a/%E2%80%AE?%EE%80%80#x", "mailto:A@EXAMPLE.COM",
    "urn:ISBN:1", "file://localhost/etc", "http://a/?utm_source=x&b=%26&jsessionid=1#f",
]

def lines_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".jsonl"):
        res = []
        for l in data.decode("utf-8").splitlines():
            try:
                v = json.loads(l)
            except ValueError:
                continue
            if isinstance(v, str):
                res.append(v.encode("utf-8"))
        return res
    return [l[:-1] if l.endswith(b"\r") else l for l in data.split(b"\n") if l]

def sample(seq, limit):
    """At most `limit` items, spread evenly over `seq` (deterministic)."""
    if len(seq) <= limit:
        return list(seq)
    step = len(seq) / limit
    return [seq[int(i * step)] for i in range(limit)]

line_files = {}
if os.path.isdir(corpora):
    for name in sorted(os.listdir(corpora)):
        if name.endswith((".txt", ".jsonl")):
            line_files[name] = lines_of(os.path.join(corpora, name))
cases = []
if os.path.isfile(cases_path):
    with open(cases_path, encoding="utf-8") as f:
        cases = [json.loads(l) for l in f if l.strip()]

# Records: every conformance input, the small corpora whole, the large ones sampled.
records = [c["input"].encode("utf-8") for c in cases]
records += [s.encode("utf-8") for s in BUILTIN]
for name, ls in line_files.items():
    if name == "wpt_urltestdata_bases.txt":
        continue
    records += sample(ls, 400)
hosts = line_files.get("idna_test_hosts.txt", []) + line_files.get("psl_idn_suffixes.txt", [])
records += [b"http://" + h + b"/" for h in sample(hosts, 300)]

# Resolution pairs: "base LF reference".
pairs = [(c["base"] + "\n" + c["input"]).encode("utf-8") for c in cases if c.get("op") == "resolve"]
bases = line_files.get("wpt_urltestdata_bases.txt", []) or [b"http://a/b/c/d;p?q"]
for i, r in enumerate(sample(records, 1500)):
    pairs.append(bases[(i * 7) % len(bases)] + b"\n" + r)
pairs += sample(records, 500)  # no LF: against the RFC 3986 §5.4 base

# Engine inputs: 4 setting bytes, then runs of consecutive corpus lines.
engine = []
k = 0
for name, ls in line_files.items():
    for start in range(0, len(ls), max(1, len(ls) // 40)):
        k += 1
        n = 1 + (k * 13) % 60
        body = b"\n".join(ls[start:start + n]) + (b"\n" if k % 3 else b"")
        cfg = (k * 2654435761) & 0xFFFFFF
        more = (k * 40503) & 0xFF
        engine.append(bytes([cfg & 0xFF, (cfg >> 8) & 0xFF, (cfg >> 16) & 0xFF, more]) + body)

def write(target, items):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    seen = set()
    for it in items:
        h = hashlib.sha1(it).hexdigest()
        if h in seen:
            continue
        seen.add(h)
        with open(os.path.join(d, h), "wb") as f:
            f.write(it)
    print(f"{d}: {len(seen)} seeds")

for t in ("parse", "normalize", "convert", "compat"):
    write(t, records)
write("resolve", pairs)
write("engine", engine)
PY
