//! Session capacity: N clients and a server with R slots (and, maybe,
//! attackers): one row per replication with the blocking measured over the
//! measuring window, labelled as the Engset closed form labels it — time
//! congestion (share of time a request would find every slot taken) and
//! call congestion (share of the table's decisions that refused) — and what
//! the sessions cost.

use std::collections::BTreeMap;
use std::sync::Arc;

use dtls::{ClientConfig, ServerConfig};

use super::outage::{Rebuild, ServerOutage};
use crate::app::dtls::ServerParams;
use crate::app::join_proxy::{JoinProxy, JoinProxyParams};
use crate::app::record::{Decision, Record, SessionEnd, SlotFreed};
use crate::app::sessions::{InstantParams, InstantSessions, SessionClient, SessionParams};
use crate::engine::Sim;
use crate::node::app::{App, AppCx, Entry};
use crate::node_rows::NodeTable;
use crate::row::{push, snapshot, Row, Value};
use crate::run::RunError;
use crate::scenario::{Scenario, SessionHandshake, SessionsSpec, Workload};
use crate::topology::Topology;
use crate::{NodeId, Time};

fn spec(s: &Scenario) -> &SessionsSpec {
    let Workload::Sessions(w) = &s.workload else {
        unreachable!("called for a sessions workload")
    };
    w
}

pub(crate) fn apps(
    s: &Scenario,
    replication: u64,
    topology: &Topology,
) -> Result<Vec<Box<dyn App<Record>>>, RunError> {
    let nodes = topology.nodes();
    let w = spec(s);
    // a client's own first wait counts from its power-on
    let powered = crate::power_on::power_on_times(
        s.seed,
        replication,
        nodes,
        s.power_on_window_us,
        &crate::power_on::on_from_start(topology, s.server),
    );
    let mut apps = super::idle(nodes);
    let who: Vec<NodeId> = w
        .nodes(s.server)
        .into_iter()
        .filter(|&n| n < nodes)
        .collect();
    match &w.handshake {
        SessionHandshake::Instant => {
            apps[s.server] = Box::new(InstantSessions::new(InstantParams {
                limits: w.limits,
                policy: w.policy,
                clients: who.iter().copied().take(w.clients).collect(),
                idle_mean_us: w.idle_mean_us,
                holding_mean_us: w.holding_mean_us,
                first_at: s.start_us,
                seed: s.seed,
                replication,
            }));
        }
        SessionHandshake::Dtls { client, .. } => {
            let config = Arc::new(ClientConfig::clone(client));
            for (k, &node) in who.iter().enumerate() {
                apps[node] = Box::new(SessionClient::new(
                    SessionParams {
                        server: s.server,
                        config: config.clone(),
                        idle_mean_us: w.idle_mean_us,
                        holding_mean_us: w.holding_mean_us,
                        data_interval_us: w.data_interval_us,
                        data_bytes: w.data_bytes,
                        close_until_answered: w.close_until_answered,
                        first_at: powered[node] + s.start_us,
                        attack_interval_us: (k >= w.clients).then_some(w.attack_interval_us),
                        cost: s.crypto,
                        seed: s.seed,
                        replication,
                        timer_tick_us: s.timer_tick_us,
                        same_port: w.same_port,
                    },
                    node,
                ));
            }
        }
        SessionHandshake::Dtls13 { .. }
        | SessionHandshake::Edhoc(_)
        | SessionHandshake::Cojp(_) => {
            join_apps(s, w, replication, &who, topology, &powered, &mut apps)?;
        }
    }
    if !matches!(w.handshake, SessionHandshake::Instant) {
        let first = server(s, w, replication, who.len(), 1)?;
        apps[s.server] = if w.server_down_us.is_empty() {
            first
        } else {
            let windows = w.server_down_us.clone();
            let slot_table = matches!(w.handshake, SessionHandshake::Dtls { .. });
            let (s, w, n) = (s.clone(), w.clone(), who.len());
            let rebuild: Rebuild = Box::new(move |life| server(&s, &w, replication, n, life));
            Box::new(ServerOutage::new(windows, first, rebuild, slot_table))
        };
    }
    if w.join_after_parent {
        // every client waits to be let go (drive lets go those one hop
        // from the server at once, the others as their parents succeed)
        for &node in who.iter().take(w.clients) {
            let inner = std::mem::replace(&mut apps[node], Box::new(crate::node::app::Idle));
            apps[node] = Box::new(AfterParent {
                inner,
                started: false,
            });
        }
    }
    if w.join_proxy {
        // every node but the JRC's relays its neighbours' joins (the JRC
        // answers those next to it itself)
        for (node, app) in apps.iter_mut().enumerate() {
            if node == s.server {
                continue;
            }
            let inner = std::mem::replace(app, Box::new(crate::node::app::Idle));
            // a CoJP-joined proxy enforces the rate its own Join Response
            // gave it (the JRC's setting); EDHOC carries none, the key's
            // value is every proxy's
            let cojp = matches!(w.handshake, SessionHandshake::Cojp(_));
            let p = JoinProxyParams {
                jrc: s.server,
                join_rate_bytes_per_s: w.join_rate_bytes_per_s.filter(|_| !cojp),
                rate_from_own_join: cojp,
                cost: s.crypto,
                seed: s.seed,
                replication,
            };
            *app = Box::new(JoinProxy::new(inner, p, node));
        }
    }
    Ok(apps)
}

