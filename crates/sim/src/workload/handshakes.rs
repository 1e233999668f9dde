//! DTLS handshakes back to back from the client to the server: one row per
//! handshake, with the client's counters and every node's energy between
//! the handshake's start and end.

use crate::app::dtls::{AfterHandshake, ClientParams, DtlsClient, ServerParams};
use crate::app::dtls_version::{ClientSetup, ServerSetup};
use crate::app::edhoc::{EdhocClient, EdhocClientParams, EdhocServer, EdhocServerParams};
use crate::app::pause::Pause;
use crate::app::record::{HandshakeRecord, Record};
use crate::app::DTLS_PORT;
use crate::engine::Sim;
use crate::mac::Mac;
use crate::node::app::App;
use crate::node_rows::NodeTable;
use crate::row::{interval_columns, push, snapshot, Row, Snapshot, Value};
use crate::run::RunError;
use crate::scenario::{MacSpec, Scenario, Workload};

/// Why a handshake still under way when the run ends failed.
const OUT_OF_TIME: &str = "not finished by simulation.max_time_s";

pub(crate) fn apps(
    s: &Scenario,
    replication: u64,
    nodes: usize,
) -> Result<Vec<Box<dyn App<Record>>>, RunError> {
    let (client, server, count, pause): (ClientSetup, ServerSetup, _, _) = match &s.workload {
        Workload::Handshakes {
            client,
            server,
            count,
            pause_us,
            pause_jitter_us,
        } => (
            client.clone().into(),
            server.clone().into(),
            count,
            Pause::new(*pause_us, *pause_jitter_us),
        ),
        Workload::Handshakes13 {
            client,
            server,
            count,
            pause_us,
            pause_jitter_us,
        } => (
            client.clone().into(),
            (**server).clone().into(),
            count,
            Pause::new(*pause_us, *pause_jitter_us),
        ),
        _ => unreachable!("called for a handshake workload"),
    };
    let mut apps = super::idle(nodes);
    apps[s.client] = Box::new(client_app(
        s,
        client,
        *count,
        pause,
        if s.close_notify {
            AfterHandshake::Close
        } else {
            AfterHandshake::Drop
        },
        replication,
    ));
    apps[s.server] = server_app(s, server, false, replication)?;
    Ok(apps)
}

/// The EDHOC initiator (CoAP client) at the client node, the responder
/// (CoAP server) at the server node.
pub(crate) fn edhoc_apps(
    s: &Scenario,
    replication: u64,
    nodes: usize,
) -> Vec<Box<dyn App<Record>>> {
    let Workload::Edhoc {
        setup,
        count,
        pause_us,
        pause_jitter_us,
    } = &s.workload
    else {
        unreachable!("called for the EDHOC workload")
    };
    let mut apps = super::idle(nodes);
    apps[s.client] = Box::new(EdhocClient::new(
        EdhocClientParams {
            server: s.server,
            proxy: None,
            setup: *setup,
            handshakes: *count,
            first_at: s.start_us,
            pause: Pause::new(*pause_us, *pause_jitter_us),
            until_success: false,
            cost: s.crypto,
            seed: s.seed,
            replication,
            timer_tick_us: s.timer_tick_us,
        },
        s.client,
    ));
    apps[s.server] = edhoc_server(s, setup, s.crypto, replication);
    apps
}

/// The EDHOC responder at the scenario's server node.
pub(crate) fn edhoc_server(
    s: &Scenario,
    setup: &crate::app::edhoc::EdhocSetup,
    cost: crate::node::cpu::CryptoCost,
    replication: u64,
) -> Box<dyn App<Record>> {
    Box::new(EdhocServer::new(
        EdhocServerParams {
            setup: *setup,
            by_connection_id: false,
            cost,
            seed: s.seed,
            replication,
        },
        s.server,
    ))
}

/// The DTLS client at the scenario's client node.
pub(super) fn client_app(
    s: &Scenario,
    config: ClientSetup,
    handshakes: u32,
    pause: Pause,
    after: AfterHandshake,
    replication: u64,
) -> DtlsClient {
    DtlsClient::new(
        ClientParams {
            server: s.server,
            port: DTLS_PORT,
            config,
            handshakes,
            first_at: s.start_us,
            pause,
            give_up_idle_us: s.give_up_idle_us,
            after,
            cost: s.crypto,
            seed: s.seed,
            replication,
            timer_tick_us: s.timer_tick_us,
        },
        s.client,
    )
}

/// The DTLS server at the scenario's server node (echoing application
/// data back when `echo`).
pub(super) fn server_app(
    s: &Scenario,
    config: ServerSetup,
    echo: bool,
    replication: u64,
) -> Result<Box<dyn App<Record>>, RunError> {
    crate::app::dtls_version::server_app(
        ServerParams {
            config,
            cost: s.crypto,
            echo,
            seed: s.seed,
            replication,
            timer_tick_us: s.timer_tick_us,
            slots: None,
        },
        s.server,
    )
    .map_err(RunError::Dtls)
}

