#!/usr/bin/env bash
# Resource limits of the release binary on hostile input sizes: wall time and peak resident
# memory of `irinorm normalize` for each case, and whether the result is the expected one.
# tests/limits.rs checks the same cases at debug-build sizes (64 MB instead of 1 GB).
#
#   benches/limits.sh                 # every case
#   LIMITS_GIB=4 benches/limits.sh    # a longer line-feed-free input
#
# Peak RSS comes from /usr/bin/time (GNU time) when installed, otherwise from polling VmHWM
# in /proc/PID/status.
set -euo pipefail
cd "$(dirname "$0")/.."
gib=${LIMITS_GIB:-1}
cargo build --release --quiet
bin=$PWD/target/release/irinorm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure NAME EXPECT CMD...: runs CMD (which reads the case's input on standard input,
# from the generator `gen`), prints wall time and peak RSS, and checks the output with the
# shell test EXPECT (given "$tmp/out" and "$tmp/err").
measure() {
  local name=$1 expect=$2
  shift 2
  local start end wall kb
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    gen | /usr/bin/time -f "%M" -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err"
    kb=$(tail -n 1 "$tmp/time")
  else
    gen | "$@" > "$tmp/out" 2> "$tmp/err" &
    local pid=$! peak=0 v
    while kill -0 "$pid" 2> /dev/null; do
      v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2> /dev/null || true)
      [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
      sleep 0.01
    done
    wait "$pid"
    kb=$peak
  fi
  end=$(date +%s.%N)
  wall=$(echo "$end - $start" | bc -l)
  local verdict=ok
  if ! eval "$expect"; then verdict="UNEXPECTED OUTPUT"; fi
  printf '%-44s wall %7.2fs  peak RSS %7d KiB (%5.1f MiB)  %s\n' \
    "$name" "$wall" "$kb" "$(echo "$kb/1024" | bc -l)" "$verdict"
}

lines() { wc -l < "$tmp/out" | tr -d ' '; }

echo "irinorm $("$bin" --version | awk '{print $2}'), $(nproc) cores; input generated on the fly"

gen() { head -c 100000000 /dev/zero | tr '\0' a; echo; echo http://a/; }
measure "100 MB line, then a URL" \
  '[ "$(lines)" = 2 ] && [ "$(head -n 1 "$tmp/out")" = "" ] && [ "$(tail -n 1 "$tmp/out")" = http://a/ ] && grep -q too-long "$tmp/err"' \
  "$bin" normalize

gen() { head -c "$((gib * 1024 * 1024 * 1024))" /dev/zero | tr '\0' a; }
measure "$gib GiB, no line feed" \
  '[ "$(lines)" = 1 ] && [ -z "$(tr -d "\n" < "$tmp/out")" ] && grep -q too-long "$tmp/err"' \
  "$bin" normalize

gen() { head -c 1000000 /dev/zero | tr '\0' '\n'; }
measure "10^6 empty lines" \
  '[ "$(lines)" = 1000000 ] && [ "$(tr -d "\n" < "$tmp/out" | wc -c)" = 0 ] && grep -q "^ *empty *1000000$" "$tmp/err"' \
  "$bin" normalize --stats

gen() { head -c 10000000 /dev/zero | tr '\0' '\n'; }
measure "10^7 empty lines" \
  '[ "$(lines)" = 10000000 ] && grep -q "^ *empty *10000000$" "$tmp/err"' \
  "$bin" normalize --stats

gen() { head -c 10000000 /dev/zero | tr '\0' '\n'; }
measure "10^7 empty lines, --unique" \
  '[ "$(lines)" = 10000000 ]' \
  "$bin" normalize --unique

# rep STRING N: STRING written N times, no line feed.
rep() { { yes "$1" || true; } | head -n "$2" | tr -d '\n'; }

gen() { printf 'http://a/'; rep ../ 100000; echo; }
measure "10^5 ../ segments" \
  '[ "$(cat "$tmp/out")" = http://a/ ]' \
  "$bin" normalize

gen() { printf 'http://a/'; rep %2E%2E/ 1000000; echo; }
measure "10^6 %2E%2E/ segments (7 MB line)" \
  '[ "$(cat "$tmp/out")" = http://a/ ]' \
  "$bin" normalize --max-line-bytes 100000000

# IDNA fails (far over 253 octets): the key is the syntax form, in linear time.
for n in 100000 400000; do
  for label in a. $'\u00e9.' xn--bcher-kva.; do
    gen() { printf 'http://'; rep "$label" "$n"; printf 'com/p\n'; }
    gen > "$tmp/in"
    "$bin" normalize --level syntax --form iri --max-line-bytes 100000000 < "$tmp/in" > "$tmp/syntax"
    name=$(printf '%s' "$label" | sed 's/\xc3\xa9/U+00E9/')
    measure "$n host labels '$name' (iri)" \
      '[ "$(lines)" = 1 ] && [ -n "$(cat "$tmp/out")" ] && cmp -s "$tmp/out" "$tmp/syntax"' \
      "$bin" normalize --form iri --max-line-bytes 100000000
  done
done

# --unique keeps per-record bookkeeping for every chunk in flight (and about 21 bytes per
# distinct key): one distinct key, tiny records.
gen() { { yes a: || true; } | head -n 10000000; }
measure "10^7 x 'a:' (one key), --unique" \
  '[ "$(lines)" = 1 ]' \
  "$bin" normalize --unique