/// The server of a sessions workload that has one on the air (not the
/// instant table), in its `life`-th life (1: from power-on; a later one
/// after it went down, [`ServerOutage`]): the DTLS 1.2 server behind its
/// slot table, the DTLS 1.3 server, the EDHOC responder or the CoJP JRC,
/// for `clients` clients and attackers. A later life draws fresh
/// randomness (a restarted process's); what it was provisioned with (keys,
/// the JRC's network key) is the same.
fn server(
    s: &Scenario,
    w: &SessionsSpec,
    replication: u64,
    clients: usize,
    life: u32,
) -> Result<Box<dyn App<Record>>, RunError> {
    use crate::app::cojp::{Jrc, JrcParams};
    use crate::app::edhoc::{EdhocServer, EdhocServerParams};
    let cost = w.server_cost(s.crypto);
    let fresh = if life <= 1 {
        s.seed
    } else {
        crate::rng::mix(s.seed ^ u64::from(life).rotate_left(32))
    };
    let params = |config: crate::app::dtls_version::ServerSetup, slots| ServerParams {
        config,
        cost,
        echo: false,
        seed: fresh,
        replication,
        timer_tick_us: s.timer_tick_us,
        slots,
    };
    Ok(match &w.handshake {
        SessionHandshake::Dtls { server, .. } => {
            let mut config = ServerConfig::clone(server);
            // the table decides who gets a slot; the endpoint only keeps
            // them: no bound of its own below the table's, neither on
            // sessions nor on half-open handshakes (its default, 16, had
            // throttled every storm to 16 handshakes in flight)
            config.max_sessions = clients + 1;
            config.max_half_open = config.max_sessions;
            config.session_cache = w.session_cache;
            let p = params(config.into(), Some((w.limits, w.policy)));
            crate::app::dtls_version::server_app(p, s.server).map_err(RunError::Dtls)?
        }
        SessionHandshake::Dtls13 { server, .. } => {
            // the half-open bound of this workload's servers is
            // sessions.half_open_max, absent: none below the sessions the
            // server holds (dtls.server_max_sessions), as this workload's
            // slot table has (`set_session_limits`' rule); the
            // endpoint's own default, 16, throttled every storm to 16
            // handshakes in flight whatever the network
            let mut server = (**server).clone();
            server.max_half_open = w.limits.half_open_max.unwrap_or(server.max_sessions);
            let p = params(server.into(), None);
            crate::app::dtls_version::server_app(p, s.server).map_err(RunError::Dtls)?
        }
        SessionHandshake::Edhoc(setup) => Box::new(EdhocServer::new(
            EdhocServerParams {
                setup: *setup,
                // behind a join proxy every pledge has its address
                by_connection_id: w.join_proxy,
                cost,
                seed: fresh,
                replication,
            },
            s.server,
        )),
        // the network's key is what the JRC was provisioned with: the
        // same in every life
        SessionHandshake::Cojp(setup) => Box::new(Jrc::new(
            JrcParams {
                // its pledges behind stateless join proxies
                behind_proxies: w.join_proxy.then(|| setup.coap.exchange_lifetime_us()),
                // the join rate it sets in every Configuration
                join_rate_bytes_per_s: w.join_rate_bytes_per_s,
                cost,
                seed: s.seed,
                replication,
            },
            s.server,
        )),
        SessionHandshake::Instant => Box::new(crate::node::app::Idle),
    })
}

/// A client held back until its parent holds a session: it starts (its own
/// first wait counted from boot as before, a wait already over ending at
/// once) when the workload releases it.
struct AfterParent {
    inner: Box<dyn App<Record>>,
    started: bool,
}

impl App<Record> for AfterParent {
    fn start(&mut self, _cx: &mut AppCx<Record>) {}

    fn release(&mut self, cx: &mut AppCx<Record>) {
        if !self.started {
            self.started = true;
            self.inner.start(cx);
        }
    }

    fn on_udp(&mut self, cx: &mut AppCx<Record>, udp: crate::net::Udp) {
        if self.started {
            self.inner.on_udp(cx, udp);
        }
    }

