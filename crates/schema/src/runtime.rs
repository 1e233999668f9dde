//! A checked point and its platform's figures → the simulator's spec
//! (`sim::scenario::Scenario`). Units become microseconds here (through
//! [`crate::units`]); what the simulator cannot run yet is refused here,
//! naming the key.

use session_table::Policy;
use sim::mac::address::LinkAddressing;
use sim::mac::beacon::{BeaconParams, PollPolicy};
use sim::mac::csma::CsmaParams;
use sim::mac::security::LinkSecurity as RuntimeSecurity;
use sim::mac::tsch::{SlotStack, Template};
use sim::mac::xmac::XmacParams;
use sim::medium::{Area, AreaMedium};
use sim::scenario::{
    GivenCell, MacSpec, Scenario, SessionHandshake, SessionsSpec, TopologySpec, TschSchedule,
    TschSpec, Workload,
};
use sim::world::Processing;

use crate::dtls::{hex, Version};
use crate::link_security::LinkSecurity;
use crate::mac::{CellPlacement, MacKind, Poll, Schedule};
use crate::platform::PlatformCosts;
use crate::point::Point;
use crate::problem::Problems;
use crate::topology::{Audible, TopologyKind};
use crate::units::{us_from_ms, us_from_s};
use crate::workload::{PingSecurity, WorkloadKind};

/// The shortest timeslot the IEEE default template fits in: TsTxOffset +
/// TsMaxTx + TsTxAckDelay + TsMaxAck.
pub fn template_minimum_us() -> u64 {
    let t = Template::default();
    t.tx_offset_us + t.max_tx_us + t.tx_ack_delay_us + t.max_ack_us
}

/// The simulator's spec of a point (which has been settled and validated).
pub fn to_scenario(point: &Point, platform: &PlatformCosts) -> Result<Scenario, Problems> {
    let mut p = Problems::default();
    let t = &point.topology;
    let nodes = t.node_count() as usize;
    let m = &point.medium;
    let signal = m.log_distance(platform.radio, &mut p);
    // the IEEE channels the MAC sends on: TSCH hops over its default
    // sequence, the others stay on the radio's channel 0
    let mut channels: Vec<u8> = match point.mac.kind {
        MacKind::Tsch => sim::mac::tsch::DEFAULT_HOPPING.to_vec(),
        _ => vec![0],
    };
    channels.sort_unstable();
    channels
        .iter_mut()
        .for_each(|c| *c += sim::k7::FIRST_CHANNEL);
    let topology = match (
        t.kind,
        m.udgm(),
        signal,
        m.pister_hack(),
        m.trace(nodes, &channels, &mut p),
    ) {
        (TopologyKind::Line, Some(udgm), ..) => TopologySpec::UdgmLine { nodes, udgm },
        (TopologyKind::Line, _, Some(medium), ..) => {
            TopologySpec::LogDistanceLine { nodes, medium }
        }
        (TopologyKind::Line, _, _, Some(medium), _) => {
            TopologySpec::PisterHackLine { nodes, medium }
        }
        (TopologyKind::Line, .., Some(replay)) => TopologySpec::Trace { nodes, replay },
        (TopologyKind::Line, ..) => TopologySpec::Line {
            nodes,
            pdr: t.pdr.unwrap_or(1.0),
            audible: match t.audible.unwrap_or_default() {
                Audible::Routes => sim::topology::Audible::Routes,
                Audible::All => sim::topology::Audible::All,
            },
        },
        (TopologyKind::Links, ..) => TopologySpec::Links {
            nodes,
            links: t.directed_links(),
        },
        (TopologyKind::Random, udgm, signal, pister, _) => {
            let side_m = t.area_side_m.unwrap_or_default();
            let given = t.given_positions();
            let medium = (udgm.map(AreaMedium::Udgm))
                .or(signal.map(AreaMedium::LogDistance))
                .or(pister.map(AreaMedium::PisterHack));
            match medium {
                Some(medium) => TopologySpec::Area(Area {
                    nodes,
                    side_m,
                    given,
                    medium,
                }),
                None => TopologySpec::Random {
                    nodes,
                    side_m,
                    range_m: t.range_m.unwrap_or_default(),
                    positions: given,
                    border_routers: t.border_routers.unwrap_or(1) as usize,
                },
            }
        }
    };
    border_router_limits(point, &topology, &mut p);
    let security = link_security(
        &point.link_security,
        point.sessions.link_security_after_join,
        platform,
    );
    if point.link_security.level.0 != "none" && security.is_none() {
        let why = "needs the platform's CCM* costs for link_security.strategy";
        p.push("link_security.level", point.link_security.level, why);
    }
    let mac = mac(point, platform, security);
    if mac.is_none() {
        let why = "the simulator runs csma, xmac, beacon, tsch so far";
        p.push("mac.kind", point.mac.kind, why);
    }
    let mut workload = workload(point, platform.ram_bytes, &mut p);
    if let Some(sim::scenario::Workload::Sessions(w)) = workload.as_mut() {
        w.server_crypto = server_crypto(point, platform, &mut p);
    }
    let (client, server) = point.workload.ends(nodes, &mut p);
    let (Some(mac), Some(workload), true) = (mac, workload, p.is_empty()) else {
        return Err(p);
    };
    let ls = &point.link_security;
    Ok(Scenario {
        topology,
        client,
        server,
        mac,
        power: platform.power,
        crypto: crypto(point, platform.crypto),
        processing: Processing {
            frame_us: platform.frame_processing_us,
            bus_us_per_byte: platform.bus_us_per_byte,
        },
        workload,
        start_us: us_from_ms(point.simulation.start_ms),
        power_on_window_us: point.simulation.power_on_window_s.map_or(0, us_from_s),
        max_time_us: us_from_s(point.simulation.max_time_s),
        timer_tick_us: us_from_ms(point.simulation.timer_tick_ms),
        give_up_idle_us: point.workload.give_up_idle_ms.map(us_from_ms),
        close_notify: point.workload.close_notify.unwrap_or(true),
        seed: point.experiment.seed,
        outdated_key_nodes: ls.outdated_key_nodes.iter().map(|&n| n as usize).collect(),
        below_policy_nodes: (ls.below_policy_nodes.iter())
            .map(|&n| (n as usize, ls.below_policy_level.get()))
            .collect(),
    })
}

