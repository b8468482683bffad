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
# Modes (E2E_MODES): each mode is a set of `irinorm normalize` options over one input (the
# list is in benches/inputs.sh). For each, irinorm runs with one thread and with all of
# them, and the floor and ada-url (the peer_ada program) run over the same input file
# (once per distinct input, shared by the modes over it); a second table gives, per mode,
# irinorm 1 thread CPU / ada-url CPU and irinorm all threads wall / floor wall:
#   uri           real URLs, --level scheme --form uri (the default; the programs
#                 irinorm-1t and irinorm-all)
#   iri           real URLs, --level scheme --form iri
#   crawler       real URLs, --level protocol --profile crawler
#   surt          real URLs, --level scheme --form surt
#   jsonl         real URLs, --output jsonl (the default level and form)
#   surt-jsonl    real URLs, --form surt --output jsonl (web-archive index rows)
#   noncanonical  non-canonical real URLs (../shared/bench/make_noncanonical.py over the real
#                 input: uppercase scheme and host, default port, "/./"), the default mode
#   iri-heavy     IRIs with hosts and paths in 28 scripts, raw, percent-encoded and as A-labels
#                 (benches/make_iri_heavy.py, repeated), the default mode
#   iri-heavy-iri the same IRIs, --level scheme --form iri (keys with U-labels and
#                 decoded UTF-8)
#   variants      the spellings of the generated equivalence groups (corpora/gen_corpus.rs),
#                 the default mode
#   sample        corpora/sample.txt repeated (every line heavily non-canonical), the
#                 default mode
#   surt-scheme   real URLs, --form surt --surt-scheme (SURTs with their scheme)
#   crawler-surt  real URLs, --profile crawler --form surt (a crawler's SURT keys)
#   crawler-unique real URLs, --profile crawler --unique (crawler URL dedup)
#   wayback       real URLs, --profile wayback (surt.surt's keys, as CDX indexes hold them)
#   w3lib         real URLs, --profile w3lib (canonicalize_url's keys, Scrapy's)
# The programs and modes run under names of their own: irinorm-1t-MODE, irinorm-all-MODE,
# floor-INPUT and ada-url-INPUT (for the real input: irinorm-1t, irinorm-all, floor, ada-url).
#
#   benches/e2e.sh                      # 200 MB, 3 runs each
#   E2E_MB=50 E2E_RUNS=5 benches/e2e.sh
#   E2E_ONLY="irinorm-1t ada-url" benches/e2e.sh   # a subset of the programs
#   E2E_THREADS="4 8 16" benches/e2e.sh             # also irinorm-tN-null: N threads, /dev/null
#   E2E_MODES="iri crawler noncanonical" benches/e2e.sh  # these modes (and nothing else)
#   E2E_MODES=all E2E_ONLY=all benches/e2e.sh          # every mode and every program
#
# Environment: E2E_MB (default 200), E2E_RUNS (3), E2E_CORPORA (../shared/corpora),
# E2E_ONLY (program names, space-separated; `all` for every one; by default every program
# when E2E_MODES is empty, none otherwise), E2E_MODES (mode names, space-separated, or
# `all`; default none), E2E_THREADS (thread counts for irinorm-tN-null,
# each reported as a speed-up over irinorm-1t-null), E2E_NO_BUILD=1 (use the binaries as built),
# E2E_TABLE (also write the Markdown to this file), TMPDIR (where the inputs are made),
# BENCH_NONCANONICAL (the make_noncanonical.py script, default ../shared/bench/).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
mb=${E2E_MB:-200}
runs=${E2E_RUNS:-3}
corpora=${E2E_CORPORA:-$root/../shared/corpora}
modes=${E2E_MODES:-}
gnu_time=/usr/bin/time
# shellcheck source=benches/inputs.sh
. "$root/benches/inputs.sh"
[ "$modes" = all ] && modes=$bench_modes_all

case $mb$runs in *[!0-9]*) echo "e2e: E2E_MB and E2E_RUNS must be integers" >&2; exit 2 ;; esac
if ! "$gnu_time" -f '%e' true >/dev/null 2>&1; then
    echo "e2e: GNU time is needed at $gnu_time (apt-get install time)" >&2
    exit 2
fi
bench_check_modes e2e "$modes" || exit 2
if ! compgen -G "$corpora/*.txt" >/dev/null; then
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
only=${E2E_ONLY:-}
[ -z "$only" ] && [ -n "$modes" ] && only=none
case $only in
    "" | all) ;;
    none) names=() ;;
    *)
        for n in $only; do
            [ -n "${cmd[$n]+x}" ] || { echo "e2e: unknown program $n (${names[*]})" >&2; exit 2; }
        done
        read -r -a names <<<"$only"
        ;;
esac

# The programs of each mode (added to the list unless there already), and each program's
# input (real unless said otherwise).
declare -A input_of mode_1t mode_all mode_floor mode_ada
add_program() { # name, input, command
    input_of[$1]=$2
    [ -n "${cmd[$1]+x}" ] || cmd[$1]=$3
    local n
    for n in "${names[@]}"; do [ "$n" = "$1" ] && return; done
    names+=("$1")
}
for m in $modes; do
    inp=${bench_mode_input[$m]}
    suffix=-$m
    [ "$m" = uri ] && suffix=
    mode_1t[$m]=irinorm-1t$suffix
    mode_all[$m]=irinorm-all$suffix
    suffix=-$inp
    [ "$inp" = real ] && suffix=
    mode_floor[$m]=floor$suffix
    mode_ada[$m]=ada-url$suffix
    add_program "${mode_1t[$m]}" "$inp" "$bin_dir/irinorm normalize --threads 1 ${bench_mode_args[$m]}"
    add_program "${mode_all[$m]}" "$inp" "$bin_dir/irinorm normalize ${bench_mode_args[$m]}"
    add_program "${mode_floor[$m]}" "$inp" "$bin_dir/floor"
    add_program "${mode_ada[$m]}" "$inp" "$bin_dir/peer_ada"
