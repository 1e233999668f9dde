#!/usr/bin/env bash
# Every check of dtlsim: Rust format, lints and tests, Python lint and tests.
# Expects scripts/setup.sh to have run (`make test` does both).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/terminal.sh
# scripts/setup.sh installs openssl, tshark and chromium: a missing one is a setup bug, so fail, don't skip.
export DTLSIM_REQUIRE_PEERS=1
# Property tests draw from a fixed seed here, so a run's verdict is the code's,
# not the draw's; `cargo test` alone draws a fresh seed and keeps exploring.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261124}"

# Each step says when it started, so a slow step shows in any CI log.
step() { printf '\n%s== %s%s (at %d s)\n' "$BOLD" "$*" "$RESET" "$SECONDS"; }

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
step "cargo test"
# The extension module links against the interpreter only when loaded by it;
# its behaviour is tested from Python below. The test binaries run several
# at a time (most wait on real time: UDP peers, tshark), then the doc tests.
.venv/bin/python scripts/cargo_test.py --workspace --exclude dtlsim-py --quiet
step "ruff"
.venv/bin/ruff check python tests/python
.venv/bin/ruff format --check python tests/python
step "pytest"
# Two workers (pytest-xdist), a test file each at a time: a file's
# module-scoped fixtures (the reproduce run, the report page) run once, and
# the files that wait on real time (UDP peers, tshark, the browser) overlap.
# The slowest tests are listed at the end (where a faster suite starts).
.venv/bin/pytest -q -n 2 --dist loadfile --durations=15
step "mkdocs build --strict"
# The user documentation: a broken link or anchor, or a page missing from the
# navigation, fails the build. Built into a scratch directory, then removed.
site=$(mktemp -d)
.venv/bin/mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
printf '\n%severy check passed in %d s%s\n' "$BOLD" "$SECONDS" "$RESET"
