//! When each node is powered on: every node at the run's start, or, with a
//! power-on window, every node but those on from the start (border routers,
//! the server) at a uniform draw in `[0, window)` from its own stream.

use crate::rng::{stream, Purpose};
use crate::{NodeId, Time};
use rand::RngExt;

/// Each node's power-on time (µs of virtual time). A window of 0 puts
/// every node on at 0 and draws nothing.
pub fn power_on_times(
    seed: u64,
    replication: u64,
    nodes: usize,
    window_us: Time,
    on_from_start: &[NodeId],
) -> Vec<Time> {
    (0..nodes)
        .map(|n| {
            if window_us == 0 || on_from_start.contains(&n) {
                0
            } else {
                stream(seed, replication, n as u64, Purpose::PowerOn).random_range(0..window_us)
            }
        })
        .collect()
}

/// The nodes on from the start under a window: the border routers (the
/// network's roots, beaconing from power-on) and the server behind them.
pub fn on_from_start(topology: &crate::topology::Topology, server: NodeId) -> Vec<NodeId> {
    let mut on: Vec<NodeId> = topology.border_routers().to_vec();
    if !on.contains(&server) {
        on.push(server);
    }
    on
}

#[cfg(test)]
mod tests {
    use super::power_on_times;

    #[test]
    fn draws_lie_in_the_window_and_spare_the_nodes_on_from_start() {
        let t = power_on_times(7, 0, 50, 300_000_000, &[0]);
        assert_eq!(t[0], 0);
        assert!(t[1..].iter().all(|&x| x < 300_000_000));
        // spread over the window, not bunched (50 uniform draws)
        assert!(t[1..].iter().any(|&x| x < 100_000_000));
        assert!(t[1..].iter().any(|&x| x > 200_000_000));
        assert_eq!(t, power_on_times(7, 0, 50, 300_000_000, &[0]));
        assert_ne!(t, power_on_times(7, 1, 50, 300_000_000, &[0]));
        assert!(power_on_times(7, 0, 50, 0, &[0]).iter().all(|&x| x == 0));
    }
}
