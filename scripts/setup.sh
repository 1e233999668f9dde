#!/usr/bin/env bash
# Set up everything dtlsim needs on a fresh Debian machine, idempotently:
# system packages (real peers and checkers), the Rust lint tools, a
# project-local Python venv with the locked dependencies, and the package
# itself with its Rust extension built in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/terminal.sh

say() { printf '%s[setup]%s %s\n' "$BOLD" "$RESET" "$*"; }

# --- system packages: openssl (DTLS interop peer), tshark (pcap checks), chromium (report page) ---
need=()
command -v openssl >/dev/null || need+=(openssl)
command -v tshark >/dev/null || need+=(tshark)
command -v cc >/dev/null || need+=(build-essential)
pkg-config --exists openssl 2>/dev/null || need+=(libssl-dev pkg-config) # openssl crate (crates/bench-openssl)
# wolfssl-sys (crates/bench-wolfssl) runs autoreconf on wolfSSL's source and
# bindgen (libclang) on its headers
command -v autoreconf >/dev/null || need+=(autoconf automake)
command -v libtoolize >/dev/null || need+=(libtool)
compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null || need+=(libclang-dev)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
command -v chromium >/dev/null || need+=(chromium) # headless browser: the report's page test
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  say "installing Debian packages: ${need[*]}"
  # tshark asks whether non-root users may capture; answer without a prompt.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# --- Rust ---------------------------------------------------------------------
if ! command -v cargo >/dev/null; then
  echo "cargo not found: this machine kind ships Rust through rustup; install it first" >&2
  exit 1
fi
if command -v rustup >/dev/null; then
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
  done
fi

# --- Python venv with locked dependencies -------------------------------------
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv
fi
stamp=.venv/.requirements.lock.sha256
want=$(sha256sum requirements.lock | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  say "installing locked Python dependencies (requirements.lock)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -r requirements.lock
  echo "$want" >"$stamp"
fi

# --- real peers built from source ------------------------------------------
# wolfSSL 5.9 (DTLS 1.3, Connection ID): see the script for why from source.
bash scripts/peers/wolfssl.sh

# --- dtlsim itself (editable; rebuilds the Rust extension) --------------------
# Verbose, so the build is not silent: maturin's steps and cargo's line per
# crate as it compiles (the first build takes minutes, a rebuild seconds).
say "building dtlsim: the Rust extension in release mode with cargo (minutes on a fresh machine; cargo lists each crate as it compiles)"
PATH="$PWD/.venv/bin:$PATH" .venv/bin/python -m pip install -v --no-deps --no-build-isolation -e .
say "ready: .venv/bin/dtlsim"
