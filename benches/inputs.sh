# shellcheck shell=bash
# The benchmark inputs and modes shared by benches/e2e.sh and benches/callgrind.sh (sourced,
# not run). The caller sets `root` (the repository) and `corpora` (the directory of the
# shared *.txt corpora) first.
#
# Inputs, each made by bench_make_input as DIR/NAME.txt, at least MB megabytes (10^6 bytes):
#   real          the *.txt corpora, each ending in LF, concatenated repeatedly;
#   noncanonical  the same lines through make_noncanonical.py ($BENCH_NONCANONICAL, default
#                 ../shared/bench/make_noncanonical.py): uppercase scheme and host, the
#                 default port and a "/./" in every http(s) line without userinfo or port,
#                 so that no such line is its own key;
#   iri-heavy     benches/make_iri_heavy.py: hosts and paths of words in 28 scripts, raw,
#                 percent-encoded or as A-labels, repeated;
#   variants      the spellings of corpora/gen_corpus.rs's equivalence groups (seed 1, about
#                 1,300 groups a megabyte, none repeated): a third of the lines non-ASCII, a
#                 fifth percent-encoded, case, port and dot-segment variants;
#   sample        corpora/sample.txt repeated: every line heavily non-canonical.
#
# Modes (bench_mode_args: the `irinorm normalize` options; bench_mode_input: the input):
bench_modes_all="uri iri crawler surt jsonl surt-jsonl noncanonical iri-heavy iri-heavy-iri variants sample surt-scheme crawler-surt crawler-unique wayback w3lib"
declare -A bench_mode_args=(
    [uri]="--level scheme --form uri"
    [iri]="--level scheme --form iri"
    [crawler]="--level protocol --profile crawler"
    [surt]="--level scheme --form surt"
    [jsonl]="--level scheme --form uri --output jsonl"
    [surt-jsonl]="--level scheme --form surt --output jsonl"
    [noncanonical]="--level scheme --form uri"
    [iri-heavy]="--level scheme --form uri"
    [iri-heavy-iri]="--level scheme --form iri"
    [variants]="--level scheme --form uri"
    [sample]="--level scheme --form uri"
    [surt-scheme]="--level scheme --form surt --surt-scheme"
    [crawler-surt]="--level protocol --profile crawler --form surt"
    [crawler-unique]="--level protocol --profile crawler --unique"
    [wayback]="--profile wayback"
    [w3lib]="--profile w3lib"
)
declare -A bench_mode_input=(
    [uri]=real [iri]=real [crawler]=real [surt]=real [jsonl]=real [surt-jsonl]=real
    [noncanonical]=noncanonical [iri-heavy]=iri-heavy [iri-heavy-iri]=iri-heavy
    [variants]=variants [sample]=sample
    [surt-scheme]=real [crawler-surt]=real [crawler-unique]=real
    [wayback]=real [w3lib]=real
)
declare -A bench_input_about=(
    [real]="real URLs"
    [noncanonical]="non-canonical real URLs"
    [iri-heavy]="IRI-heavy"
    [variants]="equivalence-group variants"
    [sample]="corpora/sample.txt"
)

# Checks that every word of "$2" is a mode; otherwise says so after "$1: " and returns 1.
bench_check_modes() {
    local m
    for m in $2; do
        if [ -z "${bench_mode_args[$m]+x}" ]; then
            echo "$1: unknown mode $m (modes: $bench_modes_all)" >&2
            return 1
        fi
    done
}

# The corpora, each ending in LF, once, to standard output.
bench_corpora_once() {
    local f files
    shopt -s nullglob
    files=("$corpora"/*.txt)
    shopt -u nullglob
    if [ ${#files[@]} -eq 0 ]; then
        echo "no *.txt corpus in $corpora (set E2E_CORPORA)" >&2
        return 1
    fi
    for f in "${files[@]}"; do
        cat "$f"
        if [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" != 0a ]; then echo; fi
    done
}

# How many copies of file $1 make at least $2 MB.
bench_copies() {
    local once
    once=$(stat -c %s "$1")
    echo $(((${2} * 1000000 + once - 1) / once))
}

# Writes file $1 $2 times to standard output.
bench_repeat() {
    local _
    for _ in $(seq "$2"); do cat "$1"; done
}

# Makes input $1 (real, noncanonical, iri-heavy, variants or sample) of at least $2 MB as $3/$1.txt, with
# $3/real-once.txt (the corpora once) as a by-product; says how it was made on stderr.
bench_make_input() {
    local name=$1 mb=$2 dir=$3 copies script
    [ -s "$dir/real-once.txt" ] || bench_corpora_once >"$dir/real-once.txt" || return 1
    case $name in
        real)
            copies=$(bench_copies "$dir/real-once.txt" "$mb")
            bench_repeat "$dir/real-once.txt" "$copies" >"$dir/real.txt"
            echo "the *.txt files of ${corpora#"$root"/} x $copies" >"$dir/real.about"
            ;;
        noncanonical)
            script=${BENCH_NONCANONICAL:-$root/../shared/bench/make_noncanonical.py}
            [ -r "$script" ] || { echo "no $script (set BENCH_NONCANONICAL)" >&2; return 1; }
            copies=$(bench_copies "$dir/real-once.txt" "$mb")
            python3 "$script" "$dir/real-once.txt" "$copies" >"$dir/noncanonical.txt"
            echo "make_noncanonical.py over the *.txt files of ${corpora#"$root"/}, x $copies" \
                >"$dir/noncanonical.about"
            ;;
        iri-heavy)
            python3 "$root/benches/make_iri_heavy.py" >"$dir/iri-heavy-once.txt"
            copies=$(bench_copies "$dir/iri-heavy-once.txt" "$mb")
            bench_repeat "$dir/iri-heavy-once.txt" "$copies" >"$dir/iri-heavy.txt"
            echo "benches/make_iri_heavy.py (20000 lines) x $copies" >"$dir/iri-heavy.about"
            ;;
        variants)
            (cd "$root" && cargo run --release --quiet --example gen_corpus -- \
                --groups $((mb * 1300)) --seed 1) | cut -f3 >"$dir/variants.txt" || return 1
            echo "gen_corpus --groups $((mb * 1300)) --seed 1, the spellings" >"$dir/variants.about"
            ;;
        sample)
            copies=$(bench_copies "$root/corpora/sample.txt" "$mb")
            bench_repeat "$root/corpora/sample.txt" "$copies" >"$dir/sample.txt"
            echo "corpora/sample.txt x $copies" >"$dir/sample.about"
            ;;
        *)
            echo "unknown input $name" >&2
            return 1
            ;;
    esac
}
