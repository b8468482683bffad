#!/usr/bin/env bash
# A fuzzing campaign: runs each target for a given time with the dictionary, the seeds built
# from ../shared (fuzz/seed.sh) and the committed corpus fuzz/kept/<target>/; merges what it
# found into that corpus, minimized (libFuzzer's -merge=1: the fewest, smallest inputs that
# keep every coverage feature), without the seeds themselves (they are lines of the shared
# corpora, which the project does not copy) and bounded in size; and appends a row per
# target to the table of docs/fuzzing.md, whose totals it writes again.
#
#   fuzz/campaign.sh [-t SECONDS] [-s none|address] [-w WORKERS] [TARGET...]
#
#   -t  seconds per target (default 600)
#   -s  sanitizer: `none` (default: a throughput build, release with debug assertions) or
#       `address` (AddressSanitizer, several times slower; a campaign of its own beside the
#       throughput ones: one campaign runs at a time, fuzz/target/campaign.lock)
#   -w  libFuzzer processes per target (default 1; -fork mode above 1)
#   TARGET: parse normalize convert resolve engine (default: all)
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). A crash
# stops that target: its input is left in fuzz/artifacts/<target>/, the row says so, and the
# script exits 1 after the other targets ran. A crash that was a bug gets a regression test
# naming its input, and the input goes to fuzz/kept/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
sanitizer=none
workers=1
while getopts "t:s:w:" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    s) sanitizer=$OPTARG ;;
    w) workers=$OPTARG ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse normalize convert resolve engine compat)
case $sanitizer in none | address) ;; *) echo "sanitizer: none or address" >&2; exit 2 ;; esac

# The committed corpus of a target may take this many KiB at most; an input this many bytes.
kept_max_kib=${KEPT_MAX_KIB:-1024}
max_len=4096

# One campaign at a time: campaigns share the working corpus, the seeds and fuzz/kept/.
mkdir -p fuzz/target
exec 9> fuzz/target/campaign.lock
if ! flock -n 9; then
  echo "another campaign is running (fuzz/target/campaign.lock)" >&2
  exit 2
fi

seeds=fuzz/target/seeds
SEED_DIR=$seeds bash fuzz/seed.sh >/dev/null
echo "== building the targets (sanitizer: $sanitizer)"
# Each build in its own folder, so that one never runs the other's binaries.
target_dir=fuzz/target/$sanitizer
if [ "$sanitizer" = none ]; then
  cargo +nightly fuzz build -O --debug-assertions -s none --target-dir "$target_dir"
else
  cargo +nightly fuzz build -O --target-dir "$target_dir"
fi
triple=$(rustc -vV | sed -n 's/^host: //p')
bin_dir=$target_dir/$triple/release
doc=docs/fuzzing.md
failed=0

