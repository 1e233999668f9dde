//! A signal that lands while the driver waits on its socket must not end a
//! handshake: Linux returns EINTR from a `recv` with a read timeout even when
//! the handler was installed with `SA_RESTART` (signal(7)), and a test
//! harness, a debugger or a terminal resize can all send one.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use common::*;
use dtls::{Config, ServerConfig};
use dtls_udp::{bind_server, run_client, ClientOptions, ServerOptions};
use nix::sys::pthread::{pthread_kill, pthread_self};
use nix::sys::signal::Signal;

#[test]
fn handshake_and_echo_survive_signals_on_both_threads() {
    // A handler that only sets a flag (installed with SA_RESTART): without
    // one, SIGUSR1 would end the process.
    let seen = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGUSR1, seen.clone()).unwrap();

    let bound = bind_server(&ServerOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        config: ServerConfig::psk(Config::tightest_psk_ccm8(), IDENTITY, PSK),
        echo: true,
        seed: Some(1),
        log: None,
    })
    .unwrap();
    let port = bound.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    let server = std::thread::spawn(move || {
        tx.send(pthread_self()).unwrap();
        bound.run(stop_after_sessions_ended(20, 1))
    });
    let server_thread = rx.recv().unwrap();
    let client_thread = pthread_self();

    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let signaller = std::thread::spawn(move || {
        let mut n = 0u32;
        // Bounded: at most 20 000 rounds 100 µs apart, fewer once the client
        // is done. Both threads are alive until `stop` is set: the client is
        // this test's thread and the server is joined only afterwards.
        while !stop2.load(Ordering::Relaxed) && n < 20_000 {
            pthread_kill(client_thread, Signal::SIGUSR1).unwrap();
            pthread_kill(server_thread, Signal::SIGUSR1).unwrap();
            n += 1;
            std::thread::sleep(Duration::from_micros(100));
        }
        n
    });

    // Signals are already arriving when the client starts (waiting at most
    // 5 s), so a fast handshake cannot finish before the first one lands.
    for _ in 0..5000 {
        if seen.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(seen.load(Ordering::Relaxed), "no signal was delivered");

    let mut opts = ClientOptions::psk(addr(port), Config::tightest_psk_ccm8(), IDENTITY, PSK);
    opts.messages = (0..20).map(|i| vec![i; 64]).collect();
    opts.expect_replies = 20;
    opts.seed = Some(2);
    let client = run_client(&opts);
    stop.store(true, Ordering::Relaxed);
    let rounds = signaller.join().unwrap();
    let server = server.join().unwrap();

    let client = client.expect("the client carries on after EINTR");
    let server = server.expect("the server carries on after EINTR");
    assert!(rounds > 0);
    assert_eq!(client.received, opts.messages, "every echo arrived");
    assert_eq!(server.handshakes.len(), 1);
}
