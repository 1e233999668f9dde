//! The simulation and DTLS settings as Python sends them (JSON), and their
//! conversion to the crates' types. Python has validated every value
//! against the scenario schema; what is checked here is only what the
//! conversion itself needs.

use serde::Deserialize;

use dtls::{
    CipherSuite, ClientConfig, Config, Extensions, RecordPacking, RetransmitPolicy, ServerConfig,
};
use sim::app::dtls::CryptoCost;
use sim::energy::PowerProfile;
use sim::mac::beacon::{BeaconParams, PollPolicy};
use sim::mac::csma::CsmaParams;
use sim::mac::security::LinkSecurity;
use sim::mac::tsch::{SlotStack, Template};
use sim::mac::xmac::XmacParams;
use sim::mac::LinkAddressing;
use sim::scenario::{GivenCell, MacSpec, Scenario, TopologySpec, TschSchedule, TschSpec, Workload};
use sim::world::Processing;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DtlsSpec {
    pub suite: String,
    #[serde(default = "default_identity")]
    pub identity: String,
    /// Hex.
    pub psk: String,
    /// "one" record per datagram, or pack the "flight".
    pub records_per_datagram: String,
    pub mtu: usize,
    pub max_fragment: usize,
    pub retransmission: RetransmitSpec,
    #[serde(default = "yes")]
    pub extended_master_secret: bool,
    #[serde(default = "default_sessions")]
    pub server_max_sessions: usize,
}

fn default_identity() -> String {
    "Client_identity".into()
}
fn yes() -> bool {
    true
}
fn default_sessions() -> usize {
    16
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetransmitSpec {
    pub policy: String,
    pub initial_ms: f64,
    pub max_ms: f64,
    pub max_retransmissions: u32,
}

pub fn hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("psk {s:?}: an even number of hex digits is needed"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("psk {s:?}: not hex")))
        .collect()
}

fn ms(v: f64) -> u64 {
    (v * 1000.0).round() as u64
}

impl DtlsSpec {
    pub fn config(&self) -> Result<Config, String> {
        let suite = CipherSuite::from_name(&self.suite).ok_or_else(|| {
            let names: Vec<_> = CipherSuite::ALL.iter().map(|s| s.name()).collect();
            format!(
                "suite {:?}: must be one of {}",
                self.suite,
                names.join(", ")
            )
        })?;
        let r = &self.retransmission;
        let retransmit = match r.policy.as_str() {
            "fixed" => RetransmitPolicy::Fixed {
                interval_us: ms(r.initial_ms),
                max_retransmissions: r.max_retransmissions,
            },
            "doubling" => RetransmitPolicy::Doubling {
                initial_us: ms(r.initial_ms),
                max_us: ms(r.max_ms),
                max_retransmissions: r.max_retransmissions,
            },
            "tinydtls" => RetransmitPolicy::Tinydtls {
                initial_us: ms(r.initial_ms),
                max_retransmissions: r.max_retransmissions,
            },
            other => {
                return Err(format!(
                    "retransmission policy {other:?}: fixed, doubling or tinydtls"
                ))
            }
        };
        let packing = match self.records_per_datagram.as_str() {
            "one" => RecordPacking::OneRecordPerDatagram,
            "flight" => RecordPacking::PackFlight,
            other => return Err(format!("records_per_datagram {other:?}: one or flight")),
        };
        Ok(Config {
            mtu: self.mtu,
            max_fragment_len: self.max_fragment,
            packing,
            retransmit,
            cipher_suites: vec![suite],
            extensions: Extensions {
                extended_master_secret: self.extended_master_secret,
                require_extended_master_secret: false,
                renegotiation_info: false,
                ecc_extensions: !suite.is_psk(),
            },
            ..Config::default()
        })
    }