done
[ ${#names[@]} -gt 0 ] || { echo "e2e: nothing to run (E2E_ONLY, E2E_MODES)" >&2; exit 2; }

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

# The inputs the programs read, each at least $mb MB, in the page cache.
declare -A bytes_of lines_of inputs_seen
inputs=()
for name in "${names[@]}"; do
    inp=${input_of[$name]:-real}
    input_of[$name]=$inp
    [ -n "${inputs_seen[$inp]+x}" ] && continue
    inputs_seen[$inp]=1
    inputs+=("$inp")
    bench_make_input "$inp" "$mb" "$tmp" || exit 2
    bytes_of[$inp]=$(stat -c %s "$tmp/$inp.txt")
    lines_of[$inp]=$(wc -l <"$tmp/$inp.txt")
    cat "$tmp/$inp.txt" >/dev/null # into the page cache
    echo "e2e: input $inp ($tmp/$inp.txt): ${bytes_of[$inp]} bytes, ${lines_of[$inp]} lines, $(cat "$tmp/$inp.about")" >&2
done

# One run: "wall user sys maxrss_kib" appended to $tmp/<name>.runs.
run_once() {
    local name=$1 out input=$tmp/${input_of[$1]}.txt lines=${lines_of[${input_of[$1]}]}
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
    # A line out for each line in; with --unique, which writes each key once, at least one
    # line and no more than came in.
    local want=$lines
    case " ${cmd[$name]} " in
        *" --unique "*) if [ "$out" -ge 1 ] && [ "$out" -le "$lines" ]; then want=$out; fi ;;
    esac
    if [ "$out" != "$want" ]; then
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

# One row per mode: irinorm's ratios to ada-url and to the floor over the mode's input, and
# the medians they come from.
mode_rows() {
    local m inp
    [ -n "$modes" ] || return 0
    echo
    echo "Modes: irinorm with 1 thread and with all threads next to ada-url (\`peer_ada\`) and the floor, each over the same input file."
    echo
    echo "| mode, input | irinorm 1 thread CPU / ada-url CPU | irinorm all threads wall / floor wall | irinorm 1 thread CPU s | ada-url CPU s | irinorm all threads wall s | floor wall s |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for m in $modes; do
        inp=${bench_mode_input[$m]}
        awk -v m="$m" -v a="${bench_mode_args[$m]}" -v i="${bench_input_about[$inp]}" \
            -v c1="${cpu[${mode_1t[$m]}]}" -v ca="${cpu[${mode_ada[$m]}]}" \
            -v wa="${wall[${mode_all[$m]}]}" -v wf="${wall[${mode_floor[$m]}]}" 'BEGIN {
                printf "| %s (`%s`), %s | %s | %s | %.2f | %.2f | %.2f | %.2f |\n", m, a, i,
                    (ca > 0 ? sprintf("%.3f", c1 / ca) : "–"), (wf > 0 ? sprintf("%.3f", wa / wf) : "–"),
                    c1, ca, wa, wf }'
    done
}

declare -A wall cpu rss
{
    echo "Inputs (median of $runs runs; $(nproc) cores):"
    echo
    for inp in "${inputs[@]}"; do
        awk -v n="$inp" -v b="${bytes_of[$inp]}" -v l="${lines_of[$inp]}" -v a="$(cat "$tmp/$inp.about")" \
            'BEGIN { printf "- %s: %d bytes (%.1f MB), %d lines (%s)\n", n, b, b / 1e6, l, a }'
    done
    echo
    echo "| program | input | command | wall s | MB/s | user s | sys s | CPU s | peak RSS MiB |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
    for name in "${names[@]}"; do
        f=$tmp/$name.runs
        wall[$name]=$(median "$f" 1)
        cpu[$name]=$(median "$f" cpu)
        rss[$name]=$(median "$f" 4)
        sink="into a pipe"
        [[ $name == *-null ]] && sink="to /dev/null"
        inp=${input_of[$name]}
        awk -v n="$name" -v i="$inp" -v c="${cmd[$name]#"$root"/} FILE" -v k="$sink" -v w="${wall[$name]}" -v u="$(median "$f" 2)" \
            -v s="$(median "$f" 3)" -v p="${cpu[$name]}" -v m="${rss[$name]}" -v b="${bytes_of[$inp]}" \
            'BEGIN { printf "| %s | %s | `%s` %s | %.2f | %.1f | %.2f | %.2f | %.2f | %.1f |\n", n, i, c, k, w, (w > 0 ? b / 1e6 / w : 0), u, s, p, m / 1024 }'
    done
    mode_rows
    budget_rows
} >"$tmp/table.md"

cat "$tmp/table.md"
if [ -n "${E2E_TABLE:-}" ]; then cp "$tmp/table.md" "$E2E_TABLE"; fi