for t in "${targets[@]}"; do
  bin=$bin_dir/$t
  [ -x "$bin" ] || { echo "no target $t" >&2; exit 2; }
  mkdir -p "fuzz/corpus/$t" "fuzz/kept/$t" "fuzz/artifacts/$t"
  log=fuzz/target/campaign-$t.log
  args=(-max_total_time="$seconds" -dict=fuzz/iri.dict -rss_limit_mb=2048 -max_len=$max_len
        -timeout=30 -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/")
  # The engine's worker threads end after each run: LeakSanitizer would report their
  # thread-local buffers.
  [ "$t" = engine ] && args+=(-detect_leaks=0)
  [ "$workers" -gt 1 ] && args+=(-fork="$workers")
  echo "== $t: $seconds s, $workers process(es)"
  started=$SECONDS
  result=ok
  # What this run leaves in fuzz/artifacts/<target>/ is newer than this mark.
  mark=fuzz/target/campaign-$t.mark
  touch "$mark"
  if ! ASAN_OPTIONS=detect_leaks=0 "$bin" "${args[@]}" "fuzz/corpus/$t" "fuzz/kept/$t" \
      "$seeds/$t" > "$log" 2>&1; then
    found=$(find "fuzz/artifacts/$t" -type f -newer "$mark" -printf '%f ')
    result="crash: ${found:-none left, see $log}"
    failed=1
    tail -n 40 "$log" >&2
  fi
  elapsed=$((SECONDS - started))
  # The last status line: "#N ... cov: C ft: F" (also in -fork mode, "#N: cov: C ft: F");
  # none where the fuzzer failed before its first one.
  status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<< "$status")
  runs=${runs:-0}
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<< "$status")
  ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<< "$status")

  # Merge: the working corpus (what this and earlier campaigns found), the committed one
  # and the seeds, minimized; then the seeds are left out (they come back from fuzz/seed.sh
  # each time) and the largest inputs while over the bound.
  merged=$(mktemp -d)
  if ! ASAN_OPTIONS=detect_leaks=0 "$bin" -merge=1 -max_len=$max_len -rss_limit_mb=2048 \
      "$merged" "fuzz/kept/$t" "fuzz/corpus/$t" "$seeds/$t" > "fuzz/target/merge-$t.log" 2>&1; then
    # A merge that fails (an input that crashes) keeps the corpus as it was.
    echo "merge failed; fuzz/kept/$t unchanged (fuzz/target/merge-$t.log)" >&2
    rm -rf "$merged"
    merged=$(mktemp -d)
    cp -p "fuzz/kept/$t"/. "$merged"/ -r 2>/dev/null || true
    failed=1
  fi
  for f in "$merged"/*; do
    [ -e "$seeds/$t/$(basename "$f")" ] && rm -f "$f"
  done
  # Bytes, not disk blocks (a small file takes a whole block).
  kept_bytes() { find "$1" -type f -printf '%s\n' | awk '{n += $1} END {print n + 0}'; }
  while [ "$(kept_bytes "$merged")" -gt $((kept_max_kib * 1024)) ]; do
    largest=$(find "$merged" -type f -printf '%s %p\n' | sort -rn | sed -n '1s/^[0-9]* //p')
    rm -f "$largest"
  done
  rm -rf "fuzz/kept/$t"
  mv "$merged" "fuzz/kept/$t"
  chmod 755 "fuzz/kept/$t"
  files=$(find "fuzz/kept/$t" -type f | wc -l)
  kib=$(( ($(kept_bytes "fuzz/kept/$t") + 1023) / 1024 ))
  rate=$((runs / (elapsed > 0 ? elapsed : 1)))
  row="| $(date -u +%F) | \`$t\` | $sanitizer | $workers | $elapsed | $runs | $rate | $cov | $ft | $files, $kib KiB | $result |"
  echo "$row"
  echo "$row" >> "$doc"
done

# The totals per target, over every row of the table.
python3 - "$doc" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
totals = {}
for m in re.finditer(r"^\| \d{4}-\d\d-\d\d \| `(\w+)` \| (\w+) \| \d+ \| (\d+) \| (\d+) \|", text, re.M):
    t, san, secs, runs = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
    row = totals.setdefault(t, [0, 0, 0])
    row[0] += runs
    row[1] += secs
    row[2] += runs if san == "address" else 0
order = ["parse", "normalize", "convert", "resolve", "engine", "compat"]
lines = ["| target | executions | of them under ASan | seconds |", "|---|---:|---:|---:|"]
for t in sorted(totals, key=lambda t: order.index(t) if t in order else 99):
    runs, secs, asan = totals[t]
    lines.append(f"| `{t}` | {runs:,} | {asan:,} | {secs:,} |")
block = "<!-- totals:start -->\n" + "\n".join(lines) + "\n<!-- totals:end -->"
text = re.sub(r"<!-- totals:start -->.*?<!-- totals:end -->", block, text, flags=re.S)
open(path, "w", encoding="utf-8").write(text)
print("\n".join(lines))
PY
exit $failed
