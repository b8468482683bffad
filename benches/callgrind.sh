#!/usr/bin/env bash
# Instruction counts of `irinorm normalize --threads 1` (repeatable on a noisy machine): runs
# it under `valgrind --tool=callgrind` over the shared corpora repeated to at least
# $CG_MB MB (default 20), then lists the top functions by instructions (self, then
# inclusive) with callgrind_annotate, and the total instructions of the floor and the peer
# programs on the same input (CG_PEERS=0 skips them). The profile is kept as $CG_OUT (default
# target/callgrind.out.irinorm) for callgrind_annotate or kcachegrind; CG_REUSE=1 lists
# an existing profile again without running valgrind.
#
# With CG_MODES (mode names of benches/inputs.sh, space-separated, or `all`), it counts
# instead the total instructions of `irinorm normalize --threads 1` in each mode over the
# mode's input made at CG_MODES_MB MB (default 2), next to ada-url (the peer_ada program)
# and the floor over the same input file, one table row per mode; no profile is kept. With
# CG_BASE=PATH (another irinorm binary, say the build before a change), each row also has
# that binary's count on the same file and the ratio of the two.
#
#   benches/callgrind.sh
#   CG_MB=5 CG_TOP=40 CG_ARGS="--level syntax" benches/callgrind.sh
#   CG_MODES=all benches/callgrind.sh
#   CG_MODES="uri noncanonical iri-heavy" CG_MODES_MB=1 benches/callgrind.sh
#   CG_MODES=all CG_BASE=/tmp/irinorm-before benches/callgrind.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
mb=${CG_MB:-20}
top=${CG_TOP:-25}
corpora=${E2E_CORPORA:-$root/../shared/corpora}
out=${CG_OUT:-$root/target/callgrind.out.irinorm}
args=${CG_ARGS:---level scheme --form uri}

modes=${CG_MODES:-}
# shellcheck source=benches/inputs.sh
. "$root/benches/inputs.sh"
[ "$modes" = all ] && modes=$bench_modes_all
bench_check_modes callgrind "$modes" || exit 2