/// The platform's costs as the point's handshake pays them: a DTLS 1.3
/// key exchange on x25519 pays X25519 for each ECDH operation the stack
/// counts (EDHOC's suite 2 stays on P-256).
fn crypto(point: &Point, table: sim::node::cpu::CryptoCost) -> sim::node::cpu::CryptoCost {
    let edhoc = point.workload.handshake == Some(crate::workload::Handshake::Edhoc);
    if point.dtls.group == crate::dtls::Group::X25519 && !edhoc {
        table.with_x25519_key_exchange()
    } else {
        table
    }
}

/// The server's cost table when it is not the nodes' (`sessions.server_crypto`).
fn server_crypto(
    point: &Point,
    platform: &PlatformCosts,
    p: &mut Problems,
) -> Option<sim::node::cpu::CryptoCost> {
    if point.sessions.server_crypto == crate::point::ServerCrypto::Platform {
        return None;
    }
    let Some(host) = platform.server_crypto else {
        let why = "needs the host's cost table in the platform figures (the Python reader adds it)";
        p.push("sessions.server_crypto", "host", why);
        return None;
    };
    Some(crypto(point, host))
}

fn link_security(
    ls: &LinkSecurity,
    point_after_join: bool,
    platform: &PlatformCosts,
) -> Option<RuntimeSecurity> {
    if ls.level.0 == "none" {
        return None;
    }
    let key: [u8; 16] = hex(&ls.key_hex)?.try_into().ok()?;
    let ccm = platform.ccm?;
    Some(RuntimeSecurity {
        level: ls.level.get(),
        key_id_mode: ls.key_id_mode,
        key,
        key_index: 1,
        frame_counter_suppressed: ls.frame_counter_suppressed,
        after_join: point_after_join,
        setup_us: ccm.setup_us,
        // one cost model for the closed forms and the simulator
        per_block_us: ccm.per_block_us(),
    })
}

