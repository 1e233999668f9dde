//! What the nodes of one network share, planned once per replication
//! from the scenario's MAC spec before any MAC is built (the TSCH
//! schedule, the beacon-enabled cluster tree), and each node's MAC built
//! from the spec and that plan.

use super::address::LinkAddressing;
use super::beacon::{self, BeaconParams};
use super::contikimac::{self, ContikimacParams};
use super::csl::{self, CslParams};
use super::csma::{self, CsmaParams};
use super::security::LinkSecurity;
use super::tsch::{self, TschParams};
use super::xmac::{self, XmacParams};
use super::NodeMac;
use crate::rng::{stream, Purpose, NETWORK};
use crate::scenario::{MacSpec, TschSchedule};
use crate::topology::Topology;
use crate::NodeId;

/// What the nodes of one network share, drawn once per replication before
/// any MAC is built: the TSCH schedule, or the beacon-enabled cluster tree.
pub enum Network {
    /// Nothing shared (CSMA, X-MAC).
    Independent,
    /// The slotframe length and each node's cells; with MSF, each node's
    /// routing parent (the one lookup MSF asks, so routing can replace it).
    Tsch {
        slotframe: u32,
        cells: Vec<Vec<tsch::Cell>>,
        msf_parents: Option<Vec<Option<NodeId>>>,
        /// Each node's part of Orchestra's EB slotframe, if modelled.
        eb_slotframes: Option<Vec<tsch::eb_slotframe::EbSlotframe>>,
        /// With clock drift and `SyncParams::parent_time_source`: each
        /// node's time source, its next hop to the root.
        time_sources: Option<Vec<Option<NodeId>>>,
        /// Which nodes are roots (the border routers): TSCH PAN
        /// coordinators, synchronised and beaconing from power-on.
        roots: Vec<bool>,
    },
    /// Each node's role in the cluster tree (with the beacon schedule's phase).
    Beacon(Vec<beacon::Role>),
    /// Which nodes are sleepy end devices, and whose.
    Csl(Vec<csl::Role>),
}

/// Why a MAC configuration cannot run on a topology.
#[derive(Debug)]
pub enum NetworkError {
    Schedule(String),
    /// A beacon-enabled configuration that cannot work (e.g. the active
    /// periods of the cluster heads do not fit in one beacon interval).
    Beacon(beacon::BeaconConfigError),
}

impl MacSpec {
    /// Plan what the network shares, for replication `replication` of a
    /// scenario with `seed`; `coordinator` is the default PAN coordinator
    /// (beacon-enabled); TSCH's roots are the topology's border routers.
    pub fn network(
        &self,
        topology: &Topology,
        coordinator: NodeId,
        seed: u64,
        replication: u64,
    ) -> Result<Network, NetworkError> {
        use tsch::schedule::{msf_schedule, orchestra_schedule};
        Ok(match self {
            MacSpec::Csma(_) | MacSpec::Xmac(_) | MacSpec::Contikimac(_) => Network::Independent,
            MacSpec::Csl(_) => Network::Csl(csl::roles(topology, coordinator)),
            MacSpec::Tsch(t) => {
                let (slotframe, cells) = match &t.schedule {
                    TschSchedule::Orchestra {
                        unicast_period,
                        common_period,
                        line_neighbours_up_to,
                        ..
                    } => orchestra_schedule(
                        topology,
                        *unicast_period,
                        *common_period,
                        *line_neighbours_up_to,
                    ),
                    TschSchedule::Msf => msf_schedule(topology),
                    other => (
                        t.slotframe,
                        Self::slotframe_schedule(t, other, topology, seed, replication)?,
                    ),
                };
                // the parent: the next hop to the node's root (its border
                // router) on the computed routes
                let msf_parents = (t.schedule == TschSchedule::Msf).then(|| {
                    (0..topology.nodes())
                        .map(|n| topology.tree_parent(n))
                        .collect()
                });
                // Orchestra's EB slotframe, on a network synchronised from
                // power-on (a scan's EBs go in the shared cells instead)
                let eb_slotframes = match t.schedule {
                    TschSchedule::Orchestra {
                        eb_slotframe,
                        eb_period_us,
                        ..
                    } if eb_slotframe > 0 && t.formation.is_none() => Some(
                        tsch::eb_slotframe::eb_slotframes(topology, eb_slotframe, eb_period_us),
                    ),
                    _ => None,
                };
                // the time source RPL would give (tsch-rpl.c: the preferred parent)
                // under RPL the preferred parent is set as it changes (engine)
                let parent_sources = t.sync.is_some_and(|s| s.parent_time_source) && !t.rpl;
                let time_sources = parent_sources.then(|| {
                    (0..topology.nodes())
                        .map(|n| topology.tree_parent(n))
                        .collect()
                });
                // every border router is a root, joined metric 0, beaconing
                // from power-on; their ASNs run in step, as if the backbone
                // gave them one time (an assumption: RFC 9030, the 6TiSCH
                // architecture, puts the TSCH subnetworks on one powered
                // backbone; how its 6LBRs share time is not modelled)
                let roots = (0..topology.nodes()).map(|n| topology.is_root(n)).collect();
                Network::Tsch {
                    slotframe,
                    cells,
                    msf_parents,
                    eb_slotframes,
                    time_sources,
                    roots,
                }
            }
            MacSpec::Beacon(p) => {
                let root = p.pan_coordinator.unwrap_or(coordinator);
                let mut p = *p;
                p.validate().map_err(NetworkError::Beacon)?;
                if p.first_beacon_us.is_none() {
                    // the beacon schedule's phase, the same for the whole network
                    use rand::RngExt;
                    let mut rng = stream(seed, replication, NETWORK, Purpose::Mac);
                    p.first_beacon_us = Some(rng.random_range(0..p.beacon_interval_us()));
                }
                let roles =
                    beacon::cluster_tree(topology, root, &p).map_err(NetworkError::Beacon)?;
                Network::Beacon(roles)
            }
        })
    }

