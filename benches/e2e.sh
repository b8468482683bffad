#!/usr/bin/env bash
# End-to-end timings against the budgets of SPEC §8 (see docs/performance.md).
#
# Builds the release binary and the floor/peer programs (package irinorm-bench), makes an input of at least
# $E2E_MB MB (10^6 bytes) by concatenating the *.txt files of the shared corpora repeatedly,
# then times each program E2E_RUNS times, round-robin, with GNU time. Every program reads
# the input file named on its command line and writes one result per input line into a
# pipe read by `wc -l` (which also checks the line count); its diagnostics go to a file.
# The programs named `*-null` write to /dev/null instead: with no reader on the other end
# of a pipe competing for the cores, they show how the engine scales with its threads.
# Reported per program: the median of each of wall time, CPU time (user + sys) and peak RSS
# (GNU time: 10 ms resolution, so keep E2E_MB at 100 or more for the ratios to mean much).
#
#   benches/e2e.sh                      # 200 MB, 3 runs each
#   E2E_MB=50 E2E_RUNS=5 benches/e2e.sh
#   E2E_ONLY="irinorm-1t ada-url" benches/e2e.sh   # a subset of the programs
#   E2E_THREADS="4 8 16" benches/e2e.sh             # also irinorm-tN-null: N threads, /dev/null
#
# Environment: E2E_MB (default 200), E2E_RUNS (3), E2E_CORPORA (../shared/corpora),
# E2E_ONLY (program names, space-separated), E2E_THREADS (thread counts for irinorm-tN-null,
# each reported as a speed-up over irinorm-1t-null), E2E_NO_BUILD=1 (use the binaries as built),
# E2E_TABLE (also write the Markdown to this file), TMPDIR (where the input is made).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
mb=${E2E_MB:-200}
runs=${E2E_RUNS:-3}
corpora=${E2E_CORPORA:-$root/../shared/corpora}
only=${E2E_ONLY:-}
gnu_time=/usr/bin/time

case $mb$runs in *[!0-9]*) echo "e2e: E2E_MB and E2E_RUNS must be integers" >&2; exit 2 ;; esac
if ! "$gnu_time" -f '%e' true >/dev/null 2>&1; then
    echo "e2e: GNU time is needed at $gnu_time (apt-get install time)" >&2
    exit 2
