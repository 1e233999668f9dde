//! What several simulator test binaries share.
#![allow(dead_code)]

use dtls::{ClientConfig, Config, ServerConfig};
use sim::app::record::Record;
use sim::energy::PowerProfile;
use sim::engine::Stack;
use sim::mac::security::LinkSecurity;
use sim::mac::NodeMac;
use sim::net::Net;
use sim::node::app::App;
use sim::node::cpu::CryptoCost;
use sim::row::Value;
use sim::scenario::{MacSpec, Scenario, SessionHandshake, SessionsSpec, TopologySpec};
use sim::scenario::{TschSchedule, TschSpec, Workload};
use sim::world::Processing;

/// A WiSMote-like node at 2.8 V (the figures of platforms/wismote.toml,
/// rounded); tests compare runs with each other, not with the platform file.
pub fn wismote_like_power() -> PowerProfile {
    PowerProfile {
        voltage_v: 2.8,
        cpu_active_ma: 3.0,
        cpu_lpm_ma: 0.002,
        radio_tx_ma: 25.8,
        radio_rx_ma: 18.5,
        radio_off_ma: 0.001,
    }
}

/// One TSCH link per neighbour pair in an 11-slot slotframe, no link-layer
/// security: short enough that a handshake's frames find cells quickly.
pub fn small_tsch() -> MacSpec {
    small_tsch_secured(None)
}

/// [`small_tsch`] with `security` on its links.
pub fn small_tsch_secured(security: Option<LinkSecurity>) -> MacSpec {
    MacSpec::Tsch(TschSpec {
        security,
        ..TschSpec::new(11, TschSchedule::RandomLinks { cells: 1 })
    })
}

/// Column `key` of a result row.
pub fn get(row: &[(String, Value)], key: &str) -> Value {
    row.iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no column {key}"))
        .1
        .clone()
}

/// Integer column `key` of a result row.
pub fn int(row: &[(String, Value)], key: &str) -> i64 {
    match get(row, key) {
        Value::Int(i) => i,
        other => panic!("{key}: {other:?}"),
    }
}

/// `workload` between node 0 and `server` over `mac`: WiSMote-like power,
/// no CPU cost, starting at 1 s, over at most 600 s.
pub fn scenario(
    topology: TopologySpec,
    server: usize,
    mac: MacSpec,
    workload: Workload,
    seed: u64,
) -> Scenario {
    Scenario {
        topology,
        client: 0,
        server,
        mac,
        power: wismote_like_power(),
        crypto: CryptoCost::default(),
        processing: Processing::default(),
        workload,
        start_us: 1_000_000,
        power_on_window_us: 0,
        max_time_us: 600_000_000,
        timer_tick_us: 0,
        give_up_idle_us: None,
        close_notify: true,
        seed,
        outdated_key_nodes: Vec::new(),
        below_policy_nodes: Vec::new(),
    }
}

/// One PSK handshake from node 0 to `server` with `config` on both sides
/// (see [`scenario`] for the rest).
pub fn one_psk_handshake(
    topology: TopologySpec,
    server: usize,
    mac: MacSpec,
    config: Config,
    seed: u64,
) -> Scenario {
    const PSK: &[u8] = b"0123456789abcdef";
    let workload = Workload::Handshakes {
        client: ClientConfig::psk(config.clone(), b"id", PSK),
        server: ServerConfig::psk(config, b"id", PSK),
        count: 1,
        pause_us: 0,
        pause_jitter_us: 0,
    };
    scenario(topology, server, mac, workload, seed)
}

/// Round crypto costs of a slow board (P-256 operations of half a second),
/// for tests whose handshakes must show what public-key work costs.
pub fn slow_crypto() -> CryptoCost {
    CryptoCost {
        aes_block_us: 10.0,
        aes256_block_us: 14.0,
        sha256_block_us: 50.0,
        sha512_block_us: 125.0,
        ecdh_us: 500_000.0,
        ecdsa_sign_us: 500_000.0,
        ecdsa_verify_us: 500_000.0,
        ..CryptoCost::default()
    }
}

/// One stack per node: its MAC, a network layer (60 s reassembly) and its app.
pub fn stacks(macs: Vec<NodeMac>, apps: Vec<Box<dyn App<Record>>>) -> Vec<Stack<Record>> {
    macs.into_iter()
        .zip(apps)
        .enumerate()
        .map(|(n, (mac, app))| Stack {
            mac,
            net: Net::new(n, 60_000_000),
            app,
        })
        .collect()
}

/// Run `macs` and `apps` on `topology` (seed 3) until `until`, recording
/// every emission in `world.sent`.
pub fn run_recorded(
    topology: sim::topology::Topology,
    macs: Vec<NodeMac>,
    apps: Vec<Box<dyn App<Record>>>,
    until: u64,
) -> sim::engine::Sim<Record> {
    let mut sim = sim::engine::Sim::new(sim::world::World::new(topology, 3, 0), stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim.run(until, |_| false);
    sim
}

/// One 10-byte ping from node 0 to node 1, handed to the MAC at 1 ms.
pub fn ping_once() -> sim::app::echo::PingClient {
    sim::app::echo::PingClient::new(sim::app::echo::PingParams {
        server: 1,
        payload: 10,
        count: 1,
        first_at: 1_000,
        timeout_us: 10_000_000,
        pause_us: 1_000_000,
    })
}

/// A join storm's sessions: `clients` nodes joining the server once each by
/// `handshake` (a join is kept: a holding time far past any run), a slot
/// each and one to spare, a failed join tried again after an exponential
/// wait of mean 1 s, for 900 s. A test sets what it varies by struct
/// update (`SessionsSpec { join_proxy: true, ..common::joins(…) }`).
pub fn joins(clients: usize, handshake: SessionHandshake) -> SessionsSpec {
    const SECOND: u64 = 1_000_000;
    SessionsSpec {
        limits: session_table::Limits::slots(clients + 1),
        policy: session_table::Policy::Refuse,
        clients,
        attackers: 0,
        idle_mean_us: SECOND as f64,
        holding_mean_us: 1e7 * SECOND as f64,
        handshake,
        data_interval_us: 10_000 * SECOND,
        data_bytes: 16,
        close_until_answered: false,
        join_after_parent: false,
        join_proxy: false,
        join_rate_bytes_per_s: None,
        same_port: false,
        server_crypto: None,
        session_cache: 0,
        attack_interval_us: SECOND,
        warmup_us: 0,
        duration_us: 900 * SECOND,
        stop_at_secured_share: None,
        server_down_us: Vec::new(),
    }
}

/// CoJP with CoAP's default timers and a 2-byte token.
pub fn cojp() -> SessionHandshake {
    SessionHandshake::Cojp(sim::app::cojp::CojpSetup {
        coap: coap::reliability::Params::default(),
        token_bytes: 2,
    })
}
