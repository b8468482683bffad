#!/usr/bin/env bash
# Peak resident memory of `irinorm normalize` at default settings while at least 1 GiB of
# URLs streams through standard input (SPEC §8: under 64 MiB whatever the input size).
#
#   benches/rss.sh            # 1 GiB
#   RSS_GIB=4 benches/rss.sh  # more
#
# Input: the files of ../shared/corpora (or corpora/sample.txt when absent), repeated.
set -euo pipefail
cd "$(dirname "$0")/.."
gib=${RSS_GIB:-1}
cargo build --release --quiet
bin=target/release/irinorm
src=../shared/corpora
if compgen -G "$src/*.txt" > /dev/null; then
  seed=$(ls "$src"/*.txt)
else
  seed=corpora/sample.txt
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat $seed > "$tmp/seed.txt"
bytes=$((gib * 1024 * 1024 * 1024))
# Repeat the seed until `bytes` have been produced, without storing the stream.
feed() { while :; do cat "$tmp/seed.txt" || return 0; done | head -c "$bytes"; }
for threads in 1 0; do
  label=$([ "$threads" = 0 ] && echo "all ($(nproc))" || echo "$threads")
  { feed || true; } | /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" normalize --threads "$threads" > /dev/null 2> /dev/null
  read -r wall kb < "$tmp/time"
  printf 'threads=%-8s input=%d GiB  wall=%6ss  peak RSS=%d KiB (%.1f MiB)\n' "$label" "$gib" "$wall" "$kb" "$(echo "$kb/1024" | bc -l)"
done