    /// PSK client and server for the simulator.
    pub fn psk_pair(&self) -> Result<(ClientConfig, ServerConfig), String> {
        let config = self.config()?;
        if !config.cipher_suites[0].is_psk() {
            return Err(format!(
                "suite {}: the simulator runs PSK suites so far",
                self.suite
            ));
        }
        let key = hex(&self.psk)?;
        let client = ClientConfig::psk(config.clone(), self.identity.as_bytes(), &key);
        let mut server = ServerConfig::psk(config, self.identity.as_bytes(), &key);
        server.max_sessions = self.server_max_sessions;
        Ok((client, server))
    }
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TopologyJson {
    Line {
        nodes: usize,
        pdr: f64,
    },
    Links {
        nodes: usize,
        links: Vec<(usize, usize, f64)>,
    },
    /// Nodes at random in a square, PDR falling with distance.
    Random {
        nodes: usize,
        side_m: f64,
        range_m: f64,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSecurityJson {
    /// 1..=7 (IEEE 802.15.4 security level).
    pub level: u8,
    pub key_id_mode: u8,
    /// 32 hex digits.
    pub key: String,
    /// TSCH only: the ASN is in the nonce, the counter left out.
    #[serde(default)]
    pub frame_counter_suppressed: bool,
    /// The platform's CCM* cost model for the chosen strategy.
    pub cost: CcmCostJson,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcmCostJson {
    pub setup_us: f64,
    pub aes_block_us: f64,
    pub per_block_overhead_us: f64,
    pub bus_bytes_per_block: f64,
    pub bus_us_per_byte: f64,
}

/// What a real stack adds around CCM* (the platform's implementation
/// profile); absent: nothing, the datasheet lower bound.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackCostJson {
    pub key_lookup_us: f64,
    pub bus_bytes_per_op: f64,
    pub frame_over_bus: bool,
    pub tx_prepare_us: f64,
    pub ack_prepare_us: f64,
}

impl From<StackCostJson> for models::timeslot::StackCost {
    fn from(s: StackCostJson) -> Self {
        models::timeslot::StackCost {
            key_lookup_us: s.key_lookup_us,
            bus_bytes_per_op: s.bus_bytes_per_op,
            frame_over_bus: s.frame_over_bus,
            tx_prepare_us: s.tx_prepare_us,
            ack_prepare_us: s.ack_prepare_us,
        }
    }
}

impl LinkSecurityJson {
    fn into_link_security(self) -> Result<LinkSecurity, String> {
        let key: [u8; 16] = hex(&self.key)?
            .try_into()
            .map_err(|_| "link key: 16 bytes (32 hex digits) needed".to_string())?;
        if !(1..=7).contains(&self.level) || self.key_id_mode > 3 {
            return Err(format!(
                "link security level {} / key-id mode {}: 1..=7 and 0..=3",
                self.level, self.key_id_mode
            ));
        }
        Ok(LinkSecurity {
            level: wpan::security::SecurityLevel::from_bits(self.level),
            key_id_mode: self.key_id_mode,
            key,
            key_index: 1,
            frame_counter_suppressed: self.frame_counter_suppressed,
            setup_us: self.cost.setup_us,
            // one cost model for the closed forms and the simulator
            per_block_us: models::timeslot::CcmCost {
                setup_us: self.cost.setup_us,
                aes_block_us: self.cost.aes_block_us,
                per_block_overhead_us: self.cost.per_block_overhead_us,
                bus_bytes_per_block: self.cost.bus_bytes_per_block,
                bus_us_per_byte: self.cost.bus_us_per_byte,
            }
            .per_block_us(),
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum MacJson {
    Csma {
        min_be: u32,
        max_be: u32,
        max_backoffs: u32,
        max_retries: u32,
    },
    Tsch {
        slotframe: u32,
        /// "links": cells_per_link per directed link; "tree": shared cells
        /// plus one per child→parent link.
        schedule: String,
        cells_per_link: u32,
        shared_cells: u32,
        /// Per channel offset 0..=15, a factor on link PDRs; empty: none.
        #[serde(default)]
        channel_pdr: Vec<f64>,
        /// With schedule "given": (sender, receiver, slot, channel offset).
        #[serde(default)]
        cells: Vec<(usize, usize, u32, u8)>,
        timeslot_ms: f64,
        max_retries: u32,
        /// Extended addresses at both ends of data frames and Enhanced ACKs.
        #[serde(default)]
        extended_addresses: bool,
        /// The node stack's costs (link_security.implementation); absent:
        /// the datasheet lower bound.
        #[serde(default)]
        stack: StackCostJson,
    },
    /// Beacon-enabled IEEE 802.15.4 on the cluster tree to the server.
    Beacon {
        beacon_order: u8,
        superframe_order: u8,
        min_be: u32,
        max_be: u32,
        max_backoffs: u32,
        max_retries: u32,
        guard_time_us: u64,
        /// A cluster head's superframe after its parent's; None: one SD.
        #[serde(default)]
        offset_us: Option<u64>,
        /// "standard" or "once-per-beacon"; None: the MAC's default.
        #[serde(default)]
        poll: Option<String>,
    },
    Xmac {
        check_interval_ms: f64,
        on_time_ms: f64,
        strobe_time_ms: f64,
        strobe_period_ms: f64,
        data_wait_ms: f64,
        encounter_optimization: bool,
        encounter_lead_ms: f64,
        max_transmissions: u32,
        abort_on_strobe: bool,
    },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum WorkloadJson {
    Handshakes {
        count: u32,
        pause_ms: f64,
        dtls: DtlsSpec,
    },
    Ping {
        payload: usize,
        count: u32,
        timeout_ms: f64,
        pause_ms: f64,
        dtls: Option<DtlsSpec>,
    },
    Frames {
        frames: u32,
        payload: usize,
        max_wait_ms: f64,
    },
    Periodic {
        interval_ms: f64,
        payload: usize,
        duration_s: f64,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerJson {
    pub voltage_v: f64,
    pub cpu_active_ma: f64,
    pub cpu_lpm_ma: f64,
    pub radio_tx_ma: f64,
    pub radio_rx_ma: f64,
    pub radio_off_ma: f64,
}

impl PowerJson {
    pub fn profile(&self) -> PowerProfile {
        PowerProfile {
            voltage_v: self.voltage_v,
            cpu_active_ma: self.cpu_active_ma,
            cpu_lpm_ma: self.cpu_lpm_ma,
            radio_tx_ma: self.radio_tx_ma,
            radio_rx_ma: self.radio_rx_ma,
            radio_off_ma: self.radio_off_ma,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CryptoJson {
    pub aes_block_us: f64,
    pub sha256_block_us: f64,
    pub ecdh_us: f64,
    pub ecdsa_sign_us: f64,
    pub ecdsa_verify_us: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioJson {
    pub topology: TopologyJson,
    pub client: usize,
    pub server: usize,
    pub mac: MacJson,
    pub link_security: Option<LinkSecurityJson>,
    pub frame_processing_us: f64,
    pub bus_us_per_byte: f64,
    pub power: PowerJson,
    pub crypto: CryptoJson,
    pub workload: WorkloadJson,
    pub start_ms: f64,
    pub max_time_s: f64,
    pub timer_tick_ms: f64,
    pub seed: u64,
    #[serde(default)]
    pub outdated_key_nodes: Vec<usize>,
    /// (node, security level 1..=7) for nodes below the network's level.
    #[serde(default)]
    pub below_policy_nodes: Vec<(usize, u8)>,
}

impl ScenarioJson {
    pub fn into_scenario(self) -> Result<Scenario, String> {
        let frame_processing_us = self.frame_processing_us.round() as u64;
        let security = self
            .link_security
            .map(LinkSecurityJson::into_link_security)
            .transpose()?;
        let mac = match self.mac {
            MacJson::Csma {
                min_be,
                max_be,
                max_backoffs,
                max_retries,
            } => MacSpec::Csma(CsmaParams {
                min_be,
                max_be,
                max_backoffs,
                max_retries,
                frame_processing_us,
                security,
            }),
            MacJson::Tsch {
                slotframe,
                schedule,
                cells_per_link,
                shared_cells,
                channel_pdr,
                cells,
                timeslot_ms,
                max_retries,
                extended_addresses,
                stack,
            } => {
                let schedule = match schedule.as_str() {
                    "links" => TschSchedule::RandomLinks {
                        cells: cells_per_link,
                    },
                    "tree" => TschSchedule::Tree {
                        shared: shared_cells,
                    },
                    "given" => TschSchedule::Given(
                        cells
                            .into_iter()
                            .map(|(from, to, slot, channel_offset)| GivenCell {
                                from,
                                to,
                                slot,
                                channel_offset,
                            })
                            .collect(),
                    ),
                    other => {
                        return Err(format!("mac.tsch.schedule {other:?}: links, tree or given"))
                    }
                };
                let template = Template {
                    slot_us: ms(timeslot_ms),
                    ..Template::default()
                };
                let t = template;
                let need = t.tx_offset_us + t.max_tx_us + t.tx_ack_delay_us + t.max_ack_us;
                if t.slot_us < need {
                    return Err(format!(
                        "mac.tsch.timeslot_ms = {timeslot_ms}: the IEEE default template needs {} ms",
                        need as f64 / 1000.0
                    ));
                }
                MacSpec::Tsch(TschSpec {
                    template,
                    slotframe,
                    schedule,
                    max_retries,
                    frame_processing_us,
                    security,
                    channel_pdr,
                    addressing: LinkAddressing::from_extended(extended_addresses),
                    stack: SlotStack {
                        cost: stack.into(),
                        bus_us_per_byte: self.bus_us_per_byte,
                    },
                })
            }
            MacJson::Beacon {
                beacon_order,
                superframe_order,
                min_be,
                max_be,
                max_backoffs,
                max_retries,
                guard_time_us,
                offset_us,
                poll,
            } => {
                let defaults = BeaconParams::new(beacon_order, superframe_order);
                let poll = match poll.as_deref() {
                    None => defaults.poll,
                    Some("standard") => PollPolicy::Standard,
                    Some("once-per-beacon") => PollPolicy::OncePerBeacon,
                    Some(other) => {
                        return Err(format!(
                            "mac.beacon.poll {other:?}: standard or once-per-beacon"
                        ))
                    }
                };
                MacSpec::Beacon(BeaconParams {
                    min_be,
                    max_be,
                    max_backoffs,
                    max_retries,
                    guard_us: guard_time_us,
                    offset_us,
                    poll,
                    frame_processing_us,
                    security,
                    ..defaults
                })
            }
            MacJson::Xmac {
                check_interval_ms,
                on_time_ms,
                strobe_time_ms,
                strobe_period_ms,
                data_wait_ms,
                encounter_optimization,
                encounter_lead_ms,
                max_transmissions,
                abort_on_strobe,
            } => MacSpec::Xmac(XmacParams {
                check_interval_us: ms(check_interval_ms),
                on_time_us: ms(on_time_ms),
                strobe_time_us: ms(strobe_time_ms),
                strobe_period_us: ms(strobe_period_ms),
                data_wait_us: ms(data_wait_ms),
                encounter_optimization,
                encounter_lead_us: ms(encounter_lead_ms),
                frame_processing_us,
                max_transmissions,
                abort_on_strobe,
                security,
                // csma's queues, its wait between packets and lazy idle
                // listening as Contiki runs them
                ..XmacParams::contiki(ms(check_interval_ms))
            }),
        };
        let workload = match self.workload {
            WorkloadJson::Handshakes {
                count,
                pause_ms,
                dtls,
            } => {
                let (client, server) = dtls.psk_pair()?;
                Workload::Handshakes {
                    client,
                    server,
                    count,
                    pause_us: ms(pause_ms),
                }
            }
            WorkloadJson::Periodic {
                interval_ms,
                payload,
                duration_s,
            } => Workload::Periodic {
                interval_us: ms(interval_ms),
                payload,
                duration_us: (duration_s * 1e6).round() as u64,
            },
            WorkloadJson::Frames {
                frames,
                payload,
                max_wait_ms,
            } => Workload::Frames {
                frames,
                payload,
                max_wait_us: ms(max_wait_ms),
            },
            WorkloadJson::Ping {
                payload,
                count,
                timeout_ms,
                pause_ms,
                dtls,
            } => Workload::Ping {
                dtls: dtls.map(|d| d.psk_pair()).transpose()?,
                payload,
                count,
                timeout_us: ms(timeout_ms),
                pause_us: ms(pause_ms),
            },
        };
        let power = self.power.profile();
        let c = self.crypto;
        Ok(Scenario {
            topology: match self.topology {
                TopologyJson::Line { nodes, pdr } => TopologySpec::Line { nodes, pdr },
                TopologyJson::Links { nodes, links } => TopologySpec::Links { nodes, links },
                TopologyJson::Random {
                    nodes,
                    side_m,
                    range_m,
                } => TopologySpec::Random {
                    nodes,
                    side_m,
                    range_m,
                },
            },
            client: self.client,
            server: self.server,
            mac,
            power,
            crypto: CryptoCost {
                aes_block_us: c.aes_block_us,
                sha256_block_us: c.sha256_block_us,
                ecdh_us: c.ecdh_us,
                ecdsa_sign_us: c.ecdsa_sign_us,
                ecdsa_verify_us: c.ecdsa_verify_us,
            },
            processing: Processing {
                frame_us: self.frame_processing_us,
                bus_us_per_byte: self.bus_us_per_byte,
            },
            workload,
            start_us: ms(self.start_ms),
            max_time_us: (self.max_time_s * 1e6).round() as u64,
            timer_tick_us: ms(self.timer_tick_ms),
            seed: self.seed,
            outdated_key_nodes: self.outdated_key_nodes,
            below_policy_nodes: self
                .below_policy_nodes
                .into_iter()
                .map(|(n, bits)| (n, wpan::security::SecurityLevel::from_bits(bits)))
                .collect(),
        })
    }
}
