#!/usr/bin/env bash
# Fuzz smoke run: every target in fuzz/fuzz_targets/ built with cargo-fuzz (nightly) and run
# for FUZZ_SECONDS (default 30) each, from its committed seeds plus the corpus earlier runs
# on this machine left in fuzz/corpus/ (kept between runs, like ~/.cargo/bin/cargo-fuzz and
# fuzz/target/). A crash fails the run; libFuzzer saves the input under fuzz/artifacts/.
# Installs what a fresh Debian 12 machine with rustup lacks: the nightly toolchain, cargo-fuzz.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${FUZZ_SECONDS:-30}"
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: installing the nightly toolchain" >&2
    rustup toolchain install nightly --profile minimal >&2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked --quiet
fi

cd "$ROOT/fuzz"
listed="$(cargo fuzz list | sort)"
files="$(ls fuzz_targets/*.rs | xargs -n1 basename | sed 's/\.rs$//' | sort)"
if [ "$listed" != "$files" ]; then
    echo "fuzz: cargo fuzz list ($listed) differs from fuzz_targets/ ($files): add a [[bin]] to fuzz/Cargo.toml" >&2
    exit 1
fi
cargo +nightly fuzz build -O >&2
for t in $listed; do
    mkdir -p "corpus/$t"
    out="$(mktemp)"
    if ! cargo +nightly fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
            -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 >"$out" 2>&1; then
        tail -n 40 "$out" >&2
        echo "fuzz: target $t failed; the input is in fuzz/artifacts/$t/" >&2
        exit 1
    fi
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo '?')"
    cov="$(grep -o 'cov: [0-9]*' "$out" | tail -n 1 | grep -o '[0-9]*' || echo '?')"
    echo "fuzz: $t: $runs executions in ${SECONDS_EACH} s, coverage $cov edges, no crash" >&2
    rm -f "$out"
done
