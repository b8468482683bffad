#!/usr/bin/env bash
# Thread scaling per mode, for a machine with many cores (see docs/performance.md).
#
# For every mode of benches/inputs.sh, runs `irinorm normalize --threads N MODE FILE` for
# each N of $SCALING_THREADS with output to /dev/null, $SCALING_RUNS times round-robin, and
# prints per mode and N the median wall time, the speed-up over one thread and that
# speed-up over N (the efficiency; the aim is >= 0.8). Then, per input, the floor
# (benches/bin/floor.rs) and irinorm with every thread into a pipe read by `wc -l` (the
# budget: irinorm's wall <= 1.25x the floor's), and, when peer_ada is built, irinorm's CPU
# time on one thread over ada-url's, both writing to /dev/null.
#
# Needs only bash, coreutils and the binaries: wall and CPU times come from bash's `time`
# (user + system of the command and its threads; milliseconds).
#
#   benches/scaling.sh                                  # inputs in $TMPDIR, 200 MB each
#   SCALING_THREADS="1 4 8 16" SCALING_MODES="uri crawler" benches/scaling.sh
#
# Environment:
#   SCALING_BIN      the directory of irinorm, floor and peer_ada (default target/release;
#                    build them with `cargo build --release --bin irinorm` and
#                    `cargo build --release -p irinorm-bench --bins`)
#   SCALING_INPUTS   the directory of the inputs real.txt, noncanonical.txt and
#                    iri-heavy.txt; one that is missing is made there at $SCALING_MB MB from
#                    the corpora (benches/inputs.sh; default: a new directory under $TMPDIR)
#   SCALING_MB       the size of inputs made here (default 200)
#   SCALING_CORPORA  the *.txt corpora (default ../shared/corpora)
#   SCALING_THREADS  thread counts (default 1 2 4 8 16, those above nproc left out; the
#                    first must be 1)
#   SCALING_MODES    modes (default all: uri iri crawler surt jsonl surt-jsonl noncanonical
#                    iri-heavy iri-heavy-iri surt-scheme crawler-surt crawler-unique)
#   SCALING_RUNS     runs of each command (default 3)
#   SCALING_CEILING  1: also, for each mode with rows (`--output`), the pipe's own ceiling:
#                    the mode's finished output (written once to a file beside the inputs,
#                    3 to 4 times the input's size for jsonl) copied into a pipe read by
#                    `wc -l` by `cat`, against irinorm making it into the same pipe
#   SCALING_ROUNDS   N > 0: also, per mode, N rounds of irinorm on one thread and ada-url
#                    right after it, and the ratio of their CPU times in each round (about
#                    N x 7 s per mode with 1 GB of real URLs on a 16-core machine)
#   SCALING_CONTROL  1: also, per mode, whether the CPU time that more threads add is the
#                    engine's or the machine's: the input cut into N parts of whole lines
#                    (N the most threads), N one-thread processes over them at once,
#                    against one process of N threads over the whole input (CPU s, user +
#                    system, both with output to /dev/null). Where the processes take as
#                    much CPU as the threads, the growth over one thread is the machine's
#                    (its cores run slower when all are busy), not the engine's. The
#                    parts are written beside the inputs (as large as the input, once
#                    at a time) and removed at the end
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
corpora=${SCALING_CORPORA:-$root/../shared/corpora}
bin_dir=${SCALING_BIN:-$root/target/release}
mb=${SCALING_MB:-200}
runs=${SCALING_RUNS:-3}
modes=${SCALING_MODES:-all}
# shellcheck source=benches/inputs.sh
. "$root/benches/inputs.sh"
[ "$modes" = all ] && modes=$bench_modes_all
bench_check_modes scaling "$modes" || exit 2

cores=$(nproc)
threads=()
for t in ${SCALING_THREADS:-1 2 4 8 16}; do
    case $t in *[!0-9]* | 0) echo "scaling: SCALING_THREADS must be positive integers" >&2; exit 2 ;; esac
    if [ -n "${SCALING_THREADS:-}" ] || [ "$t" -le "$cores" ]; then threads+=("$t"); fi
done
[ "${threads[0]}" = 1 ] || { echo "scaling: the first thread count must be 1" >&2; exit 2; }
max_threads=${threads[-1]}

for b in irinorm floor; do
    [ -x "$bin_dir/$b" ] || { echo "scaling: no $bin_dir/$b (see SCALING_BIN)" >&2; exit 2; }
done
ada=$bin_dir/peer_ada
[ -x "$ada" ] || ada=

inputs=${SCALING_INPUTS:-}
if [ -z "$inputs" ]; then
    inputs=$(mktemp -d)
    trap 'rm -rf "$inputs"' EXIT
fi
mkdir -p "$inputs"
needed=""
for m in $modes; do
    case " $needed " in *" ${bench_mode_input[$m]} "*) ;; *) needed="$needed ${bench_mode_input[$m]}" ;; esac
