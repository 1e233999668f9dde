#!/usr/bin/env bash
# wolfSSL 5.9 as a real DTLS 1.2 / 1.3 peer for the interop tests: a static
# libwolfssl (DTLS 1.2 and 1.3, Connection ID, static PSK, AES-CCM, ECC,
# X25519) and our two small peers over it (peers/wolfssl/), installed as
# .peers/wolfssl/bin/wolfssl-dtls-{server,client}. Called by scripts/setup.sh;
# idempotent: a rerun with the same source and flags does nothing.
#
# Why this source: Debian 12's libwolfssl is 5.5, which has no DTLS 1.3, and
# the Python package `wolfssl` clones wolfSSL from the internet while it
# builds. The Rust crate wolfssl-sys bundles the full C source (5.3.0 carries
# wolfSSL 5.9.4), and cargo fetches it from the registry like any other
# dependency, so the build needs no other network access.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/terminal.sh

say() { printf '%s[setup: wolfssl]%s %s\n' "$BOLD" "$RESET" "$*"; }

CRATE=wolfssl-sys
CRATE_VERSION=5.3.0 # bundles wolfSSL 5.9.4 (wolfssl-src/wolfssl/version.h)
# ML-KEM off: our peers speak the constrained profile (P-256, X25519), and a
# post-quantum key share would make every 1.3 ClientHello several kB.
# Defines the library is built with that its generated options.h does not
# carry: the peers are compiled with them too, so both see the same structs.
WOLFSSL_DEFINES=(-DHAVE_RPK)
CMAKE_FLAGS=(
  -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF
  -DWOLFSSL_DTLS=yes -DWOLFSSL_DTLS13=yes -DWOLFSSL_DTLS_CID=yes
  -DWOLFSSL_PSK=yes -DWOLFSSL_AESCCM=yes -DWOLFSSL_ECC=yes
  -DWOLFSSL_CURVE25519=yes -DWOLFSSL_MLKEM=no
  -DWOLFSSL_EXAMPLES=no -DWOLFSSL_CRYPT_TESTS=no
  # static PSK suites (PSK-AES128-CCM-8) are off in wolfSSL by default;
  # raw public keys (RFC 7250) are configure's --enable-rpk, which CMake
  # lacks: the define it sets
  "-DCMAKE_C_FLAGS=-DWOLFSSL_STATIC_PSK ${WOLFSSL_DEFINES[*]}"
)

dir=.peers/wolfssl
lib_key="$CRATE $CRATE_VERSION ${CMAKE_FLAGS[*]}"
peers_key=$(cat peers/wolfssl/*.[ch] | sha256sum | cut -d' ' -f1)
if [ "$(cat "$dir/lib.stamp" 2>/dev/null)" = "$lib_key" ] &&
  [ "$(cat "$dir/peers.stamp" 2>/dev/null)" = "$peers_key" ]; then
  exit 0
fi

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(build-essential)
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  say "installing Debian packages: ${need[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
fi

mkdir -p "$dir"
build="$dir/build-$CRATE_VERSION"
if [ "$(cat "$dir/lib.stamp" 2>/dev/null)" != "$lib_key" ]; then
  # A throwaway manifest that depends on the crate: `cargo fetch` downloads
  # and unpacks it, `cargo metadata` says where.
  fetch="$dir/fetch-$CRATE_VERSION"
  mkdir -p "$fetch/src"
  : >"$fetch/src/lib.rs"
  cat >"$fetch/Cargo.toml" <<EOF
[package]
name = "fetch-wolfssl-source"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$CRATE = "=$CRATE_VERSION"

[workspace]
EOF
  say "fetching the $CRATE $CRATE_VERSION crate with cargo (wolfSSL's C source)"
  cargo fetch -q --manifest-path "$fetch/Cargo.toml"
  crate_dir=$(cargo metadata -q --format-version 1 --manifest-path "$fetch/Cargo.toml" |
    python3 -c "import json, sys, os; print(next(os.path.dirname(p['manifest_path']) for p in json.load(sys.stdin)['packages'] if p['name'] == '$CRATE'))")
  src="$crate_dir/wolfssl-src"
  say "wolfSSL $(sed -n 's/.*LIBWOLFSSL_VERSION_STRING "\(.*\)"/\1/p' "$src/wolfssl/version.h") from $CRATE $CRATE_VERSION: configuring with CMake"
  rm -rf "$build"
  cmake -S "$src" -B "$build" "${CMAKE_FLAGS[@]}" >"$dir/cmake.log" 2>&1 ||
    { tail -20 "$dir/cmake.log"; exit 1; }
  # The headers next to the library: wolfSSL's own and the generated options.h.
  rm -rf "$dir/include"
  mkdir -p "$dir/include"
  cp -r "$src/wolfssl" "$dir/include/"
  cp "$build/wolfssl/options.h" "$dir/include/wolfssl/options.h"
  say "building libwolfssl.a (about a minute on 2 cores; make shows its progress)"
  make -C "$build" -j2 --no-print-directory wolfssl
  echo "$lib_key" >"$dir/lib.stamp"
fi

say "building the peers: peers/wolfssl/{server,client}.c"
mkdir -p "$dir/bin"
for peer in server client; do
  cc -O2 -Wall -Wextra -Werror -std=c11 -D_POSIX_C_SOURCE=200809L "${WOLFSSL_DEFINES[@]}" -I"$dir/include" \
    -o "$dir/bin/wolfssl-dtls-$peer" "peers/wolfssl/$peer.c" peers/wolfssl/peer.c \
    "$build/libwolfssl.a" -lm -lpthread
done
echo "$peers_key" >"$dir/peers.stamp"
say "ready: $dir/bin/wolfssl-dtls-server, $dir/bin/wolfssl-dtls-client"
