#!/usr/bin/env bash
# Fuzz dtlsim with libFuzzer (cargo-fuzz, nightly).
#
#   scripts/fuzz.sh [run] [target…]   run each target (all by default) for
#                                     FUZZ_SECONDS (default 60) and report its
#                                     executions; new inputs go to fuzz/scratch/,
#                                     crashes to fuzz/artifacts/<target>/
#   scripts/fuzz.sh seed              rewrite the seed corpora (fuzz/corpus/)
#                                     from real traffic
#
# Fuzzing runs at the lowest priority, one target at a time. The committed
# corpora (fuzz/corpus/<target>/) are replayed by `cargo test -p dtlsim-fuzz`
# on stable; this script is the long run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/terminal.sh

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
# libFuzzer's memory bounds: a target whose memory grows past these fails.
FUZZ_RSS_MB="${FUZZ_RSS_MB:-1024}"
FUZZ_MALLOC_MB="${FUZZ_MALLOC_MB:-64}"

say() { printf '%s[fuzz]%s %s\n' "$BOLD" "$RESET" "$*"; }

need_cargo_fuzz() {
  if ! rustup toolchain list | grep -q '^nightly'; then
    say "installing the nightly toolchain (libFuzzer needs its sanitizer flags)"
    rustup toolchain install nightly --profile minimal
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    say "installing cargo-fuzz (once; a few minutes)"
    cargo install cargo-fuzz --locked
  fi
}

seed() {
  # The first point of each shipped scenario, settled (every default filled
  # in), as the scenario target's seeds and the source of real frames.
  points=$(mktemp)
  .venv/bin/python - "$points" <<'PY'
import json, sys, tomllib
from pathlib import Path
from dtlsim.scenario import check
points = []
for f in sorted(Path("scenarios").glob("*.toml")):
    sc, problems = check(tomllib.loads(f.read_text()))
    if sc is not None:
        points.append(sc.settled[0])
Path(sys.argv[1]).write_text(json.dumps(points))
PY
  cargo run -q -p dtlsim-fuzz --example write_seeds -- fuzz/corpus "$points"
  rm -f "$points"
  for d in fuzz/corpus/*/; do say "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
}

run() {
  need_cargo_fuzz
  local targets=("$@")
  if ((${#targets[@]} == 0)); then
    mapfile -t targets < <(cd fuzz && cargo fuzz list)
  fi
  say "building ${#targets[@]} target(s) (release, debug assertions on, no sanitizer: the code forbids unsafe)"
  (cd fuzz && nice -n 19 cargo +nightly fuzz build --sanitizer none --debug-assertions)
  local total=0 log
  log=$(mktemp)
  printf '%-28s %14s %10s %s\n' target executions exec/s result
  for t in "${targets[@]}"; do
    mkdir -p "fuzz/scratch/$t" "fuzz/artifacts/$t"
    local result=ok
    (cd fuzz && nice -n 19 cargo +nightly fuzz run --sanitizer none --debug-assertions "$t" \
      "scratch/$t" "corpus/$t" -- \
      -max_total_time="$FUZZ_SECONDS" -rss_limit_mb="$FUZZ_RSS_MB" \
      -malloc_limit_mb="$FUZZ_MALLOC_MB" -print_final_stats=1) >"$log" 2>&1 || result="FAILED (fuzz/artifacts/$t/)"
    local execs rate
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log" | tail -1)
    total=$((total + ${execs:-0}))
    printf '%-28s %14s %10s %s\n' "$t" "${execs:-?}" "${rate:-?}" "$result"
    if [ "$result" != ok ]; then
      grep -E 'panicked|ERROR|SUMMARY|Test unit written' "$log" | head -20
    fi
  done
  rm -f "$log"
  say "total executions: $total"
}

case "${1:-run}" in
  seed) seed ;;
  run) shift || true; run "$@" ;;
  *) run "$@" ;;
esac