done
for i in $needed; do
    if [ ! -s "$inputs/$i.txt" ]; then
        echo "scaling: making $i ($mb MB) in $inputs" >&2
        bench_make_input "$i" "$mb" "$inputs"
    fi
done

# Prints "WALL_S CPU_S" of one run of the command, its standard output to /dev/null.
time_null() {
    local TIMEFORMAT='%R %U %S' t
    t=$({ time "$@" >/dev/null 2>/dev/null; } 2>&1)
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

# Prints the wall seconds of one run of the command into a pipe read by `wc -l`, and checks
# the count of lines against $2's (the input).
time_pipe() {
    local TIMEFORMAT='%R' lines=$1 t n
    shift
    t=$({ time "$@" 2>/dev/null | wc -l >"$inputs/.count"; } 2>&1)
    n=$(cat "$inputs/.count")
    # With --unique (each key once): at least one line, and no more than came in.
    case " $* " in
        *" --unique "*) [ "$n" -ge 1 ] && [ "$n" -le "$lines" ] ||
            echo "scaling: $* wrote $n lines for $lines" >&2 ;;
        *) [ "$n" = "$lines" ] || echo "scaling: $* wrote $n lines for $lines" >&2 ;;
    esac
    echo "$t"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A wall cpu
echo "# Thread scaling: $(nproc) cores, $(uname -m), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
for i in $needed; do
    f=$inputs/$i.txt
    echo "- input $i: $(stat -c %s "$f") bytes, $(wc -l <"$f") lines"
done
echo "- median of $runs runs; irinorm output to /dev/null unless said"
echo

for m in $modes; do
    f=$inputs/${bench_mode_input[$m]}.txt
    read -r -a args <<<"${bench_mode_args[$m]}"
    declare -A w=() c=()
    for _ in $(seq "$runs"); do
        for t in "${threads[@]}"; do
            read -r ws cs < <(time_null "$bin_dir/irinorm" normalize --threads "$t" "${args[@]}" "$f")
            w[$t]+="$ws "
            c[$t]+="$cs "
        done
    done
    for t in "${threads[@]}"; do
        wall[$m,$t]=$(tr ' ' '\n' <<<"${w[$t]}" | grep . | median)
        cpu[$m,$t]=$(tr ' ' '\n' <<<"${c[$t]}" | grep . | median)
    done
    unset w c
done

echo "| mode | input | threads | wall s | CPU s | speed-up | speed-up / threads |"
echo "|---|---|---:|---:|---:|---:|---:|"
for m in $modes; do
    for t in "${threads[@]}"; do
        awk -v m="$m" -v i="${bench_mode_input[$m]}" -v t="$t" -v w="${wall[$m,$t]}" \
            -v c="${cpu[$m,$t]}" -v w1="${wall[$m,1]}" 'BEGIN {
            s = (w > 0 ? w1 / w : 0)
            printf "| %s | %s | %d | %.3f | %.3f | %.2f | %.2f |\n", m, i, t, w, c, s, s / t }'
    done
done
echo

# Into a pipe: irinorm with the most threads against the floor, per mode.
echo "| mode | irinorm $max_threads threads wall s, into a pipe | floor wall s, into a pipe | ratio (budget <= 1.25) |"
echo "|---|---:|---:|---:|"
declare -A floor_wall
for m in $modes; do
    i=${bench_mode_input[$m]}
    f=$inputs/$i.txt
    lines=$(wc -l <"$f")
    read -r -a args <<<"${bench_mode_args[$m]}"
    ours=()
    floors=()
    for _ in $(seq "$runs"); do
        ours+=("$(time_pipe "$lines" "$bin_dir/irinorm" normalize --threads "$max_threads" "${args[@]}" "$f")")
        if [ -z "${floor_wall[$i]+x}" ]; then
            floors+=("$(time_pipe "$lines" "$bin_dir/floor" "$f")")
        fi
    done
    [ -n "${floor_wall[$i]+x}" ] || floor_wall[$i]=$(printf '%s\n' "${floors[@]}" | median)
    o=$(printf '%s\n' "${ours[@]}" | median)
    awk -v m="$m" -v o="$o" -v f="${floor_wall[$i]}" 'BEGIN {
        printf "| %s | %.3f | %.3f | %.3f |\n", m, o, f, (f > 0 ? o / f : 0) }'
done
echo

if [ "${SCALING_CEILING:-0}" = 1 ]; then
    echo "| mode | output bytes | \`cat OUTPUT\` wall s, into a pipe | irinorm $max_threads threads wall s, into a pipe | floor wall s, into a pipe |"
    echo "|---|---:|---:|---:|---:|"
    for m in $modes; do
        case " ${bench_mode_args[$m]} " in *" --output "*) ;; *) continue ;; esac
        i=${bench_mode_input[$m]}
        f=$inputs/$i.txt
        read -r -a args <<<"${bench_mode_args[$m]}"
        rows=$inputs/.rows
        "$bin_dir/irinorm" normalize "${args[@]}" "$f" >"$rows" 2>/dev/null || true
        lines=$(wc -l <"$rows")
        copies=()
        ours=()
        for _ in $(seq "$runs"); do
            copies+=("$(time_pipe "$lines" cat "$rows")")
            ours+=("$(time_pipe "$lines" "$bin_dir/irinorm" normalize --threads "$max_threads" "${args[@]}" "$f")")
        done
        awk -v m="$m" -v b="$(stat -c %s "$rows")" -v c="$(printf '%s\n' "${copies[@]}" | median)" \
            -v o="$(printf '%s\n' "${ours[@]}" | median)" -v f="${floor_wall[$i]}" 'BEGIN {
            printf "| %s | %d | %.3f | %.3f | %.3f |\n", m, b, c, o, f }'
        rm -f "$rows"
    done
    echo
