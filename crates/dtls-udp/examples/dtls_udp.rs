//! Manual use of the UDP driver:
//!
//! ```text
//! cargo run -p dtlsim-dtls-udp --example dtls_udp -- server 127.0.0.1:5684 [SECONDS]
//! cargo run -p dtlsim-dtls-udp --example dtls_udp -- client 127.0.0.1:5684 [MESSAGES]
//! ```
//!
//! PSK-AES128-CCM8 with identity `Client_identity` and key
//! 000102030405060708090a0b0c0d0e0f (the values the OpenSSL interop tests use), so that it
//! talks to `openssl s_server`/`s_client` as configured there.

use std::time::Duration;

use dtls::{CipherSuite, Config, ServerConfig};
use dtls_udp::{run_client, run_server, ClientOptions, ServerOptions, StopCondition};

const IDENTITY: &[u8] = b"Client_identity";
const PSK: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: dtls_udp server|client ADDR [N]";
    let (Some(mode), Some(addr)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let addr = addr.parse().expect("ADDR like 127.0.0.1:5684");
    let n: u64 = args.get(2).map_or(10, |s| s.parse().expect("N"));
    let config = Config {
        cipher_suites: vec![CipherSuite::PskAes128Ccm8],
        ..Config::default()
    };
    match mode.as_str() {
        "server" => {
            let opts = ServerOptions {
                bind: addr,
                config: ServerConfig::psk(config, IDENTITY, &PSK),
                echo: true,
                seed: None,
                log: None,
            };
            let stop = StopCondition {
                max_duration: Some(Duration::from_secs(n)),
                ..StopCondition::default()
            };
            match run_server(&opts, stop) {
                Ok(r) => {
                    for h in &r.handshakes {
                        println!("handshake with {} in {:?}", h.peer, h.duration);
                    }
                    println!(
                        "{} handshakes, {} records echoed; {} datagrams / {} B in, {} datagrams / {} B out",
                        r.handshakes.len(),
                        r.echoed,
                        r.datagrams_received,
                        r.bytes_received,
                        r.datagrams_sent,
                        r.bytes_sent
                    );
                }
                Err(e) => {
                    eprintln!("server: {e}");
                    std::process::exit(1);
                }
            }
        }
        "client" => {
            let mut opts = ClientOptions::psk(addr, config, IDENTITY, &PSK);
            opts.messages = (0..n)
                .map(|i| format!("message {i}\n").into_bytes())
                .collect();
            opts.expect_replies = 0;
            match run_client(&opts) {
                Ok(r) => println!(
                    "{:?} in {:?}: {} datagrams / {} B sent, {} datagrams / {} B received during the handshake; {} messages sent, {} received",
                    r.cipher_suite,
                    r.handshake_time,
                    r.handshake_datagrams_sent,
                    r.handshake_bytes_sent,
                    r.handshake_datagrams_received,
                    r.handshake_bytes_received,
                    r.messages_sent,
                    r.received.len()
                ),
                Err(e) => {
                    eprintln!("client: {e}");
                    std::process::exit(1);
                }
            }
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