fn mac(
    point: &Point,
    platform: &PlatformCosts,
    security: Option<RuntimeSecurity>,
) -> Option<MacSpec> {
    let frame_processing_us = platform.frame_processing_us.round() as u64;
    let m = &point.mac;
    Some(match m.kind {
        MacKind::None => return None,
        MacKind::Csma => {
            let c = m.csma.clone().unwrap_or_default();
            MacSpec::Csma(CsmaParams {
                min_be: c.min_be,
                max_be: c.max_be,
                max_backoffs: c.max_backoffs,
                max_retries: c.max_retries,
                backoff_unit_us: us_from_ms(c.backoff_unit_ms),
                frame_processing_us,
                security,
            })
        }
        MacKind::Xmac => {
            let x = m.xmac.clone().unwrap_or_default();
            let check_interval_us = us_from_ms(x.check_interval_ms);
            MacSpec::Xmac(XmacParams {
                check_interval_us,
                on_time_us: us_from_ms(x.on_time_ms),
                strobe_time_us: us_from_ms(x.check_interval_ms + x.strobe_margin_ms),
                strobe_period_us: us_from_ms(x.strobe_period_ms),
                first_strobe_lead_us: x.first_strobe_lead_ms.map(us_from_ms),
                data_wait_us: us_from_ms(x.data_wait_ms),
                encounter_optimization: x.encounter_optimization,
                encounter_lead_us: us_from_ms(x.encounter_lead_ms),
                frame_processing_us,
                max_transmissions: x.max_transmissions,
                queue_capacity: x.queued_packets as usize,
                abort_on_strobe: x.abort_on_strobe,
                listen_window_in_clock_ticks: x.listen_window_in_clock_ticks,
                listen_before_strobe: x.listen_before_strobe,
                someone_is_sending: x.someone_is_sending,
                backoff_in_clock_ticks: x.backoff_in_clock_ticks,
                waiting_for_packet: x.waiting_for_packet,
                busy_send_cpu: x.busy_send_cpu,
                deaf_encounter_wait: x.deaf_encounter_wait,
                rebase_after_send: x.rebase_after_send,
                rebase_after_ack: x.rebase_after_ack,
                cooja_mote_ticks: x.cooja_mote_ticks,
                exponential_backoff: x.exponential_backoff,
                addressing: LinkAddressing::from_extended(x.extended_addresses),
                contiki_context_byte: x.contiki_context_byte,
                contiki_reassembly: x.contiki_reassembly,
                security,
                crystal_tolerance_ppm: platform.crystal_tolerance_ppm,
                // csma's queues, its wait between packets and lazy idle
                // listening as Contiki runs them
                ..XmacParams::contiki(check_interval_us)
            })
        }
        MacKind::Contikimac => {
            let c = m.contikimac.clone().unwrap_or_default();
            MacSpec::Contikimac(sim::mac::contikimac::ContikimacParams {
                security,
                ..c.runtime()
            })
        }
        MacKind::Csl => {
            let c = m.csl.clone().unwrap_or_default();
            MacSpec::Csl(sim::mac::csl::CslParams {
                frame_processing_us,
                security,
                ..c.runtime()
            })
        }
        MacKind::Beacon => {
            let b = m.beacon.clone().unwrap_or_default();
            let defaults = BeaconParams::new(b.beacon_order, b.superframe_order);
            MacSpec::Beacon(BeaconParams {
                min_be: b.min_be,
                max_be: b.max_be,
                max_backoffs: b.max_backoffs,
                max_retries: b.max_retries,
                guard_us: b.guard_time_us,
                offset_us: b.superframe_offset_us,
                poll: match b.poll {
                    Poll::Standard => PollPolicy::Standard,
                    Poll::OncePerBeacon => PollPolicy::OncePerBeacon,
                },
                frame_processing_us,
                security,
                ..defaults
            })
        }
        MacKind::Tsch => {
            let t = m.tsch.clone().unwrap_or_default();
            let schedule = match (t.cell_placement, t.schedule) {
                (CellPlacement::Given, _) => TschSchedule::Given(
                    (t.cells.iter())
                        .map(|c| GivenCell {
                            from: c.sender as usize,
                            to: c.receiver as usize,
                            slot: c.slot,
                            channel_offset: c.channel_offset,
                        })
                        .collect(),
                ),
                (CellPlacement::Random, Schedule::Links) => TschSchedule::RandomLinks {
                    cells: t.cells_per_link,
                },
                (CellPlacement::Random, Schedule::Tree) => TschSchedule::Tree {
                    shared: t.shared_cells,
                },
                (CellPlacement::Random, Schedule::TreeBoth) => TschSchedule::TreeBoth {
                    shared: t.shared_cells,
                },
                (CellPlacement::Random, Schedule::Minimal) => TschSchedule::Minimal,
                (CellPlacement::Random, Schedule::Msf) => TschSchedule::Msf,
                (CellPlacement::Random, Schedule::Orchestra) => TschSchedule::Orchestra {
                    unicast_period: t.orchestra_unicast_period,
                    common_period: t.orchestra_common_period,
                    line_neighbours_up_to: t.orchestra_line_neighbours_up_to,
                    eb_slotframe: t.orchestra_eb_period,
                    eb_period_us: us_from_s(t.eb_period_s),
                },
            };
            MacSpec::Tsch(TschSpec {
                template: Template {
                    slot_us: us_from_ms(t.timeslot_ms),
                    ..Template::default()
                },
                slotframe: t.slotframe_length,
                schedule,
                max_retries: t.max_retries,
                max_be: t.max_be,
                frame_processing_us,
                security,
                channel_pdr: t.channel_pdr.clone(),
                addressing: LinkAddressing::from_extended(t.extended_addresses),
                stack: SlotStack {
                    cost: platform.stack,
                    bus_us_per_byte: platform.bus_us_per_byte,
                },
                formation: (t.formation == crate::mac::Formation::Scan).then(|| {
                    sim::mac::tsch::formation::FormationParams {
                        root: false, // node 0's is set when its MAC is built
                        eb_period_us: us_from_s(t.eb_period_s),
                        scan_dwell_us: us_from_s(t.scan_dwell_s),
                    }
                }),
                sync: (t.formation == crate::mac::Formation::Scan && t.drift_ppm > 0.0).then(
                    || sim::mac::tsch::sync::SyncParams {
                        crystal_tolerance_ppm: t.drift_ppm,
                        crystal: None,
                        keepalive_timeout_us: us_from_s(t.keepalive_timeout_s),
                        desync_threshold_us: us_from_s(t.desync_threshold_s),
                        guard_us: t.guard_us.round() as u64,
                        parent_time_source: t.time_source == crate::mac::TimeSource::Parent,
                        adaptive: t.adaptive_timesync,
                        // Contiki-NG's, and the cc2538's rtimer rate
                        ..sim::mac::tsch::sync::SyncParams::contiki(t.drift_ppm, 2_200)
                    },
                ),
                // Cooja runs a busy-waiting mote again 1 ms later
                busy_wait_step_us: if t.cooja_mote_ticks { 1_000 } else { 0 },
                rpl: t.routing == crate::mac::Routing::Rpl,
            })
        }
    })
}