fi
shopt -s nullglob
files=("$corpora"/*.txt)
shopt -u nullglob
if [ ${#files[@]} -eq 0 ]; then
    echo "e2e: no *.txt corpus in $corpora (set E2E_CORPORA)" >&2
    exit 2
fi

bin_dir=${CARGO_TARGET_DIR:-$root/target}/release
names=(irinorm-1t irinorm-all floor irinorm-1t-null irinorm-all-null floor-null ada-url url iri-string)
declare -A cmd=(
    [irinorm-1t]="$bin_dir/irinorm normalize --threads 1 --level scheme --form uri"
    [irinorm-all]="$bin_dir/irinorm normalize"
    [floor]="$bin_dir/floor"
    [irinorm-1t-null]="$bin_dir/irinorm normalize --threads 1 --level scheme --form uri"
    [irinorm-all-null]="$bin_dir/irinorm normalize"
    [floor-null]="$bin_dir/floor"
    [ada-url]="$bin_dir/peer_ada"
    [url]="$bin_dir/peer_url"
    [iri-string]="$bin_dir/peer_iri_string"
)
for t in ${E2E_THREADS:-}; do
    case $t in *[!0-9]* | 0) echo "e2e: E2E_THREADS must be positive integers" >&2; exit 2 ;; esac
    names+=("irinorm-t$t-null")
    cmd[irinorm-t$t-null]="$bin_dir/irinorm normalize --threads $t --level scheme --form uri"
done
if [ -n "$only" ]; then
    for n in $only; do
        [ -n "${cmd[$n]+x}" ] || { echo "e2e: unknown program $n (${names[*]})" >&2; exit 2; }
    done
    names=($only)
fi

if [ "${E2E_NO_BUILD:-0}" != 1 ]; then
    echo "e2e: building (release)..." >&2
    cargo build --release --quiet --bin irinorm
    cargo build --release --quiet -p irinorm-bench --bins
fi
for bin in "$bin_dir/irinorm" "$bin_dir"/{floor,peer_ada,peer_url,peer_iri_string}; do
    [ -x "$bin" ] || { echo "e2e: $bin is missing (run without E2E_NO_BUILD)" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/irinorm-e2e.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The input: the corpora, each ending in LF, repeated until at least $mb MB.
for f in "${files[@]}"; do
    cat "$f"
    if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" != 0a ]; then echo; fi
done >"$tmp/once.txt"
once=$(stat -c %s "$tmp/once.txt")
want=$((mb * 1000000))
reps=$(((want + once - 1) / once))
input=$tmp/input.txt
for _ in $(seq "$reps"); do cat "$tmp/once.txt"; done >"$input"
bytes=$(stat -c %s "$input")
lines=$(wc -l <"$input")
cat "$input" >/dev/null # into the page cache
echo "e2e: input $input: $bytes bytes ($(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB), $lines lines, ${#files[@]} corpus files x $reps" >&2

# One run: "wall user sys maxrss_kib" appended to $tmp/<name>.runs.
run_once() {
    local name=$1 out
    if [[ $name == *-null ]]; then
        # shellcheck disable=SC2086 # the command is split on purpose
        if ! "$gnu_time" -f '%e %U %S %M' -o "$tmp/$name.time" ${cmd[$name]} "$input" >/dev/null 2>"$tmp/$name.err"; then
            echo "e2e: $name failed:" >&2
            tail -n 5 "$tmp/$name.err" "$tmp/$name.time" >&2
            exit 1
        fi
        tail -n 1 "$tmp/$name.time" >>"$tmp/$name.runs"
        return
    fi
    # shellcheck disable=SC2086 # the command is split on purpose
    if ! out=$("$gnu_time" -f '%e %U %S %M' -o "$tmp/$name.time" ${cmd[$name]} "$input" 2>"$tmp/$name.err" | wc -l); then
        echo "e2e: $name failed:" >&2
        tail -n 5 "$tmp/$name.err" "$tmp/$name.time" >&2
        exit 1
    fi
    if [ "$out" != "$lines" ]; then
        echo "e2e: $name wrote $out lines for $lines input lines" >&2
        exit 1
    fi
    tail -n 1 "$tmp/$name.time" >>"$tmp/$name.runs"
}

for r in $(seq "$runs"); do
    for name in "${names[@]}"; do
        echo "e2e: run $r/$runs: $name" >&2
        run_once "$name"
    done
done

# The median of column $2 (or of user+sys for "cpu") of file $1.
median() {
    awk -v c="$2" '{ print (c == "cpu" ? $2 + $3 : $c) }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}


# The budget rows of the programs that ran (SPEC §8), under a header when there are any.
budget_rows() {
    local rows
    rows=$(budget_lines)
    if [ -n "$rows" ]; then
        echo
        echo "| budget (SPEC §8) | measured | budget | met |"
        echo "|---|---:|---:|---|"
        echo "$rows"
    fi
}

budget_lines() {
    ratio() { # name, a, b, budget, op
        awk -v n="$1" -v a="$2" -v b="$3" -v lim="$4" -v op="$5" 'BEGIN {
            if (b <= 0) { printf "| %s | – | %s %s | – |\n", n, op, lim; exit }
            r = a / b; ok = (op == "<=" ? r <= lim : r >= lim)
            printf "| %s | %.3f | %s %s | %s |\n", n, r, op, lim, (ok ? "yes" : "**no**") }'
    }
    has() { [ -n "${wall[$1]+x}" ]; }
    if has irinorm-1t && has ada-url; then
        ratio "irinorm 1 thread CPU / ada-url CPU" "${cpu[irinorm-1t]}" "${cpu[ada-url]}" 0.333 "<="
    fi
    if has irinorm-all && has floor; then
        ratio "irinorm all threads wall / floor wall" "${wall[irinorm-all]}" "${wall[floor]}" 1.25 "<="
    fi
    n=$(nproc)
    if has irinorm-1t-null && has irinorm-all-null; then
        ratio "speed-up, all threads ($n) vs 1 thread, output to /dev/null" \
            "${wall[irinorm-1t-null]}" "${wall[irinorm-all-null]}" \
            "$(awk -v n="$n" 'BEGIN { print 0.8 * n }')" ">="
    fi
    for t in ${E2E_THREADS:-}; do
        if has irinorm-1t-null && has "irinorm-t$t-null"; then
            ratio "speed-up, $t threads vs 1 thread, output to /dev/null" \
                "${wall[irinorm-1t-null]}" "${wall[irinorm-t$t-null]}" \
                "$(awk -v n="$t" 'BEGIN { print 0.8 * n }')" ">="
        fi
    done
    if has irinorm-1t && has irinorm-all; then
        awk -v a="${wall[irinorm-1t]}" -v b="${wall[irinorm-all]}" -v n="$n" 'BEGIN {
            if (b > 0) printf "| (info) speed-up, all threads (%d) vs 1 thread, into the pipe | %.3f | – | – |\n", n, a / b }'
    fi
    if has irinorm-all-null && has floor-null; then
        awk -v a="${wall[irinorm-all-null]}" -v b="${wall[floor-null]}" 'BEGIN {
            if (b > 0) printf "| (info) irinorm all threads wall / floor wall, output to /dev/null | %.3f | – | – |\n", a / b }'
    fi
    for name in irinorm-1t irinorm-all; do
        if has $name; then
            awk -v n="$name" -v m="${rss[$name]}" 'BEGIN {
                printf "| %s peak RSS MiB | %.1f | < 64 | %s |\n", n, m / 1024, (m / 1024 < 64 ? "yes" : "**no**") }'
        fi
    done
    for peer in url iri-string; do
        if has irinorm-1t && has $peer; then
            awk -v n="$peer" -v a="${cpu[irinorm-1t]}" -v b="${cpu[$peer]}" 'BEGIN {
                if (b > 0) printf "| (info) irinorm 1 thread CPU / %s CPU | %.3f | – | – |\n", n, a / b }'
        fi
    done
}

declare -A wall cpu rss
{
    echo "Input: $bytes bytes ($(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB), $lines lines (the *.txt files of ${corpora#"$root"/} x $reps); median of $runs runs; $(nproc) cores."
    echo
    echo "| program | command | wall s | MB/s | user s | sys s | CPU s | peak RSS MiB |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    for name in "${names[@]}"; do
        f=$tmp/$name.runs
        wall[$name]=$(median "$f" 1)
        cpu[$name]=$(median "$f" cpu)
        rss[$name]=$(median "$f" 4)
        sink="into a pipe"
        [[ $name == *-null ]] && sink="to /dev/null"
        awk -v n="$name" -v c="${cmd[$name]#"$root"/} FILE" -v k="$sink" -v w="${wall[$name]}" -v u="$(median "$f" 2)" \
            -v s="$(median "$f" 3)" -v p="${cpu[$name]}" -v m="${rss[$name]}" -v b="$bytes" \
            'BEGIN { printf "| %s | `%s` %s | %.2f | %.1f | %.2f | %.2f | %.2f | %.1f |\n", n, c, k, w, (w > 0 ? b / 1e6 / w : 0), u, s, p, m / 1024 }'
    done
    budget_rows
} >"$tmp/table.md"

cat "$tmp/table.md"
if [ -n "${E2E_TABLE:-}" ]; then cp "$tmp/table.md" "$E2E_TABLE"; fi