/// Payloads the network has lost so far: frames given up by a MAC (no ACK
/// after its retries, no strobe answered, channel never free) and
/// datagrams dropped by a node's 6LoWPAN layer (malformed, no route).
fn losses(sim: &Sim<Record>) -> u64 {
    sim.stacks
        .iter()
        .map(|st| st.mac.stats().drops + st.net.stats.dropped)
        .sum()
}

/// Snapshot every node when a handshake starts and when it ends; a row per
/// handshake that did both (one under way when time runs out ends failed).
///
/// A client retransmission is spurious when nothing was lost in the
/// network since the handshake started or since the client's previous
/// retransmission, whichever is later: what it resends was delivered or
/// still on its way, so the timer fired before the answer could come. Seen
/// as the client's timer fires (the run stops at each record). A loss that
/// hits an original after its timer fired counts it as spurious; a loss
/// between two timer firings leaves the next one unclassified (necessary).
pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    count: u32,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut start: Option<Snapshot> = None;
    let mut lost_before = 0;
    let mut spurious = 0;
    let mut seen = 0;
    let mut ended = 0;
    while ended < count {
        sim.run(s.max_time_us, |sim| sim.recorder.len() > seen);
        let out_of_time = sim.recorder.len() == seen;
        if out_of_time {
            sim.end_apps(OUT_OF_TIME);
        }
        while seen < sim.recorder.len() {
            let record = sim.recorder.entries()[seen].record.clone();
            seen += 1;
            match record {
                Record::HandshakeStarted { .. } => {
                    start = Some(snapshot(sim));
                    lost_before = losses(sim);
                    spurious = 0;
                }
                Record::Retransmitted => {
                    let lost = losses(sim);
                    if lost == lost_before {
                        spurious += 1;
                    }
                    lost_before = lost;
                }
                Record::HandshakeEnded(record) => {
                    ended += 1;
                    let to = snapshot(sim);
                    if let Some(from) = start.take() {
                        let mut r = row(sim, s, replication, &from, &to, &record);
                        push(&mut r, "spurious_retransmissions", Value::Int(spurious));
                        rows.push(r);
                        let index = i64::from(record.index);
                        nodes.add(index, &from, &to, sim.recorder.entries());
                    }
                }
                _ => {}
            }
        }
        if out_of_time {
            break;
        }
    }
    rows
}

/// One handshake's result row: what the client counted, and every node's
/// energy between the two snapshots.
fn row(
    sim: &Sim<Record>,
    s: &Scenario,
    replication: u64,
    from: &Snapshot,
    to: &Snapshot,
    record: &HandshakeRecord,
) -> Row {
    let mut row = vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(i64::from(record.index))),
        ("success".to_string(), Value::Bool(record.success)),
        // A failed handshake has no duration, only the time until the client
        // gave up (or the run ended): its own column, null in the other.
        (
            if record.success {
                "duration_s"
            } else {
                "give_up_s"
            }
            .to_string(),
            Value::Float((record.ended_at - record.started_at) as f64 / 1e6),
        ),
        (
            "failure".to_string(),
            Value::Text(record.failure.clone().unwrap_or_default()),
        ),
    ];
    let st = &record.client;
    let counters = [
        ("client_datagrams_sent", st.datagrams_sent),
        ("client_datagrams_received", st.datagrams_received),
        ("client_bytes_sent", st.bytes_sent),
        ("client_bytes_received", st.bytes_received),
        ("dtls_retransmissions", st.retransmissions),
        // malformed, truncated or unauthenticated datagrams the client dropped
        ("client_records_dropped", st.records_dropped),
        ("client_aes_blocks", st.crypto.aes_blocks),
        ("client_sha256_blocks", st.crypto.sha256_compressions),
        ("client_crypto_cpu_us", record.client_crypto_us),
    ];
    for (key, v) in counters {
        push(&mut row, key, Value::Int(v as i64));
    }
    // when the client could send application data (absent: it never could)
    if let Some(t) = record.keys_at {
        let keys_s = (t - record.started_at) as f64 / 1e6;
        push(&mut row, "keys_s", Value::Float(keys_s));
    }
    let flights: Vec<String> = record
        .flight_bytes()
        .iter()
        .map(|b| b.to_string())
        .collect();
    push(&mut row, "flights", Value::Int(flights.len() as i64));
    push(&mut row, "flight_bytes", Value::Text(flights.join("/")));
    push(&mut row, "hops", Value::Int(super::hops(sim, s)));
    interval_columns(
        &mut row,
        from,
        to,
        &s.power,
        matches!(s.mac, MacSpec::Beacon(_)),
    );
    let client_energy = row_value(&row, &format!("node{}_energy_uj", s.client));
    push(&mut row, "client_energy_uj", client_energy);
    row
}

fn row_value(row: &Row, key: &str) -> Value {
    row.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .unwrap_or(Value::Float(f64::NAN))
}
