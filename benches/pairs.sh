#!/usr/bin/env bash
# CPU time of irinorm against another program, in pairs: on a machine whose speed drifts
# from minute to minute (a shared one), a ratio of two runs made one right after the other
# moves far less than a ratio of medians taken over a whole benchmark.
#
#   benches/pairs.sh FILE N [irinorm options...]
#
# runs `irinorm normalize --threads 1 OPTIONS FILE` and then the other program over FILE,
# N times, each into a pipe read by `wc -l` (as benches/e2e.sh does), and prints the median,
# smallest and largest of the N ratios of their CPU times (`perf stat -e task-clock`: user
# and system time of every thread, to the microsecond). The other program is ada-url
# (`target/release/peer_ada`), or with PAIRS_BASE=PATH another irinorm binary run with the
# same options (to compare two builds: the ratio is this build over that one).
#
# Environment: PAIRS_BIN (default target/release/irinorm), PAIRS_BASE (unset: ada-url).
# Needs `perf` and the release binaries (`cargo build --release -p irinorm -p irinorm-bench`).
#
# With PAIRS_MODES (mode names of benches/inputs.sh, space-separated, or `all`), FILE is a
# directory instead: each mode runs over its input there (DIR/real.txt, DIR/noncanonical.txt,
# DIR/iri-heavy.txt; one missing is made at PAIRS_MB megabytes, default 200) with the
# mode's options, and a line per mode says its ratios (the table of the budgets of one
# thread against ada-url, in docs/performance.md).
#
#   benches/pairs.sh big.txt 9 --form surt
#   PAIRS_BASE=/tmp/irinorm-old benches/pairs.sh noncanonical.txt 7
#   PAIRS_MODES=all benches/pairs.sh /tmp/pairs-inputs 7
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
file=${1:?usage: benches/pairs.sh FILE N [irinorm options...]}
n=${2:?usage: benches/pairs.sh FILE N [irinorm options...]}
shift 2

# One run of this script per mode, over the mode's input in the directory FILE.
if [[ -n ${PAIRS_MODES:-} ]]; then
    corpora=${E2E_CORPORA:-$root/../shared/corpora}
    # shellcheck source=benches/inputs.sh
    . "$root/benches/inputs.sh"
    modes=$PAIRS_MODES
    [[ $modes == all ]] && modes=$bench_modes_all
    bench_check_modes pairs "$modes" || exit 2
    mkdir -p "$file"
    for m in $modes; do
        inp=${bench_mode_input[$m]}
        [[ -s $file/$inp.txt ]] || bench_make_input "$inp" "${PAIRS_MB:-200}" "$file" || exit 2
        # shellcheck disable=SC2086 # the options are split on purpose
        printf '%-14s %s\n' "$m" "$(PAIRS_MODES='' "$0" "$file/$inp.txt" "$n" ${bench_mode_args[$m]})"
    done
    exit 0
fi

bin=${PAIRS_BIN:-$root/target/release/irinorm}
stats=$(mktemp)
trap 'rm -f "$stats"' EXIT

# The CPU milliseconds of one run of the command, its output counted by `wc -l`.
cpu_ms() {
    perf stat -x, -e task-clock -o "$stats" -- "$@" 2>/dev/null | wc -l >/dev/null
    awk -F, '/task-clock/ { print $1 }' "$stats"
}

ratios=()
for _ in $(seq "$n"); do
    ours=$(cpu_ms "$bin" normalize --threads 1 "$@" "$file")
    if [[ -n ${PAIRS_BASE:-} ]]; then
        theirs=$(cpu_ms "$PAIRS_BASE" normalize --threads 1 "$@" "$file")
    else
        theirs=$(cpu_ms "$root/target/release/peer_ada" "$file")
    fi
    ratios+=("$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.4f", a / b }')")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '
    { r[NR] = $1 }
    END {
        # Of an even number of pairs, the median is the mean of the two middle ratios.
        median = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
        printf "median %.3f  smallest %.3f  largest %.3f  (%d pairs)\n", median, r[1], r[NR], NR
    }'