    /// The cells of a schedule laid out on the scenario's slotframe.
    fn slotframe_schedule(
        t: &crate::scenario::TschSpec,
        schedule: &TschSchedule,
        topology: &Topology,
        seed: u64,
        replication: u64,
    ) -> Result<Vec<Vec<tsch::Cell>>, NetworkError> {
        use tsch::schedule::{given_schedule, random_schedule, tree_schedule};
        Ok(match schedule {
            TschSchedule::RandomLinks { cells } => {
                random_schedule(topology, *cells, t.slotframe, seed, replication)
            }
            TschSchedule::Given(cells) => given_schedule(topology.nodes(), cells, t.slotframe)
                .map_err(NetworkError::Schedule)?,
            TschSchedule::Tree { shared } => {
                tree_schedule(topology, *shared, false, t.slotframe, seed, replication)
            }
            TschSchedule::TreeBoth { shared } => {
                tree_schedule(topology, *shared, true, t.slotframe, seed, replication)
            }
            TschSchedule::Minimal => tsch::schedule::minimal_schedule(topology.nodes()),
            TschSchedule::Orchestra { .. } | TschSchedule::Msf => {
                unreachable!("laid out on its own slotframes")
            }
        })
    }

    /// The MAC of `node` in `network` (planned from this spec), with its own
    /// link-layer key material (`security`, which may differ from the
    /// network's to model a misconfigured node).
    pub fn build(
        &self,
        node: NodeId,
        network: &Network,
        security: Option<LinkSecurity>,
    ) -> NodeMac {
        match (self, network) {
            (MacSpec::Csma(p), _) => csma::Csma::new(CsmaParams { security, ..*p }).into(),
            (MacSpec::Xmac(p), _) => xmac::Xmac::new(XmacParams { security, ..*p }).into(),
            (MacSpec::Contikimac(p), _) => {
                contikimac::Contikimac::new(ContikimacParams { security, ..*p }).into()
            }
            (MacSpec::Csl(p), Network::Csl(roles)) => {
                csl::Csl::new(CslParams { security, ..*p }, roles[node].clone()).into()
            }
            (
                MacSpec::Tsch(t),
                Network::Tsch {
                    slotframe,
                    cells,
                    msf_parents,
                    eb_slotframes,
                    time_sources,
                    roots,
                },
            ) => tsch::Tsch::new(TschParams {
                template: t.template,
                slotframe: *slotframe,
                cells: cells[node].clone(),
                hopping: tsch::DEFAULT_HOPPING.to_vec(),
                max_retries: t.max_retries,
                frame_processing_us: t.frame_processing_us,
                security,
                min_be: 1,
                max_be: t.max_be,
                addressing: t.addressing,
                stack: t.stack,
                formation: t.formation.map(|f| tsch::formation::FormationParams {
                    root: roots[node],
                    ..f
                }),
                msf: msf_parents
                    .as_ref()
                    .map(|parents| tsch::msf_node::MsfParams {
                        parent: parents[node],
                        sixp_timeout_us: tsch::msf_node::sixp_timeout_us(
                            t.max_be,
                            t.max_retries,
                            u64::from(*slotframe) * t.template.slot_us,
                        ),
                    }),
                sync: t.sync.map(|s| tsch::sync::SyncParams {
                    preferred_source: time_sources.as_ref().and_then(|ts| ts[node]),
                    ..s
                }),
                busy_wait_step_us: t.busy_wait_step_us,
                eb_slotframe: eb_slotframes.as_ref().map(|e| e[node]),
            })
            .into(),
            (MacSpec::Beacon(p), Network::Beacon(roles)) => {
                beacon::BeaconMac::new(BeaconParams { security, ..*p }, roles[node].clone()).into()
            }
            _ => panic!("a network planned from another MAC spec"),
        }
    }

    /// The network's link-layer security, if any.
    pub fn security(&self) -> Option<LinkSecurity> {
        match self {
            MacSpec::Csma(p) => p.security,
            MacSpec::Xmac(p) => p.security,
            MacSpec::Tsch(t) => t.security,
            MacSpec::Beacon(p) => p.security,
            MacSpec::Contikimac(p) => p.security,
            MacSpec::Csl(p) => p.security,
        }
    }

    /// How data frames name the two ends of a link.
    pub fn addressing(&self) -> LinkAddressing {
        match self {
            MacSpec::Tsch(t) => t.addressing,
            MacSpec::Xmac(x) => x.addressing,
            MacSpec::Contikimac(c) => c.addressing,
            _ => LinkAddressing::Short,
        }
    }

    /// Whether the 6LoWPAN layer above writes the context identifier byte
    /// for context 0 too, as Contiki does.
    pub fn contiki_context_byte(&self) -> bool {
        match self {
            MacSpec::Xmac(x) => x.contiki_context_byte,
            MacSpec::Contikimac(c) => c.contiki_context_byte,
            _ => false,
        }
    }

    /// Whether the 6LoWPAN layer above reassembles one datagram at a time,
    /// as Contiki 3.0's does.
    pub fn contiki_reassembly(&self) -> bool {
        match self {
            MacSpec::Xmac(x) => x.contiki_reassembly,
            MacSpec::Contikimac(c) => c.contiki_reassembly,
            _ => false,
        }
    }
}