    fn on_timer(&mut self, cx: &mut AppCx<Record>, token: crate::timer::Token) {
        if self.started {
            self.inner.on_timer(cx, token);
        }
    }

    fn on_run_end(&mut self, cx: &mut AppCx<Record>, why: &str) {
        if self.started {
            self.inner.on_run_end(cx, why);
        }
    }

    fn configured_join_rate(&self) -> Option<f64> {
        self.inner.configured_join_rate()
    }
}

/// The clients each client's success lets go (join_after_parent): those
/// whose next hop to the server it is, by node; and those one hop from
/// the server, or from any border router when there are several (each is
/// part of the network from power-on, a join proxy at once), or with no
/// route, let go at once. Formed by scan (`forms`) none waits on a computed
/// parent: each is let go once it associated on a joined node's EB
/// ([`Watch::release_synced`]), a border router (which never scans) at once.
fn waiting_on(
    sim: &Sim<Record>,
    s: &Scenario,
    clients: &[NodeId],
    forms: bool,
) -> (Vec<Vec<NodeId>>, Vec<NodeId>) {
    let topology = sim.world.channel.topology();
    let mut children = vec![Vec::new(); sim.stacks.len()];
    let mut now = Vec::new();
    let forest = topology.border_routers().len() > 1;
    if forms {
        now.extend(clients.iter().copied().filter(|&c| topology.is_root(c)));
        return (children, now);
    }
    for &c in clients {
        match topology.next_hop(c, s.server) {
            Some(parent) if parent != s.server && !(forest && topology.is_root(parent)) => {
                children[parent].push(c)
            }
            _ => now.push(c),
        }
    }
    (children, now)
}

/// The client whose session this record is, if it is one: a join
/// completed (`joins`: the handshakes that are not the slot-table DTLS 1.2
/// one, whose sessions are their handshakes) or a DTLS 1.2 session
/// established. The same reading as the secured share's (`first_sessions`).
fn succeeded(e: &Entry<Record>, joins: bool) -> Option<NodeId> {
    match &e.record {
        Record::HandshakeEnded(r) if joins && r.success => Some(e.node),
        Record::SessionEstablished { client, .. } if !joins => Some(*client),
        _ => None,
    }
}

/// What a run that watches its records keeps between its stretches: who
/// each success lets go (join_after_parent; empty lists otherwise), who
/// has been, the records read, and which clients have held a session.
struct Watch {
    children: Vec<Vec<NodeId>>,
    /// formed by scan under join_after_parent: the clients still held are
    /// let go as they associate ([`Self::release_synced`]); the run's
    /// associations counted when last looked
    on_sync: bool,
    associations: u64,
    released: Vec<bool>,
    seen: usize,
    joins: bool,
    is_client: Vec<bool>,
    secured: Vec<bool>,
    secured_count: usize,
}

impl Watch {
    /// Run to `until`, letting a held-back client go as soon as its parent
    /// succeeds; stop early once `stop_at` clients have held a session.
    /// True if it stopped early.
    fn run(&mut self, sim: &mut Sim<Record>, until: Time, stop_at: Option<usize>) -> bool {
        loop {
            if stop_at.is_some_and(|n| self.secured_count >= n) {
                return true;
            }
            let before = self.seen;
            let (on_sync, synced) = (self.on_sync, self.associations);
            sim.run(until, |sim| {
                sim.recorder.len() > before || (on_sync && sim.world.associations() > synced)
            });
            let len = sim.recorder.len();
            let joins = self.joins;
            let done: Vec<NodeId> = sim.recorder.entries()[before..len]
                .iter()
                .filter_map(|e| succeeded(e, joins))
                .collect();
            self.seen = len;
            for p in done {
                if self.is_client[p] && !std::mem::replace(&mut self.secured[p], true) {
                    self.secured_count += 1;
                    // part of the network now: it may advertise it (formation)
                    sim.set_joined(p, true);
                }
                for &c in &self.children[p] {
                    if !std::mem::replace(&mut self.released[c], true) {
                        sim.release_app(c);
                    }
                }
            }
            let newly_synced = self.release_synced(sim);
            if len == before && !newly_synced {
                return false; // the run reached `until` (or ran dry) with nothing new
            }
        }
    }

    /// Formed by scan: let go each held client that associated on the EB
    /// of a node part of the network (its join proxy, RFC 9031 §4-5; a
    /// node beacons only once joined, so that is every association but one
    /// on a node that has left since); one that associated on a pledge
    /// waits for that node's join. True if there were new associations.
    fn release_synced(&mut self, sim: &mut Sim<Record>) -> bool {
        let now = sim.world.associations();
        if !self.on_sync || now == self.associations {
            return false;
        }
        self.associations = now;
        for c in 0..self.released.len() {
            if !self.is_client[c] || self.released[c] {
                continue;
            }
            let Some(source) = sim.world.synced_on(c) else {
                continue;
            };
            if sim.world.is_pledge(source) {
                if !self.children[source].contains(&c) {
                    self.children[source].push(c);
                }
            } else {
                self.released[c] = true;
                sim.release_app(c);
            }
        }
        true
    }
}

