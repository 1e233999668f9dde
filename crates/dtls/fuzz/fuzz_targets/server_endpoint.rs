//! Arbitrary datagrams (split at 0xff bytes) into a server endpoint. With
//! cookies on, no session may appear (the fuzzer cannot forge a cookie);
//! with cookies off (first byte odd), the datagrams reach a session's
//! handshake state machine. Nothing may panic.
#![no_main]

use std::sync::Arc;

use dtls::{Config, Server, ServerConfig};
use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, data)) = data.split_first() else {
        return;
    };
    let mut cfg = ServerConfig::psk(Config::default(), b"Client_identity", &[1; 16]);
    cfg.require_cookie = mode & 1 == 0;
    cfg.config.max_fragment_len = usize::from(mode >> 1).max(1);
    let mut s = Server::new(Arc::new(cfg), ChaCha20Rng::seed_from_u64(0), 0).unwrap();
    let from = "192.0.2.1:5684".parse().unwrap();
    for (i, chunk) in data.split(|&b| b == 0xff).enumerate() {
        s.handle_datagram(i as u64, from, chunk);
        while s.poll_transmit(0).is_some() {}
        while s.poll_event().is_some() {}
        s.handle_timeout(i as u64 * 1_000_000);
    }
    if mode & 1 == 0 {
        assert_eq!(s.session_count(), 0, "a session needs a valid cookie");
    }
});
