//! tinyDTLS 0.8.2's packet buffers: one pool per mote, shared by the
//! retransmission queue and the buffer for handshake messages that arrive
//! before their turn, with the leak that release had.
//!
//! tinyDTLS keeps every record it may have to resend, and every handshake
//! message that arrives early, in a `netq_t` node from one static pool
//! (netq.c `MEMB(netq_storage, netq_t, NETQ_MAXCNT)`; netq.h: 3 nodes in a
//! PSK-only build, 5 with ECC). `dtls_send_multi` sends a record whose node
//! it cannot get anyway, but never resends it ("retransmit buffer full");
//! `handle_handshake` drops an early message it has no node for ("no space
//! in reoder buffer"). And 0.8.2's `handle_handshake` takes an early
//! message out of the reorder queue when its turn comes without freeing its
//! node: every early message a mote processes costs it one buffer for the
//! rest of its life (fixed in tinyDTLS in December 2021, "fix memory leak
//! in handshake message queue"). The Cooja oracle's client (reference/cooja,
//! `debug/h3-r4-ir100-debug`) loses two this way in its first two
//! handshakes and from then on resends only its ClientKeyExchange.
//!
//! Written by hand: it models one implementation's memory, which no library
//! does. A pool is a handle: clones share the nodes (one per mote, given to
//! every connection of that mote).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A mote's pool of netq nodes (clones share it).
#[derive(Clone, Debug)]
pub struct NetqPool {
    free: Arc<AtomicU32>,
}

impl PartialEq for NetqPool {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.free, &other.free)
    }
}

impl Eq for NetqPool {}

impl NetqPool {
    /// netq.h `NETQ_MAXCNT` in a build with PSK and without ECC.
    pub const PSK_NODES: u32 = 3;
    /// netq.h `NETQ_MAXCNT` in a build with ECC.
    pub const ECC_NODES: u32 = 5;

    /// A pool of `nodes` free nodes.
    pub fn new(nodes: u32) -> Self {
        NetqPool {
            free: Arc::new(AtomicU32::new(nodes)),
        }
    }

    /// Nodes free now.
    pub fn free(&self) -> u32 {
        self.free.load(Ordering::Relaxed)
    }

    /// Up to `wanted` nodes, as many as are free.
    pub fn take(&self, wanted: u32) -> NetqLease {
        let mut got = 0;
        let _ = self
            .free
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |free| {
                got = free.min(wanted);
                Some(free - got)
            });
        NetqLease {
            pool: self.clone(),
            nodes: got,
        }
    }
}

/// Nodes taken from a [`NetqPool`], given back when dropped.
#[derive(Debug)]
pub struct NetqLease {
    pool: NetqPool,
    nodes: u32,
}

impl NetqLease {
    /// How many nodes were taken.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Never give the nodes back (0.8.2's `handle_handshake` on an early
    /// message it has processed).
    pub fn leak(mut self) {
        self.nodes = 0;
    }
}

impl Drop for NetqLease {
    fn drop(&mut self) {
        if self.nodes > 0 {
            self.pool.free.fetch_add(self.nodes, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_gives_back_what_it_took_unless_leaked() {
        let pool = NetqPool::new(NetqPool::PSK_NODES);
        let three = pool.take(5);
        assert_eq!((three.nodes(), pool.free()), (3, 0));
        assert_eq!(pool.take(1).nodes(), 0);
        drop(three);
        assert_eq!(pool.free(), 3);
        pool.take(1).leak();
        assert_eq!(pool.free(), 2);
    }
}