/// The join storm's apps for the handshakes that are not the slot-table
/// DTLS 1.2 one: each client joins once, first after an exponential wait
/// of mean 1/λ drawn from the same stream as a DTLS 1.2 client's first
/// (so every protocol sees the same boot times), and after a failed join
/// tries again after another such wait; the server answers all.
fn join_apps(
    s: &Scenario,
    w: &SessionsSpec,
    replication: u64,
    who: &[NodeId],
    topology: &Topology,
    powered: &[Time],
    apps: &mut [Box<dyn App<Record>>],
) -> Result<(), RunError> {
    use crate::app::cojp::{Pledge, PledgeParams};
    use crate::app::dtls::{AfterHandshake, ClientParams, DtlsClient};
    use crate::app::dtls_version::ClientSetup;
    use crate::app::edhoc::{EdhocClient, EdhocClientParams};
    use crate::app::pause::Pause;
    use crate::app::sessions::{exponential_us, habits};

    let retry = Pause::exponential(w.idle_mean_us);
    let first_at = |node: NodeId| {
        powered[node]
            + s.start_us
            + exponential_us(&mut habits(s.seed, replication, node), w.idle_mean_us)
    };
    let clients = who.iter().copied().take(w.clients);
    match &w.handshake {
        SessionHandshake::Dtls13 { client, .. } => {
            let config: ClientSetup = (**client).clone().into();
            for node in clients {
                apps[node] = Box::new(DtlsClient::new(
                    ClientParams {
                        server: s.server,
                        port: crate::app::DTLS_PORT,
                        config: config.clone(),
                        handshakes: u32::MAX,
                        first_at: first_at(node),
                        pause: retry,
                        give_up_idle_us: s.give_up_idle_us,
                        after: AfterHandshake::Keep,
                        cost: s.crypto,
                        seed: s.seed,
                        replication,
                        timer_tick_us: s.timer_tick_us,
                    },
                    node,
                ));
            }
        }
        SessionHandshake::Edhoc(setup) => {
            for node in clients {
                apps[node] = Box::new(EdhocClient::new(
                    EdhocClientParams {
                        server: s.server,
                        proxy: w
                            .join_proxy
                            .then(|| topology.next_hop(node, s.server))
                            .flatten(),
                        setup: *setup,
                        handshakes: u32::MAX,
                        first_at: first_at(node),
                        pause: retry,
                        until_success: true,
                        cost: s.crypto,
                        seed: s.seed,
                        replication,
                        timer_tick_us: s.timer_tick_us,
                    },
                    node,
                ));
            }
        }
        SessionHandshake::Cojp(setup) => {
            for node in clients {
                apps[node] = Box::new(Pledge::new(
                    PledgeParams {
                        jrc: s.server,
                        // its join proxy: its parent, the neighbour it
                        // joins through (the JRC itself next to it)
                        proxy: w
                            .join_proxy
                            .then(|| topology.next_hop(node, s.server))
                            .flatten(),
                        setup: *setup,
                        first_at: first_at(node),
                        retry,
                        cost: s.crypto,
                        seed: s.seed,
                        replication,
                        timer_tick_us: s.timer_tick_us,
                    },
                    node,
                ));
            }
        }
        SessionHandshake::Instant | SessionHandshake::Dtls { .. } => {
            unreachable!("not a join handshake")
        }
    }
    Ok(())
}

/// A join's handshake records read as the sessions workload's: a handshake
/// started is a request, one that succeeded an established session (its
/// time and the client's bytes), one that failed a failed session. The
/// DTLS 1.2 clients and the instant table report sessions themselves.
fn as_sessions(entries: &[Entry<Record>]) -> Vec<Entry<Record>> {
    entries
        .iter()
        .filter_map(|e| {
            let client = e.node;
            let record = match &e.record {
                Record::HandshakeStarted { .. } => Record::SessionRequested { client },
                Record::HandshakeEnded(r) if r.success => Record::SessionEstablished {
                    client,
                    handshake_us: r.ended_at.saturating_sub(r.started_at),
                    handshake_bytes: r.client.bytes_sent + r.client.bytes_received,
                    resumed: false,
                },
                Record::HandshakeEnded(_) => Record::SessionEnded {
                    client,
                    end: SessionEnd::Failed,
                },
                _ => return None,
            };
            Some(Entry {
                at: e.at,
                node: e.node,
                record,
            })
        })
        .collect()
}