fn workload(
    point: &Point,
    ram_bytes: Option<u64>,
    p: &mut Problems,
) -> Option<sim::scenario::Workload> {
    let w = &point.workload;
    let dtls = &point.dtls;
    let other_dtls = match w.kind {
        WorkloadKind::Ping => matches!(w.ping_security, Some(PingSecurity::Suite(_))),
        WorkloadKind::Sessions => point.sessions.handshake == crate::point::SessionHandshake::Dtls,
        _ => false,
    };
    if dtls.version == Version::V1_3 && other_dtls {
        let why = if w.kind == WorkloadKind::Sessions {
            "sessions.handshake = \"dtls\" is DTLS 1.2 with the slot table; a DTLS 1.3 join is sessions.handshake = \"dtls13\""
        } else {
            "the simulator runs DTLS 1.3 in the handshakes workload so far"
        };
        p.push("dtls.version", dtls.version, why);
        return None;
    }
    Some(match w.kind {
        WorkloadKind::Handshakes => {
            let count = w.handshakes.unwrap_or(1);
            let pause_us = us_from_ms(w.pause_ms.unwrap_or_default());
            let pause_jitter_us = us_from_ms(w.pause_jitter_ms.unwrap_or_default());
            if w.handshake == Some(crate::workload::Handshake::Edhoc) {
                return Some(Workload::Edhoc {
                    setup: point.edhoc.setup(),
                    count,
                    pause_us,
                    pause_jitter_us,
                });
            }
            match dtls.version {
                Version::V1_2 => {
                    let pair = dtls.psk_pair(dtls.suite.0, "dtls.suite");
                    let (client, server) = pair.map_err(|e| p.0.extend(e.0)).ok()?;
                    Workload::Handshakes {
                        client,
                        server,
                        count,
                        pause_us,
                        pause_jitter_us,
                    }
                }
                Version::V1_3 => {
                    let pair = dtls.psk_pair13(dtls.suite.0, "dtls.suite");
                    let (client, server) = pair.map_err(|e| p.0.extend(e.0)).ok()?;
                    Workload::Handshakes13 {
                        client,
                        server: Box::new(server),
                        count,
                        pause_us,
                        pause_jitter_us,
                    }
                }
            }
        }
        WorkloadKind::Periodic => Workload::Periodic {
            interval_us: us_from_s(w.report_interval_s.unwrap_or_default()),
            payload: w.report_payload_bytes.unwrap_or_default() as usize,
            duration_us: us_from_s(w.duration_s.unwrap_or_default()),
        },
        WorkloadKind::Frames => Workload::Frames {
            frames: w.frames.unwrap_or_default(),
            payload: w.frame_payload_bytes.unwrap_or_default() as usize,
            max_wait_us: us_from_ms(w.frame_max_wait_ms.unwrap_or_default()),
        },
        WorkloadKind::Sessions => Workload::Sessions(Box::new(sessions(point, ram_bytes, p)?)),
        WorkloadKind::Ping => {
            let dtls = match w.ping_security {
                Some(PingSecurity::Suite(s)) => {
                    let pair = dtls.psk_pair(s.0, "workload.ping_security");
                    Some(pair.map_err(|e| p.0.extend(e.0)).ok()?)
                }
                _ => None,
            };
            Workload::Ping {
                dtls,
                payload: w.ping_payload_bytes.unwrap_or_default() as usize,
                count: w.pings.unwrap_or_default(),
                timeout_us: us_from_ms(w.ping_timeout_ms.unwrap_or_default()),
                pause_us: us_from_ms(w.pause_ms.unwrap_or_default()),
            }
        }
    })
}