fi

# Runs `irinorm normalize --threads 1 OPTIONS PART` over every part in directory $1 at once
# (OPTIONS: the other arguments), waits for them all, and says on file descriptor 3 (the
# script's stderr: time_null silences the command's own) when one failed.
run_parts() {
    local dir=$1 p pids=() pid
    shift
    for p in "$dir"/p*; do
        "$bin_dir/irinorm" normalize --threads 1 "$@" "$p" >/dev/null 2>&1 &
        pids+=("$!")
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || echo "scaling: a one-thread process ($*) failed" >&3
    done
}

if [ "${SCALING_CONTROL:-0}" = 1 ]; then
    exec 3>&2
    echo "| mode | 1 thread CPU s | $max_threads one-thread processes CPU s | 1 process of $max_threads threads CPU s | threads / processes |"
    echo "|---|---:|---:|---:|---:|"
    parts=$inputs/.parts
    cut_for=""
    for m in $modes; do
        i=${bench_mode_input[$m]}
        if [ "$cut_for" != "$i" ]; then
            rm -rf "$parts" && mkdir -p "$parts"
            split -n "l/$max_threads" -d -a 3 "$inputs/$i.txt" "$parts/p"
            cut_for=$i
        fi
        read -r -a args <<<"${bench_mode_args[$m]}"
        procs=()
        ours=()
        for _ in $(seq "$runs"); do
            procs+=("$(time_null run_parts "$parts" "${args[@]}" | awk '{ print $2 }')")
            ours+=("$(time_null "$bin_dir/irinorm" normalize --threads "$max_threads" "${args[@]}" "$inputs/$i.txt" | awk '{ print $2 }')")
        done
        awk -v m="$m" -v one="${cpu[$m,1]}" -v p="$(printf '%s\n' "${procs[@]}" | median)" \
            -v o="$(printf '%s\n' "${ours[@]}" | median)" 'BEGIN {
            printf "| %s | %.3f | %.3f | %.3f | %.3f |\n", m, one, p, o, (p > 0 ? o / p : 0) }'
    done
    rm -rf "$parts"
    echo
fi

if [ -n "$ada" ]; then
    echo "| mode | irinorm 1 thread CPU s | ada-url CPU s | ratio |"
    echo "|---|---:|---:|---:|"
    declare -A ada_cpu
    for m in $modes; do
        i=${bench_mode_input[$m]}
        if [ -z "${ada_cpu[$i]+x}" ]; then
            a=()
            for _ in $(seq "$runs"); do
                a+=("$(time_null "$ada" "$inputs/$i.txt" | awk '{ print $2 }')")
            done
            ada_cpu[$i]=$(printf '%s\n' "${a[@]}" | median)
        fi
        awk -v m="$m" -v o="${cpu[$m,1]}" -v a="${ada_cpu[$i]}" 'BEGIN {
            printf "| %s | %.3f | %.3f | %.3f |\n", m, o, a, (a > 0 ? o / a : 0) }'
    done
    echo
fi

# One thread against ada-url in rounds: irinorm, then ada-url right after, the ratio of each
# round (on a machine whose speed drifts, steadier than the medians above, which take
# ada-url's runs after all of irinorm's).
if [ -n "$ada" ] && [ "${SCALING_ROUNDS:-0}" -gt 0 ]; then
    echo "| mode | irinorm 1 thread CPU / ada-url CPU, $SCALING_ROUNDS rounds | median | smallest | largest |"
    echo "|---|---|---:|---:|---:|"
    for m in $modes; do
        f=$inputs/${bench_mode_input[$m]}.txt
        read -r -a args <<<"${bench_mode_args[$m]}"
        ratios=()
        for _ in $(seq "$SCALING_ROUNDS"); do
            o=$(time_null "$bin_dir/irinorm" normalize --threads 1 "${args[@]}" "$f" | awk '{ print $2 }')
            a=$(time_null "$ada" "$f" | awk '{ print $2 }')
            ratios+=("$(awk -v o="$o" -v a="$a" 'BEGIN { printf "%.3f", (a > 0 ? o / a : 0) }')")
        done
        sorted=$(printf '%s\n' "${ratios[@]}" | sort -n)
        echo "| $m | ${ratios[*]} | $(median <<<"$sorted") | $(head -1 <<<"$sorted") | $(tail -1 <<<"$sorted") |"
    done
fi