/// Run past the warm-up, then measure for the window.
pub(crate) fn drive(
    sim: &mut Sim<Record>,
    s: &Scenario,
    replication: u64,
    nodes: &mut NodeTable,
) -> Vec<Row> {
    let w = spec(s);
    let from_t = s.start_us + w.warmup_us;
    let bound_t = from_t + w.duration_us;
    let clients: Vec<NodeId> = w.nodes(s.server).into_iter().take(w.clients).collect();
    // membership by node, not a search of the list per record (storms have thousands)
    let mut is_client = vec![false; sim.stacks.len()];
    clients.iter().for_each(|&c| is_client[c] = true);
    let joins = matches!(
        w.handshake,
        SessionHandshake::Dtls13 { .. } | SessionHandshake::Edhoc(_) | SessionHandshake::Cojp(_)
    );
    // the clients that must have held a session for the run to end early:
    // the same ⌈share·clients⌉ as the secured-share columns' (time_to_share)
    let stop_at = w
        .stop_at_secured_share
        .map(|share| clients_for_share(clients.len(), share));
    // with TSCH formation a client advertises the network (Enhanced
    // Beacons) only once it has joined, so its joins are watched too
    let forms = matches!(&s.mac, crate::scenario::MacSpec::Tsch(t) if t.formation.is_some());
    // with the key delivered by the join, a client secures its frames only
    // once it has joined, so its joins are watched too
    let keyed = s.mac.security().is_some_and(|l| l.after_join);
    let (from, to_t) = if w.join_after_parent || stop_at.is_some() || forms || keyed {
        let (children, now) = if w.join_after_parent {
            waiting_on(sim, s, &clients, forms)
        } else {
            (vec![Vec::new(); sim.stacks.len()], Vec::new())
        };
        let mut watch = Watch {
            children,
            on_sync: forms && w.join_after_parent,
            associations: 0,
            released: vec![false; sim.stacks.len()],
            seen: sim.recorder.len(),
            joins,
            secured: vec![false; sim.stacks.len()],
            secured_count: 0,
            is_client: is_client.clone(),
        };
        // a border router is part of the network from power-on (it
        // beacons as a root), whether or not it also joins the server
        let topology = sim.world.channel.topology();
        let joining: Vec<NodeId> = (clients.iter().copied())
            .filter(|&c| topology.border_routers().len() == 1 || !topology.is_root(c))
            .collect();
        for c in joining {
            sim.set_joined(c, false);
        }
        for c in now {
            watch.released[c] = true;
            sim.release_app(c);
        }
        watch.run(sim, from_t, None);
        let from = snapshot(sim);
        // stopped early: the window ends just after the record that made
        // the share (measure counts records before its end); made within
        // the warm-up (the queue may have run dry before it ended), just
        // after the window opens
        let to_t = if watch.run(sim, bound_t, stop_at) {
            sim.now().max(from_t) + 1
        } else {
            bound_t
        };
        (from, to_t)
    } else {
        sim.run(from_t, |_| false);
        let from = snapshot(sim);
        sim.run(bound_t, |_| false);
        (from, bound_t)
    };
    let window_us = to_t - from_t;
    let to = snapshot(sim);
    let converted;
    let entries = if joins {
        converted = as_sessions(sim.recorder.entries());
        &converted[..]
    } else {
        sim.recorder.entries()
    };
    let m = measure(entries, w, &is_client, from_t, to_t);

    let mut row = vec![
        ("replication".to_string(), Value::Int(replication as i64)),
        ("index".to_string(), Value::Int(0)),
        ("success".to_string(), Value::Bool(m.established > 0)),
    ];
    let int = |v: u64| Value::Int(v as i64);
    let ratio = |a: u64, b: u64| {
        Value::Float(if b == 0 {
            f64::NAN
        } else {
            a as f64 / b as f64
        })
    };
    if keyed {
        // link-layer security over the run from power-on, every node summed:
        // frames secured and opened, and those refused
        // below policy (unsecured where a key was due) and, at pledges,
        // secured frames they hold no key for
        let total = |read: fn(&crate::mac::security::SecurityStats) -> u64| {
            (to.security.iter().flatten()).map(read).sum::<u64>()
        };
        push(
            &mut row,
            "ll_refused_level",
            int(total(|s| s.refused_level)),
        );
        push(
            &mut row,
            "ll_refused_unknown_key",
            int(total(|s| s.refused_unknown_key)),
        );
        push(&mut row, "ll_frames_secured", int(total(|s| s.secured)));
        push(&mut row, "ll_frames_opened", int(total(|s| s.unsecured)));
    }
    push(&mut row, "slots", int(w.limits.slots as u64));
    push(&mut row, "clients", int(w.clients as u64));
    push(&mut row, "attackers", int(w.attackers as u64));
    push(&mut row, "policy", Value::Text(w.policy.name().into()));
    push(&mut row, "session_requests", int(m.requests));
    push(&mut row, "slot_decisions", int(m.decisions));
    push(&mut row, "slot_refusals", int(m.refused));
    push(
        &mut row,
        "time_congestion",
        Value::Float(m.full_us / window_us as f64),
    );
    push(&mut row, "call_congestion", ratio(m.refused, m.decisions));
    push(
        &mut row,
        "mean_busy_slots",
        Value::Float(m.busy_us / window_us as f64),
    );
    // slots the server holds for a client that holds no session (it
    // closed, gave up or was refused): what no policy but a timeout frees
    push(
        &mut row,
        "mean_orphaned_slots",
        Value::Float(m.orphaned_us / window_us as f64),
    );
    for (why, name) in [
        (SlotFreed::Closed, "slots_freed_closed"),
        (SlotFreed::Failed, "slots_freed_failed"),
        (SlotFreed::Forgotten, "slots_freed_forgotten"),
        (SlotFreed::Evicted, "slots_freed_evicted"),
        (SlotFreed::HalfOpenTimeout, "slots_freed_half_open_timeout"),
        (SlotFreed::IdleTimeout, "slots_freed_idle_timeout"),
    ] {
        let n = m.freed.iter().filter(|&&w| w == why).count();
        push(&mut row, name, int(n as u64));
    }
    push(&mut row, "sessions_established", int(m.established));
    push(&mut row, "sessions_released", int(m.released));
    push(&mut row, "sessions_evicted", int(m.evicted));
    push(&mut row, "sessions_failed", int(m.failed));
    // what a client sees: its requests that got no session
    push(
        &mut row,
        "request_failure_share",
        ratio(m.requests.saturating_sub(m.established), m.requests),
    );
    let handshake_s = m.handshake_us as f64 / 1e6 / m.established.max(1) as f64;
    push(
        &mut row,
        "handshake_s",
        Value::Float(if m.established == 0 {
            f64::NAN
        } else {
            handshake_s
        }),
    );
    // full and abbreviated (resumed, RFC 5246 §7.3) handshakes apart: time
    // and the client's UDP payload bytes, sent and received
    push(&mut row, "sessions_resumed", int(m.resumed.n));
    for (kind, k) in [("full", &m.full), ("resumed", &m.resumed)] {
        let per = |v: f64| ratio_f(v, k.n);
        push(
            &mut row,
            &format!("handshake_s_{kind}"),
            per(k.us as f64 / 1e6),
        );
        push(
            &mut row,
            &format!("handshake_bytes_{kind}"),
            per(k.bytes as f64),
        );
    }
    push(
        &mut row,
        "attacker_slot_decisions",
        int(m.attacker_decisions),
    );
    let energy = |nodes: &mut dyn Iterator<Item = NodeId>| -> f64 {
        nodes
            .map(|n| {
                to.times[n]
                    .since(&from.times[n])
                    .energy(&s.power)
                    .total_uj()
            })
            .sum()
    };
    let total = energy(&mut (0..to.times.len()));
    let served = energy(&mut clients.iter().copied().chain([s.server]));
    push(&mut row, "energy_total_uj", Value::Float(total));
    crate::row::formation_columns(&mut row, &from, &to);
    let node_count = to.times.len();
    push(
        &mut row,
        "energy_per_node_uj",
        Value::Float(total / node_count as f64),
    );
    // how fast a network that boots at once gets secured (a bootstrap storm)
    let first_by_node = first_session_by_node(entries, &is_client, s.start_us);
    let secured = first_sessions(&first_by_node);
    push(
        &mut row,
        "secured_share",
        ratio(secured.len() as u64, clients.len() as u64),
    );
    // the share an hour after boot (or at the run's end if it ended
    // sooner), where a storm run until it finishes is read beside one cut
    // at the hour
    let hour = secured.iter().take_while(|&&t| t <= HOUR_US).count();
    push(
        &mut row,
        "secured_share_1h",
        ratio(hour as u64, clients.len() as u64),
    );
    for (share, key) in [
        (0.5, "secured_50_s"),
        (0.9, "secured_90_s"),
        (0.99, "secured_99_s"),
    ] {
        let secs =
            time_to_share(&secured, clients.len(), share).map_or(f64::NAN, |t| t as f64 / 1e6);
        push(&mut row, key, Value::Float(secs));
    }
    push(&mut row, "peak_slots_taken", int(m.peak_taken as u64));
    push(
        &mut row,
        "energy_per_session_uj",
        ratio_f(served, m.established),
    );
    push(
        &mut row,
        "virtual_time_s",
        Value::Float(window_us as f64 / 1e6),
    );
    if w.join_proxy {
        // what the join proxies did over the window, every node summed
        // (the node rows' columns)
        let per_node = crate::node_rows::join_proxy_counts(
            sim.recorder.entries(),
            sim.stacks.len(),
            from.at,
            to.at,
        );
        for (k, name) in crate::node_rows::JOIN_PROXY_COLUMNS.iter().enumerate() {
            push(&mut row, name, int(per_node.iter().map(|c| c[k]).sum()));
        }
        nodes.join_proxy = true;
    }
    if !w.server_down_us.is_empty() {
        outage_columns(&mut row, sim.recorder.entries(), entries, w, &is_client);
    }
    nodes.set_times_to_secured(first_by_node);
    nodes.add(0, &from, &to, sim.recorder.entries());
    vec![row]
}