command -v valgrind >/dev/null || { echo "callgrind: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
compgen -G "$corpora/*.txt" >/dev/null || { echo "callgrind: no *.txt corpus in $corpora" >&2; exit 2; }

cargo build --release --quiet --bin irinorm
bin=${CARGO_TARGET_DIR:-$root/target}/release/irinorm

tmp=$(mktemp -d "${TMPDIR:-/tmp}/irinorm-cg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The total instructions of one program (the words of $1) over the file $2.
instructions() {
    # shellcheck disable=SC2086 # the command is split on purpose
    valgrind --tool=callgrind --callgrind-out-file=/dev/null $1 "$2" >/dev/null 2>"$tmp/log.count"
    grep -E '^==[0-9]+== Collected' "$tmp/log.count" | awk '{ print $NF }'
}

# The instructions per mode: irinorm over each mode's input, ada-url and the floor over the
# same file (counted once per input).
if [ -n "$modes" ]; then
    cargo build --release --quiet -p irinorm-bench --bins
    mb=${CG_MODES_MB:-2}
    declare -A ada floor
    base=${CG_BASE:-}
    if [ -n "$base" ]; then
        echo "| mode, input | bytes | irinorm instructions | per byte | ada-url instructions | floor instructions | irinorm / ada-url | irinorm / floor | base instructions | irinorm / base |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "| mode, input | bytes | irinorm instructions | per byte | ada-url instructions | floor instructions | irinorm / ada-url | irinorm / floor |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    fi
    for m in $modes; do
        inp=${bench_mode_input[$m]}
        file=$tmp/$inp.txt
        if [ -z "${ada[$inp]+x}" ]; then
            bench_make_input "$inp" "$mb" "$tmp" || exit 2
            ada[$inp]=$(instructions "${bin%/*}/peer_ada" "$file")
            floor[$inp]=$(instructions "${bin%/*}/floor" "$file")
        fi
        n=$(instructions "$bin normalize --threads 1 ${bench_mode_args[$m]}" "$file")
        nb=0
        [ -n "$base" ] && nb=$(instructions "$base normalize --threads 1 ${bench_mode_args[$m]}" "$file")
        awk -v m="$m" -v a="${bench_mode_args[$m]}" -v i="${bench_input_about[$inp]}" -v b="$(stat -c %s "$file")" \
            -v n="$n" -v p="${ada[$inp]}" -v f="${floor[$inp]}" -v nb="$nb" 'BEGIN {
                printf "| %s (`%s`), %s | %d | %.0f | %.1f | %.0f | %.0f | %.3f | %.2f",
                    m, a, i, b, n, n / b, p, f, n / p, n / f
                if (nb > 0) printf " | %.0f | %.3f", nb, n / nb
                printf " |\n" }'
    done
    exit 0
fi

bench_make_input real "$mb" "$tmp" || exit 2
mv "$tmp/real.txt" "$tmp/input.txt"
echo "callgrind: input $(stat -c %s "$tmp/input.txt") bytes, $(wc -l <"$tmp/input.txt") lines ($(cat "$tmp/real.about"))"
echo "callgrind: $bin normalize --threads 1 $args"

if [ "${CG_REUSE:-0}" = 1 ] && [ -s "$out" ]; then
    echo "callgrind: reusing $out (CG_REUSE=1)"
else
    # shellcheck disable=SC2086 # $args is split on purpose
    valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$bin" normalize --threads 1 $args "$tmp/input.txt" >/dev/null 2>"$tmp/log"
    grep -E '^==[0-9]+== (Collected|Events)' "$tmp/log" || true
fi

# Sums callgrind_annotate's lines per function (it splits a function by the source file of
# its inlined parts; for inclusive counts the largest line is kept) and prints the top $top
# as a Markdown table.
by_function() {
    callgrind_annotate --inclusive="$1" --threshold=100 --auto=no "$out" 2>/dev/null | awk -v incl="$1" '
        /PROGRAM TOTALS/ { total = $1; gsub(",", "", total); next }
        /file:function/ { table = 1; getline; next }
        table && /^-----/ { table = 0 }
        table && /^ *[0-9,]+ +\( *[0-9.]+%\) +/ {
            n = $1; gsub(",", "", n)
            line = $0
            sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line)
            sub(/ \[[^]]*\]$/, "", line)
            fn = substr(line, index(line, ":") + 1)
            if (incl == "yes") { if (n + 0 > sum[fn] + 0) sum[fn] = n } else sum[fn] += n
        }
        END { for (f in sum) printf "%.0f\t%.2f\t%s\n", sum[f], 100 * sum[f] / total, f }' |
        grep -E "$2" | sort -t "$(printf '\t')" -k1,1nr |
        awk -F '\t' -v top="$top" '
            BEGIN { print "| Ir | % | function |"; print "|---:|---:|---|" }
            NR <= top {
                n = $1; s = ""
                while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) }
                gsub(/\|/, "\\|", $3)
                printf "| %s | %s | `%s` |\n", n s, $2, $3
            }'
}

bytes=$(stat -c %s "$tmp/input.txt")
lines=$(wc -l <"$tmp/input.txt")
total=$(callgrind_annotate --auto=no "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t { gsub(",", "", $1); t = $1 } END { print t }')
awk -v t="$total" -v b="$bytes" -v l="$lines" \
    'BEGIN { printf "\nTotal: %.0f instructions; %.1f per input byte; %.0f per line.\n", t, t / b, t / l }'

echo
echo "### Self (exclusive) instructions, top $top"
echo
by_function no .
echo
echo "### Inclusive instructions, irinorm functions, top $top"
echo
by_function yes irinorm
# The same input through the floor and the peers, total instructions only: a repeatable
# proxy of the CPU ratios of benches/e2e.sh (instructions are not cycles). CG_PEERS=0 skips.
if [ "${CG_PEERS:-1}" = 1 ]; then
    cargo build --release --quiet -p irinorm-bench --bins
    echo
    echo "### Total instructions on the same input"
    echo
    echo "| program | instructions | per byte | irinorm / program |"
    echo "|---|---:|---:|---:|"
    for prog in irinorm floor peer_ada peer_url peer_iri_string; do
        if [ $prog = irinorm ]; then
            n=$total
        else
            n=$(instructions "${bin%/*}/$prog" "$tmp/input.txt")
        fi
        awk -v p="$prog" -v n="$n" -v t="$total" -v b="$bytes" \
            'BEGIN { printf "| %s | %.0f | %.1f | %.3f |\n", p, n, n / b, t / n }'
    done
fi

echo
echo "(profile: $out)"
