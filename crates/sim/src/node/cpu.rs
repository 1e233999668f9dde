//! The CPU of a node: what each cryptographic operation costs on the
//! platform ([`CryptoCost`], the platform file's figures), and the CPU that
//! runs the work one after the other and releases a datagram only when the
//! work that produced it is done ([`Cpu`]).

use std::collections::VecDeque;
use std::net::SocketAddr;

use dtls::CryptoOps;

use crate::net::{is_link_local, node_port};
use crate::node::app::AppCx;
use crate::timer::{Timer, TimerTable};
use crate::Time;

/// What each cryptographic operation costs on the platform (µs).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CryptoCost {
    pub aes_block_us: f64,
    /// One AES-256 block (TLS_AES_256_GCM_SHA384).
    pub aes256_block_us: f64,
    pub sha256_block_us: f64,
    /// One SHA-512 compression (SHA-384 of TLS_AES_256_GCM_SHA384).
    pub sha512_block_us: f64,
    pub ecdh_us: f64,
    pub ecdsa_sign_us: f64,
    pub ecdsa_verify_us: f64,
    /// Curve25519's operations, for a key exchange on x25519.
    #[serde(default)]
    pub curve25519: Curve25519Cost,
}

/// What X25519 and Ed25519 cost on the platform (µs).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Curve25519Cost {
    pub x25519_us: f64,
    pub ed25519_sign_us: f64,
    pub ed25519_verify_us: f64,
}

impl CryptoCost {
    /// The costs of a handshake whose (EC)DH runs on x25519: the stack counts
    /// each key generation and shared secret as one ECDH operation, whatever
    /// the group.
    pub fn with_x25519_key_exchange(self) -> CryptoCost {
        CryptoCost {
            ecdh_us: self.curve25519.x25519_us,
            ..self
        }
    }

    pub fn of(&self, ops: &CryptoOps) -> Time {
        // SHA-1 compressions (CBC-SHA suites) are charged as SHA-256 ones:
        // the platform files give SHA-256 only, and SHA-1 is not dearer.
        let hash_blocks = ops.sha256_compressions + ops.sha1_compressions;
        let us = ops.aes_blocks as f64 * self.aes_block_us
            + ops.aes256_blocks as f64 * self.aes256_block_us
            + hash_blocks as f64 * self.sha256_block_us
            + ops.sha512_compressions as f64 * self.sha512_block_us
            + ops.ecdh_ops as f64 * self.ecdh_us
            + ops.ecdsa_signs as f64 * self.ecdsa_sign_us
            + ops.ecdsa_verifies as f64 * self.ecdsa_verify_us;
        us.round() as Time
    }
}

/// The CPU of a node: work queued after work, output released when done.
#[derive(Debug, Default)]
pub struct Cpu {
    busy_until: Time,
    /// (release time, destination, datagram)
    deferred: VecDeque<(Time, SocketAddr, Vec<u8>)>,
    timer_armed_for: Option<Time>,
}

impl Cpu {
    /// Charge `us` of work starting now (or when the CPU frees up); returns when it ends.
    pub fn run<R>(&mut self, cx: &mut AppCx<R>, us: Time) -> Time {
        cx.charge_cpu(us);
        self.busy_until = self.busy_until.max(cx.now()) + us;
        self.busy_until
    }

    pub fn send_at(&mut self, at: Time, to: SocketAddr, datagram: Vec<u8>) {
        self.deferred.push_back((at, to, datagram));
    }

    /// Send what is due; arm the timer for the rest (`send`, its kind in
    /// the application's `timers`).
    pub fn flush<R, K: Timer>(
        &mut self,
        cx: &mut AppCx<R>,
        timers: &mut TimerTable<K>,
        send: K,
        src_port: u16,
    ) {
        let now = cx.now();
        while let Some((at, to, _)) = self.deferred.front() {
            if *at > now {
                let at = *at;
                if self.timer_armed_for != Some(at) {
                    self.timer_armed_for = Some(at);
                    timers.add(cx, send, at);
                }
                return;
            }
            let (node, port) = node_port(to);
            let on_link = is_link_local(to);
            let (_, _, datagram) = self.deferred.pop_front().expect("peeked");
            if on_link {
                cx.send_on_link(node, src_port, port, datagram);
            } else {
                cx.send(node, src_port, port, datagram);
            }
        }
        self.timer_armed_for = None;
    }
}