/// With the server down at times (`sessions.server_down_s`), over the
/// whole run: the datagrams it dropped while down, the times it came
/// back, and the sessions (joins) that completed while it was down, all
/// of them (`sessions_while_down`: a reply it sent before it went down
/// may still arrive) and those whose handshake started while it was
/// already down (`sessions_started_while_down`: none can, it answers
/// nothing then).
fn outage_columns(
    row: &mut Row,
    records: &[Entry<Record>],
    sessions: &[Entry<Record>],
    w: &SessionsSpec,
    is_client: &[bool],
) {
    let int = |v: usize| Value::Int(v as i64);
    let down = |t: Time| w.server_down_us.iter().any(|&(a, b)| a <= t && t < b);
    let drops = records
        .iter()
        .filter(|e| matches!(e.record, Record::ServerDownDrop { .. }))
        .count();
    let restarts = records
        .iter()
        .filter(|e| matches!(e.record, Record::ServerUp))
        .count();
    let (mut inside, mut started_inside) = (0, 0);
    for e in sessions {
        if let Record::SessionEstablished {
            client,
            handshake_us,
            ..
        } = e.record
        {
            if is_client[client] && down(e.at) {
                inside += 1;
                let started = e.at.saturating_sub(handshake_us);
                let same_window = w
                    .server_down_us
                    .iter()
                    .any(|&(a, b)| a <= started && e.at < b);
                if same_window {
                    started_inside += 1;
                }
            }
        }
    }
    push(row, "server_down_drops", int(drops));
    push(row, "server_restarts", int(restarts));
    push(row, "sessions_while_down", int(inside));
    push(row, "sessions_started_while_down", int(started_inside));
}

