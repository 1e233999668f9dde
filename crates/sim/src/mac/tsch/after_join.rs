//! Link-layer security switched on with the keys the join delivers
//! (`LinkSecurity::after_join`): which frames a node secures and how it
//! opens what it hears, by whether it and its neighbour have joined.
//!
//! * A pledge holds no key: it sends unsecured and drops (and counts) every
//!   secured frame it hears (RFC 9031's pledge: its join traffic goes
//!   unsecured at the link layer to its join proxy, the network key
//!   arriving only with the join).
//! * A joined node secures every frame, except a unicast frame to a pledge:
//!   the join proxy's answer to its pledge goes unsecured, the only way the
//!   pledge can read it (RFC 9031's join proxy).
//! * A joined node takes an unsecured frame only from a pledge and only
//!   addressed to itself (the join proxy's exception); its own members'
//!   unsecured frames, and any unsecured broadcast, are refused and counted
//!   as below policy.
//! * An Enhanced ACK goes secured as the frame it acknowledges went, and
//!   its receiver opens it so: the ACK of a join frame that crosses the
//!   instant its pledge joins is not lost to the switch.
//!
//! Assumptions (the simulator's shortcuts): a node knows its neighbour is
//! a pledge until the moment that neighbour's join completes (the join
//! workload's record), not until its first secured frame; in a join storm
//! a pledge sends nothing but its join, so the rule "unsecured from a
//! pledge" is the rule "join traffic". After a DTLS or EDHOC join the key
//! is taken to be delivered with the handshake's end.
//! EBs go unsecured as ever (formation.rs).

use crate::mac::address::BROADCAST_NODE;
use crate::mac::security::LinkSecurity;
use crate::world::Cx;
use crate::NodeId;

/// Whether this node secures its frame to `peer` (`BROADCAST_NODE`: to
/// every neighbour).
pub fn seals(sec: Option<&LinkSecurity>, cx: &Cx, peer: NodeId) -> bool {
    match sec {
        None => false,
        Some(s) if !s.after_join => true,
        Some(_) => !cx.is_pledge(cx.node) && (peer == BROADCAST_NODE || !cx.is_pledge(peer)),
    }
}

/// How a node opens a frame it heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opens {
    /// through the security layer (a frame below policy is refused there)
    Secured,
    /// as an unsecured frame, without the security layer
    Unsecured,
    /// dropped: a pledge cannot open a secured frame (counted by the caller)
    Drop,
}

/// How this node opens `frame` (with FCS) from `from`; `to_me`: addressed
/// to this node, not broadcast.
pub fn opens(
    sec: Option<&LinkSecurity>,
    cx: &Cx,
    from: NodeId,
    frame: &[u8],
    to_me: bool,
) -> Opens {
    match sec {
        None => return Opens::Unsecured,
        Some(s) if !s.after_join => return Opens::Secured,
        Some(_) => {}
    }
    let secured = is_secured(frame);
    if cx.is_pledge(cx.node) {
        if secured {
            Opens::Drop
        } else {
            Opens::Unsecured
        }
    } else if !secured && to_me && cx.is_pledge(from) {
        Opens::Unsecured
    } else {
        Opens::Secured
    }
}

/// Whether the Enhanced ACK of `acked` (a frame received, with FCS) goes
/// secured: as that frame went, so that a pledge can read the ACK of its
/// join frame (assumption: IEEE 802.15.4 leaves the ACK's security to the
/// frame's security policy; this is the one a pledge can follow).
pub fn seals_ack(sec: Option<&LinkSecurity>, acked: &[u8]) -> bool {
    match sec {
        None => false,
        Some(s) if !s.after_join => true,
        Some(_) => is_secured(acked),
    }
}

/// How the sender of a frame (`sent_secured`: whether it went secured)
/// opens its Enhanced ACK: as the frame went; a secured ACK at a pledge is
/// dropped.
pub fn opens_ack(sec: Option<&LinkSecurity>, cx: &Cx, sent_secured: bool, ack: &[u8]) -> Opens {
    match sec {
        None => Opens::Unsecured,
        Some(s) if !s.after_join => Opens::Secured,
        Some(_) if sent_secured => Opens::Secured,
        Some(_) if !is_secured(ack) => Opens::Unsecured,
        Some(_) if cx.is_pledge(cx.node) => Opens::Drop,
        Some(_) => Opens::Secured,
    }
}

