//! The cluster tree of coordinators and the superframe offsets along it.

use super::{BeaconConfigError, BeaconParams, Role};
use crate::topology::Topology;
use crate::{NodeId, Time};

/// The cluster tree towards `root`: each node's parent is its next hop to
/// the root; every node with children (and the root) is a coordinator whose
/// superframe starts `depth` offsets after the root's (modulo BI: an offset
/// of BI − SD puts each cluster head's superframe just before its
/// parent's). Refused unless all coordinators' active periods are disjoint.
pub fn cluster_tree(
    topology: &Topology,
    root: NodeId,
    p: &BeaconParams,
) -> Result<Vec<Role>, BeaconConfigError> {
    p.validate()?;
    let n = topology.nodes();
    if root >= n {
        return Err(BeaconConfigError::UnknownRoot { root, nodes: n });
    }
    let step = p.offset_step_us();
    let sd = p.superframe_duration_us();
    let bi = p.beacon_interval_us();
    let parent: Vec<Option<NodeId>> = (0..n)
        .map(|v| {
            if v == root {
                None
            } else {
                topology.next_hop(v, root)
            }
        })
        .collect();
    let depth = |v: NodeId| topology.hops(v, root).unwrap_or(0);
    let first = p.first_beacon_us.unwrap_or(0);
    let sf_start = |v: NodeId| first + depth(v) as Time * step;
    let mut roles: Vec<Role> = (0..n)
        .map(|v| Role {
            parent: parent[v].map(|q| (q, sf_start(q))),
            children: (0..n).filter(|&c| parent[c] == Some(v)).collect(),
            own_first_sf_us: None,
            pan_coordinator: v == root,
        })
        .collect();
    let mut deepest = 0;
    for (v, role) in roles.iter_mut().enumerate() {
        if v == root || !role.children.is_empty() {
            role.own_first_sf_us = Some(sf_start(v));
            deepest = deepest.max(depth(v));
        }
    }
    // Depths i < j start (j − i) offsets apart, modulo BI: their active
    // periods are disjoint if that distance is at least SD both ways round.
    for k in 1..=deepest {
        let apart = (k as Time * step) % bi;
        if apart < sd || apart > bi - sd {
            return Err(BeaconConfigError::ActivePeriodsOverlap {
                depths: (0, k),
                offset_us: step,
                sd_us: sd,
                bi_us: bi,
            });
        }
    }
    Ok(roles)
}