/// R from the RAM budget: what is left of the platform's RAM beside
/// `fixed` bytes, in slots each sized for a handshake of the point's suite
/// in a constrained stack's compact layout ([`dtls::compact_session_bytes`]).
fn slots_from_ram(
    point: &Point,
    ram_bytes: Option<u64>,
    fixed: u32,
    p: &mut Problems,
) -> Option<usize> {
    let Some(ram) = ram_bytes else {
        p.push(
            "sessions.fixed_ram_bytes",
            fixed,
            "needs the platform's mcu.ram_bytes",
        );
        return None;
    };
    let cid = point.dtls.cid_bytes.map(|n| (n as usize, n as usize));
    let suite = dtls::CipherSuite::from_name(point.dtls.suite.0);
    let slot = dtls::compact_session_bytes(suite, cid, true) as u64;
    let slots = ram.saturating_sub(u64::from(fixed)) / slot;
    if slots == 0 {
        let why = format!(
            "leaves no room for one session slot ({slot} B) in the platform's {ram} B of RAM"
        );
        p.push("sessions.fixed_ram_bytes", fixed, why);
        return None;
    }
    Some(slots as usize)
}

/// The sessions workload from `[sessions]`: R slots, N clients offering ρ
/// each while idle, holding 1/μ = holding_s, so idle 1/λ = holding_s / ρ.
fn sessions(point: &Point, ram_bytes: Option<u64>, p: &mut Problems) -> Option<SessionsSpec> {
    use crate::point::{SessionHandshake as H, SessionPolicy as P};
    let x = &point.sessions;
    let handshake = match x.handshake {
        H::Instant => SessionHandshake::Instant,
        H::Dtls => {
            let dtls = &point.dtls;
            let pair = dtls.psk_pair(dtls.suite.0, "dtls.suite");
            let (client, server) = pair.map_err(|e| p.0.extend(e.0)).ok()?;
            SessionHandshake::Dtls {
                client: Box::new(client),
                server: Box::new(server),
            }
        }
        H::Dtls13 => {
            let dtls = &point.dtls;
            let pair = dtls.psk_pair13(dtls.suite.0, "dtls.suite");
            let (client, server) = pair.map_err(|e| p.0.extend(e.0)).ok()?;
            SessionHandshake::Dtls13 {
                client: Box::new(client),
                server: Box::new(server),
            }
        }
        H::Edhoc => SessionHandshake::Edhoc(point.edhoc.setup()),
        // CoAP over the same settings as EDHOC's transport ([edhoc]'s
        // CoAP timers and token)
        H::Cojp => SessionHandshake::Cojp(sim::app::cojp::CojpSetup {
            coap: point.edhoc.setup().coap,
            token_bytes: point.edhoc.setup().token_bytes,
        }),
    };
    let joins = matches!(x.handshake, H::Dtls13 | H::Edhoc | H::Cojp);
    if joins && x.attackers > 0 {
        let why = "attackers abandon DTLS 1.2 handshakes: they need sessions.handshake = \"dtls\"";
        p.push("sessions.attackers", x.attackers, why);
        return None;
    }
    let slots = match x.fixed_ram_bytes {
        None => x.slots as usize,
        Some(fixed) => slots_from_ram(point, ram_bytes, fixed, p)?,
    };
    Some(SessionsSpec {
        limits: session_table::Limits {
            slots,
            half_open_max: x.half_open_max.map(|v| v as usize),
            half_open_timeout_us: x.half_open_timeout_s.map(us_from_s),
            idle_timeout_us: x.idle_timeout_s.map(us_from_s),
            per_host_max: x.per_host_max.map(|v| v as usize),
            ..session_table::Limits::slots(slots)
        },
        policy: match x.policy {
            P::Refuse => Policy::Refuse,
            P::EvictLru => Policy::EvictLeastRecentlyUsed,
            P::EvictOldest => Policy::EvictOldest,
            P::EvictHalfOpen => Policy::EvictHalfOpen,
        },
        clients: x.clients as usize,
        attackers: x.attackers as usize,
        idle_mean_us: x.holding_s / x.erlang * 1e6,
        holding_mean_us: x.holding_s * 1e6,
        handshake,
        data_interval_us: us_from_s(x.data_interval_s),
        data_bytes: x.data_bytes as usize,
        close_until_answered: x.close == crate::point::SessionClose::UntilAnswered,
        session_cache: x.session_cache as usize,
        join_after_parent: x.join_after_parent,
        join_proxy: x.join_proxy,
        join_rate_bytes_per_s: x.join_rate_bytes_per_s.map(u64::from),
        same_port: x.same_port,
        server_crypto: None, // set from the platform figures by to_scenario
        attack_interval_us: us_from_s(x.attack_interval_s),
        warmup_us: us_from_s(x.warmup_s),
        duration_us: us_from_s(x.duration_s),
        stop_at_secured_share: x.stop_at_secured_share,
        server_down_us: (x.server_down_s.iter())
            .map(|&[from, to]| (us_from_s(from), us_from_s(to)))
            .collect(),
    })
}