/// The Security Enabled bit of the frame control field (IEEE 802.15.4-2015
/// 7.2.1.2: bit 3 of the first octet).
fn is_secured(frame: &[u8]) -> bool {
    frame.first().is_some_and(|b| b & 0x08 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::address::LinkAddressing;
    use crate::mac::frame::build_data_frame;
    use crate::mac::security::NodeSecurity;
    use crate::topology::Topology;
    use crate::world::World;
    use wpan::security::SecurityLevel;

    fn cfg(after_join: bool) -> LinkSecurity {
        LinkSecurity {
            level: SecurityLevel::Mic32,
            key_id_mode: 1,
            key: [7; 16],
            key_index: 1,
            frame_counter_suppressed: false,
            after_join,
            setup_us: 10.0,
            per_block_us: 1.0,
        }
    }

    /// nodes 0 (border router, joined), 1 (joined), 2 (pledge)
    fn world() -> World {
        let mut w = World::new(Topology::line(3, 1.0).unwrap(), 1, 0);
        w.set_pledge(2, true);
        w
    }

    #[test]
    fn a_joined_node_secures_except_to_a_pledge_and_a_pledge_never() {
        let (mut w, c) = (world(), cfg(true));
        assert!(seals(Some(&c), &w.cx(1), 0));
        assert!(seals(Some(&c), &w.cx(1), BROADCAST_NODE));
        assert!(
            !seals(Some(&c), &w.cx(1), 2),
            "the proxy answers its pledge unsecured"
        );
        assert!(!seals(Some(&c), &w.cx(2), 1), "a pledge has no key");
        assert!(!seals(Some(&c), &w.cx(2), BROADCAST_NODE));
        // the key set from power-on: every frame secured, as before
        assert!(seals(Some(&cfg(false)), &w.cx(2), 1));
        assert!(!seals(None, &w.cx(1), 0));
    }

    #[test]
    fn the_first_frame_after_the_join_is_longer_by_the_aux_header_and_mic() {
        let mut w = world();
        let c = cfg(true);
        let mut sec = NodeSecurity::new(c);
        let frame = |w: &mut World, sec: &mut NodeSecurity, a: LinkAddressing| {
            let cx = w.cx(2);
            let s = Some(sec).filter(|_| seals(Some(&c), &cx, 1));
            build_data_frame(s, a, 1, 2, 1, vec![0; 40], Some(1000)).0
        };
        let before = frame(&mut w, &mut sec, LinkAddressing::Extended);
        let before_short = frame(&mut w, &mut sec, LinkAddressing::Short);
        assert!(!is_secured(&before));
        w.set_pledge(2, false); // the join completed
        let after = frame(&mut w, &mut sec, LinkAddressing::Extended);
        let after_short = frame(&mut w, &mut sec, LinkAddressing::Short);
        assert!(is_secured(&after));
        // by hand, IEEE 802.15.4-2015 9.4: security control 1 + frame counter
        // 4 + key index 1 (key identifier mode 1) = 6 bytes of auxiliary
        // header, and MIC-32's 4 bytes
        assert_eq!(after.len() - before.len(), 1 + 4 + 1 + 4);
        assert_eq!(c.overhead(), 10);
        // with short addresses (the storm's) a secured frame names its
        // source by its 8-byte extended address, which the CCM* nonce holds:
        // 6 bytes more than the 2-byte short one
        assert_eq!(after_short.len() - before_short.len(), 10 + 6);
    }

    #[test]
    fn who_opens_what() {
        let (mut w, c) = (world(), cfg(true));
        let mut sec = NodeSecurity::new(c);
        let secured = build_data_frame(
            Some(&mut sec),
            LinkAddressing::Extended,
            1,
            1,
            2,
            vec![1; 8],
            Some(5),
        )
        .0;
        let plain =
            build_data_frame(None, LinkAddressing::Extended, 1, 2, 1, vec![1; 8], Some(5)).0;
        // a pledge drops a secured frame (its MAC counts it), reads an unsecured one
        assert_eq!(opens(Some(&c), &w.cx(2), 1, &secured, true), Opens::Drop);
        assert_eq!(opens(Some(&c), &w.cx(2), 1, &plain, true), Opens::Unsecured);
        // its proxy takes its unsecured join frame, addressed to itself
        assert_eq!(opens(Some(&c), &w.cx(1), 2, &plain, true), Opens::Unsecured);
        // but not broadcast, nor from a joined neighbour: the security layer refuses it
        assert_eq!(opens(Some(&c), &w.cx(1), 2, &plain, false), Opens::Secured);
        assert_eq!(opens(Some(&c), &w.cx(1), 0, &plain, true), Opens::Secured);
        let mut proxy = NodeSecurity::new(c);
        assert!(proxy.open(0, &plain, Some(5)).is_err());
        assert_eq!(proxy.stats.refused_level, 1);
        // a pledge's drop is counted as a key it does not have
        let mut pledge = NodeSecurity::new(c);
        pledge.refuse_without_key();
        assert_eq!(pledge.stats.refused_unknown_key, 1);
    }
}
