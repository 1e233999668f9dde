//! Each policy, the half-open bounds and the per-host cap, on a small table.

use std::net::SocketAddr;

use session_table::{Admission, Limits, Peer, Policy, Refusal, SlotTable};

/// A peer on host `h`, port `p`.
fn peer(h: u8, p: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, h], p))
}

/// A table of two slots holding an established session from host 1
/// (opened at 0, last used at 50) and one from host 2 (opened at 10,
/// last used at 20).
fn two_held(policy: Policy) -> SlotTable<SocketAddr> {
    let mut t = SlotTable::new(Limits::slots(2), policy);
    assert_eq!(t.admit(peer(1, 1), 0), Admission::Admitted);
    assert_eq!(t.admit(peer(2, 1), 10), Admission::Admitted);
    t.established(&peer(1, 1), 5);
    t.established(&peer(2, 1), 20);
    t.touch(&peer(1, 1), 50);
    t
}

#[test]
fn refuse_keeps_the_sessions_held() {
    let mut t = two_held(Policy::Refuse);
    assert_eq!(t.admit(peer(3, 1), 60), Admission::Refused(Refusal::Full));
    assert!(t.holds(&peer(1, 1)) && t.holds(&peer(2, 1)) && !t.holds(&peer(3, 1)));
}

#[test]
fn least_recently_used_goes_first() {
    let mut t = two_held(Policy::EvictLeastRecentlyUsed);
    // host 2 was last used at 20, host 1 at 50
    assert_eq!(t.admit(peer(3, 1), 60), Admission::Evicted(peer(2, 1)));
    assert!(t.holds(&peer(3, 1)) && t.holds(&peer(1, 1)));
}

#[test]
fn oldest_goes_first() {
    let mut t = two_held(Policy::EvictOldest);
    assert_eq!(t.admit(peer(3, 1), 60), Admission::Evicted(peer(1, 1)));
}

#[test]
fn half_open_goes_first_and_established_sessions_are_kept() {
    let mut t = two_held(Policy::EvictHalfOpen);
    // no half-open handshake to take over: refused
    assert_eq!(t.admit(peer(3, 1), 60), Admission::Refused(Refusal::Full));
    t.release(&peer(2, 1));
    assert_eq!(t.admit(peer(4, 1), 70), Admission::Admitted);
    assert_eq!(t.half_open(), 1);
    assert_eq!(t.admit(peer(5, 1), 80), Admission::Evicted(peer(4, 1)));
    assert!(t.holds(&peer(1, 1)));
}

#[test]
fn released_slots_are_free_again() {
    let mut t = two_held(Policy::Refuse);
    assert!(t.release(&peer(1, 1)));
    assert!(!t.release(&peer(1, 1)));
    assert_eq!(t.len(), 1);
    assert_eq!(t.admit(peer(3, 1), 60), Admission::Admitted);
    assert!(t.is_full());
}

#[test]
fn a_returning_peer_starts_anew_in_its_own_slot() {
    let mut t = two_held(Policy::Refuse);
    assert_eq!(t.admit(peer(1, 1), 60), Admission::Admitted);
    assert_eq!((t.len(), t.half_open()), (2, 1));
}

#[test]
fn half_open_handshakes_time_out() {
    let limits = Limits {
        half_open_timeout_us: Some(100),
        ..Limits::slots(3)
    };
    let mut t = SlotTable::new(limits, Policy::Refuse);
    t.admit(peer(1, 1), 0);
    t.admit(peer(2, 1), 30);
    t.established(&peer(1, 1), 40);
    assert_eq!(t.next_expiry(), Some(130));
    assert!(t.expire(129).is_empty());
    assert_eq!(t.expire(130), vec![peer(2, 1)]);
    assert_eq!(t.next_expiry(), None);
    // an established session never times out here
    assert!(t.expire(1_000_000).is_empty());
    assert_eq!(t.len(), 1);
}

#[test]
fn the_half_open_limit_evicts_the_oldest_half_open_or_refuses() {
    let limits = Limits {
        half_open_max: Some(2),
        ..Limits::slots(4)
    };
    for (policy, third) in [
        (Policy::EvictOldest, Admission::Evicted(peer(1, 1))),
        (Policy::Refuse, Admission::Refused(Refusal::HalfOpenLimit)),
    ] {
        let mut t = SlotTable::new(limits, policy);
        t.admit(peer(1, 1), 0);
        t.admit(peer(2, 1), 10);
        assert_eq!(t.admit(peer(3, 1), 20), third, "{policy}");
        // a completed handshake makes room under the limit
        t.established(&peer(2, 1), 30);
        assert_eq!(t.admit(peer(4, 1), 40), Admission::Admitted, "{policy}");
    }
}

#[test]
fn one_host_gets_at_most_its_share() {
    let limits = Limits {
        per_host_max: Some(2),
        ..Limits::slots(4)
    };
    let mut t = SlotTable::new(limits, Policy::EvictOldest);
    t.admit(peer(9, 1), 0);
    t.admit(peer(9, 2), 1);
    assert_eq!(t.admit(peer(9, 3), 2), Admission::Refused(Refusal::PerHost));
    assert_eq!(t.admit(peer(1, 1), 3), Admission::Admitted);
    assert!(peer(9, 1).same_host(&peer(9, 2)));
}

#[test]
fn the_table_never_holds_more_than_its_slots() {
    for policy in Policy::ALL {
        let mut t = SlotTable::new(Limits::slots(3), policy);
        for i in 0..50u16 {
            t.admit(peer((i % 7) as u8, i), u64::from(i));
            if i % 3 == 0 {
                t.established(&peer((i % 7) as u8, i), u64::from(i));
            }
            assert!(t.len() <= 3, "{policy}");
        }
    }
}