/// Several border routers need what carries them: the disk model's random
/// square (a medium of signals places its nodes itself), a MAC whose
/// nodes each follow their own tree's root (TSCH, or one with no tree:
/// CSMA, X-MAC, ContikiMAC), and the computed routes (RPL here grows one
/// DODAG from node 0).
fn border_router_limits(point: &Point, topology: &TopologySpec, p: &mut Problems) {
    let b = point.topology.border_routers.unwrap_or(1);
    if b <= 1 {
        return;
    }
    let key = "topology.border_routers";
    if matches!(topology, TopologySpec::Area(_)) {
        let why = "must be 1 with a [medium] model: several border routers are placed under \
                   the disk model only (no udgm, log-distance or Pister-hack medium)";
        p.push(key, b, why);
    }
    if matches!(point.mac.kind, MacKind::Beacon | MacKind::Csl) {
        let why = format!(
            "must be 1 with mac.kind = '{}': it builds one tree under one PAN coordinator",
            point.mac.kind.name()
        );
        p.push(key, b, why);
    }
    let rpl = point
        .mac
        .tsch
        .as_ref()
        .is_some_and(|t| t.routing == crate::mac::Routing::Rpl);
    if point.mac.kind == MacKind::Tsch && rpl {
        let why = "must be 1 with mac.tsch.routing = 'rpl': RPL grows one DODAG, from node 0 \
                   (several border routers route by the computed forest, routing = 'tree')";
        p.push(key, b, why);
    }
}