/// An hour of simulated time (µs): where the secured share is read beside the end's.
const HOUR_US: Time = 3_600_000_000;

/// When each client got its first session, by node (µs since `start`;
/// None for a node that is not a client or got none).
fn first_session_by_node(
    entries: &[Entry<Record>],
    is_client: &[bool],
    start: Time,
) -> Vec<Option<Time>> {
    let mut first = vec![None; is_client.len()];
    for e in entries {
        if let Record::SessionEstablished { client, .. } = e.record {
            if is_client[client] && first[client].is_none() {
                first[client] = Some(e.at.saturating_sub(start));
            }
        }
    }
    first
}

/// When each client that got a session got its first, in order.
fn first_sessions(first_by_node: &[Option<Time>]) -> Vec<Time> {
    let mut at: Vec<Time> = first_by_node.iter().flatten().copied().collect();
    at.sort_unstable();
    at
}

/// When `share` of `clients` had a session (the ⌈share·clients⌉-th first
/// session), if that many got one.
fn time_to_share(first: &[Time], clients: usize, share: f64) -> Option<Time> {
    first.get(clients_for_share(clients, share) - 1).copied()
}

/// How many of `clients` make up `share` of them: ⌈share·clients⌉, at
/// least one (what a run stopped at a share waits for, and what the
/// secured-share columns count).
fn clients_for_share(clients: usize, share: f64) -> usize {
    ((share * clients as f64).ceil() as usize).max(1)
}

fn ratio_f(a: f64, b: u64) -> Value {
    Value::Float(if b == 0 { f64::NAN } else { a / b as f64 })
}

/// Handshakes of one kind: how many, their time and bytes summed.
#[derive(Debug, Default)]
struct Handshakes {
    n: u64,
    us: Time,
    bytes: u64,
}

/// What the records of the window say.
#[derive(Debug, Default)]
struct Measured {
    requests: u64,
    decisions: u64,
    refused: u64,
    attacker_decisions: u64,
    established: u64,
    handshake_us: Time,
    full: Handshakes,
    resumed: Handshakes,
    released: u64,
    evicted: u64,
    failed: u64,
    /// Time every slot was taken while someone could ask (µs).
    full_us: f64,
    /// Slots taken, integrated over the window (slot·µs).
    busy_us: f64,
    /// Slots held for legitimate clients that hold no session, integrated
    /// over the window (slot·µs).
    orphaned_us: f64,
    /// Why each slot of a legitimate client freed in the window was freed.
    freed: Vec<SlotFreed>,
    /// Most slots taken at once (over the whole run).
    peak_taken: usize,
}

/// Count the legitimate clients' (`is_client`, by node) events in `[from, to)` and integrate the
/// table's occupancy over it. A full table blocks only if someone is left
/// to ask: with R at least the number of requesters it never does (the
/// closed form's convention).
fn measure(
    entries: &[Entry<Record>],
    w: &SessionsSpec,
    is_client: &[bool],
    from: Time,
    to: Time,
) -> Measured {
    let mut m = Measured::default();
    let slots = w.limits.slots;
    let can_block = slots < w.clients + w.attackers;
    let mut taken = 0usize;
    let mut since = from;
    // per legitimate client: slots the server holds for it, and whether
    // the client itself is in a session (asked and not yet ended)
    let mut held: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut active: BTreeMap<NodeId, bool> = BTreeMap::new();
    let mut orphans = 0usize;
    let mut orphans_since = from;
    let close = |m: &mut Measured, taken: usize, a: Time, b: Time| {
        let (a, b) = (a.clamp(from, to), b.clamp(from, to));
        let dt = (b - a) as f64;
        m.busy_us += taken as f64 * dt;
        if can_block && taken >= slots {
            m.full_us += dt;
        }
    };
    let span = |a: Time, b: Time| (b.clamp(from, to) - a.clamp(from, to)) as f64;
    for e in entries {
        if let Record::SlotsTaken { taken: now_taken } = e.record {
            close(&mut m, taken, since, e.at);
            taken = now_taken;
            since = e.at;
            m.peak_taken = m.peak_taken.max(taken);
        }
        if let Record::ServerDown = e.record {
            // the table went down with the server (its occupancy is
            // recorded as 0 with it): no slot is held, nor orphaned
            m.orphaned_us += orphans as f64 * span(orphans_since, e.at);
            orphans_since = e.at;
            orphans = 0;
            held.clear();
        }
        // a legitimate client's slots count as orphaned while it holds no
        // session; kept up to date per client, not recounted over all
        let client = match &e.record {
            Record::SlotTaken { client }
            | Record::SlotFreed { client, .. }
            | Record::SessionRequested { client }
            | Record::SessionEnded { client, .. } => Some(*client),
            _ => None,
        };
        if let Some(c) = client {
            let orphaned_of = |held: &BTreeMap<NodeId, usize>, active: &BTreeMap<NodeId, bool>| {
                if is_client[c] && !active.get(&c).copied().unwrap_or(false) {
                    held.get(&c).copied().unwrap_or(0)
                } else {
                    0
                }
            };
            m.orphaned_us += orphans as f64 * span(orphans_since, e.at);
            orphans_since = e.at;
            orphans -= orphaned_of(&held, &active);
            match &e.record {
                Record::SlotTaken { .. } => *held.entry(c).or_default() += 1,
                Record::SlotFreed { why, .. } => {
                    let h = held.entry(c).or_default();
                    *h = h.saturating_sub(1);
                    if is_client[c] && e.at >= from && e.at < to {
                        m.freed.push(*why);
                    }
                }
                Record::SessionRequested { .. } => {
                    active.insert(c, true);
                }
                _ => {
                    active.insert(c, false);
                }
            }
            orphans += orphaned_of(&held, &active);
        }
        if e.at < from || e.at >= to {
            continue;
        }
        let legit = |n: &NodeId| is_client[*n];
        match &e.record {
            Record::SessionRequested { client } if legit(client) => m.requests += 1,
            Record::SlotDecision { client, decision } => {
                if !legit(client) {
                    m.attacker_decisions += 1;
                    continue;
                }
                m.decisions += 1;
                if *decision == Decision::Refused {
                    m.refused += 1;
                }
            }
            Record::SessionEstablished {
                client,
                handshake_us,
                handshake_bytes,
                resumed,
            } if legit(client) => {
                m.established += 1;
                m.handshake_us += handshake_us;
                let k = if *resumed {
                    &mut m.resumed
                } else {
                    &mut m.full
                };
                k.n += 1;
                k.us += handshake_us;
                k.bytes += handshake_bytes;
            }
            Record::SessionEnded { client, end } if legit(client) => match end {
                SessionEnd::Released => m.released += 1,
                SessionEnd::Evicted => m.evicted += 1,
                SessionEnd::Failed => m.failed += 1,
            },
            _ => {}
        }
    }
    close(&mut m, taken, since, to);
    m.orphaned_us += orphans as f64 * span(orphans_since, to);
    m
}
