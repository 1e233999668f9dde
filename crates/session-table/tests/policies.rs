//! Each policy, the half-open bounds and the per-host cap, on a small table.

use std::net::SocketAddr;

use session_table::{Admission, Expiry, Limits, Peer, Policy, Refusal, SlotTable};

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
    assert_eq!(t.expire(130), vec![(peer(2, 1), Expiry::HalfOpen)]);
    assert_eq!(t.next_expiry(), None);
    // an established session never times out here
    assert!(t.expire(1_000_000).is_empty());
    assert_eq!(t.len(), 1);
}

#[test]
fn silent_sessions_time_out_and_traffic_keeps_them() {
    let limits = Limits {
        idle_timeout_us: Some(100),
        ..Limits::slots(3)
    };
    let mut t = SlotTable::new(limits, Policy::Refuse);
    t.admit(peer(1, 1), 0);
    t.admit(peer(2, 1), 0);
    // a half-open handshake is not idle: only its own timeout frees it
    assert_eq!(t.next_expiry(), None);
    t.established(&peer(1, 1), 10);
    t.established(&peer(2, 1), 20);
    assert_eq!(t.next_expiry(), Some(110));
    t.touch(&peer(1, 1), 90);
    assert_eq!(t.next_expiry(), Some(120));
    assert!(t.expire(119).is_empty());
    assert_eq!(t.expire(120), vec![(peer(2, 1), Expiry::Idle)]);
    assert_eq!(t.expire(190), vec![(peer(1, 1), Expiry::Idle)]);
    assert!(t.is_empty());
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
    t.admit(peer(1, 1), 0);
    t.admit(peer(9, 1), 1);
    t.admit(peer(9, 2), 2);
    // the host's own oldest half-open handshake makes room, never another
    // host's session (host 1's is older still)
    assert_eq!(t.admit(peer(9, 3), 3), Admission::Evicted(peer(9, 1)));
    assert!(t.holds(&peer(1, 1)));
    // with both of its slots established, the host is refused
    t.established(&peer(9, 2), 4);
    t.established(&peer(9, 3), 4);
    assert_eq!(t.admit(peer(9, 4), 5), Admission::Refused(Refusal::PerHost));
    assert_eq!(t.admit(peer(2, 1), 6), Admission::Admitted);
    assert!(peer(9, 1).same_host(&peer(9, 2)));
    // under refuse, the cap refuses outright
    let mut t = SlotTable::new(limits, Policy::Refuse);
    t.admit(peer(9, 1), 0);
    t.admit(peer(9, 2), 1);
    assert_eq!(t.admit(peer(9, 3), 2), Admission::Refused(Refusal::PerHost));
}

#[test]
fn a_full_table_of_half_open_and_established_evicts_by_policy() {
    // four slots from four hosts, opened at 0..4; the first two established
    // and then heard from in reverse order (host 1 last, at 100)
    let table = |policy| {
        let mut t = SlotTable::new(Limits::slots(4), policy);
        for h in 0..4u8 {
            t.admit(peer(h, 1), u64::from(h));
        }
        t.established(&peer(0, 1), 100);
        t.established(&peer(1, 1), 90);
        t
    };
    let new = peer(9, 1);
    assert_eq!(
        table(Policy::EvictHalfOpen).admit(new, 200),
        Admission::Evicted(peer(2, 1))
    );
    assert_eq!(
        table(Policy::EvictOldest).admit(new, 200),
        Admission::Evicted(peer(0, 1))
    );
    // the half-open ones were last heard from when they opened
    assert_eq!(
        table(Policy::EvictLeastRecentlyUsed).admit(new, 200),
        Admission::Evicted(peer(2, 1))
    );
    assert_eq!(
        table(Policy::Refuse).admit(new, 200),
        Admission::Refused(Refusal::Full)
    );
}

#[test]
fn ties_in_time_go_to_the_slot_taken_first() {
    for policy in [
        Policy::EvictLeastRecentlyUsed,
        Policy::EvictOldest,
        Policy::EvictHalfOpen,
    ] {
        let mut t = SlotTable::new(Limits::slots(3), policy);
        for p in [3, 1, 2] {
            t.admit(peer(p, 1), 7);
        }
        assert_eq!(
            t.admit(peer(9, 1), 7),
            Admission::Evicted(peer(3, 1)),
            "{policy}"
        );
    }
}

#[test]
fn a_moved_session_keeps_its_age_and_its_place() {
    let mut t = SlotTable::new(Limits::slots(2), Policy::EvictOldest);
    t.admit(peer(1, 1), 0);
    t.admit(peer(2, 1), 10);
    t.moved(&peer(1, 1), peer(1, 9));
    assert!(!t.holds(&peer(1, 1)) && t.holds(&peer(1, 9)));
    assert_eq!(t.admit(peer(3, 1), 20), Admission::Evicted(peer(1, 9)));
}

#[test]
fn no_timeout_never_overflows() {
    let limits = Limits {
        half_open_timeout_us: Some(u64::MAX),
        ..Limits::slots(2)
    };
    let mut t = SlotTable::new(limits, Policy::Refuse);
    t.admit(peer(1, 1), 5);
    assert_eq!(t.next_expiry(), Some(u64::MAX));
    assert!(t.expire(u64::MAX - 1).is_empty());
}

#[test]
fn bounds_that_admit_no_one_are_refused_and_the_guarded_ones_pass() {
    let guarded = Limits::guarded(16);
    assert_eq!(guarded.half_open_max, Some(8));
    assert!(guarded.validate().is_ok());
    assert!(Limits::slots(0).validate().is_err());
    for bad in [
        Limits {
            half_open_max: Some(0),
            ..guarded
        },
        Limits {
            per_host_max: Some(0),
            ..guarded
        },
        Limits {
            half_open_timeout_us: Some(0),
            ..guarded
        },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
}

#[test]
fn policies_are_named_as_scenarios_name_them() {
    for policy in Policy::ALL {
        assert_eq!(Policy::from_name(policy.name()), Some(policy));
    }
    assert_eq!(Policy::from_name("evict-newest"), None);
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

/// Four clients of host 1 and twelve of others complete their handshakes
/// at 0 and vanish (no close_notify heard): with the guarded bounds a
/// newcomer is refused until they have been silent `IDLE_EVICTABLE_US`,
/// then takes the slot of the one silent longest.
#[test]
fn vanished_clients_lock_out_no_one_for_longer_than_the_idle_bound() {
    use session_table::{IDLE_EVICTABLE_US, IDLE_TIMEOUT_US};
    let limits = Limits::guarded(16);
    assert_eq!(limits.idle_timeout_us, Some(IDLE_TIMEOUT_US));
    let mut t = SlotTable::new(limits, Policy::EvictHalfOpen);
    let vanished: Vec<_> = (0..4)
        .map(|p| peer(1, p))
        .chain((0..12).map(|i| peer(2 + i as u8, 1)))
        .collect();
    for (i, p) in vanished.iter().enumerate() {
        // one host's handshakes 100 ms apart (the per-host rate)
        let at = i as u64 * 100_000;
        assert_eq!(t.admit(*p, at), Admission::Admitted, "{p}");
        t.established(p, at + 1);
    }
    let t0 = 2_000_000;
    // the table full and host 1's share full of established sessions
    assert_eq!(
        t.admit(peer(1, 9), t0),
        Admission::Refused(Refusal::PerHost)
    );
    assert_eq!(t.admit(peer(99, 9), t0), Admission::Refused(Refusal::Full));
    // once silent long enough, each newcomer takes the longest-silent slot
    // (of its host when its share is full)
    let later = IDLE_EVICTABLE_US + 400_000;
    assert_eq!(t.admit(peer(1, 9), later), Admission::Evicted(peer(1, 0)));
    t.established(&peer(1, 9), later);
    assert_eq!(
        t.admit(peer(99, 9), later + 1),
        Admission::Evicted(peer(1, 1))
    );
    t.established(&peer(99, 9), later + 1);
    // a session in use is not idle: it keeps its slot
    t.touch(&peer(1, 2), later + 2);
    assert_eq!(
        t.admit(peer(98, 9), later + 3),
        Admission::Evicted(peer(1, 3))
    );
    t.established(&peer(98, 9), later + 3);
    // and the idle timeout frees every silent slot in the end
    let gone = t.expire(IDLE_TIMEOUT_US + 3_000_000);
    assert!(gone.iter().all(|(_, why)| *why == Expiry::Idle));
    assert_eq!(gone.len(), 12, "{gone:?}");
}

#[test]
fn without_the_idle_bound_established_sessions_are_never_evicted() {
    let mut t = two_held(Policy::Refuse);
    assert_eq!(
        t.admit(peer(3, 1), 1 << 40),
        Admission::Refused(Refusal::Full)
    );
}

/// A half-open flood of about 88 verified hellos per second from three
/// hosts, and five honest clients whose round trip is 100 ms (each answers
/// the server's first flight 100 ms after it took its slot, and completes
/// 100 ms later): with the guarded bounds each gets in.
/// Without protection of progressed handshakes and the per-host rate,
/// evict-oldest-half-open threw every one of them out (0 of 5).
#[test]
fn slow_clients_complete_under_a_half_open_flood_from_a_few_hosts() {
    let mut t = SlotTable::new(Limits::guarded(16), Policy::EvictHalfOpen);
    let rtt = 100_000u64;
    let flood_gap = 1_000_000 / 88;
    let mut flood_at = 0u64;
    let mut port = 0u16;
    let mut completed = 0;
    for k in 0..5u64 {
        let honest = peer(200 + k as u8, 1);
        let start = 1_000_000 * (k + 1);
        let mut admitted_at = None;
        let mut progressed = false;
        let mut established = false;
        // the flood up to this client's end, interleaved with its steps
        let end = start + 1_000_000;
        let mut at = start;
        while flood_at < end {
            if admitted_at.is_none() && at <= flood_at {
                // the honest client's hello (retransmitted each second)
                if !matches!(t.admit(honest, at), Admission::Refused(_)) {
                    admitted_at = Some(at);
                } else {
                    at += 1_000_000;
                }
            }
            if let Some(a) = admitted_at {
                if !progressed && a + rtt <= flood_at && t.holds(&honest) {
                    t.progressed(&honest);
                    progressed = true;
                }
                if progressed && !established && a + 2 * rtt <= flood_at && t.holds(&honest) {
                    t.established(&honest, flood_at);
                    established = true;
                }
            }
            port = port.wrapping_add(1);
            let host = 1 + (port % 3) as u8;
            let _ = t.admit(peer(host, port), flood_at);
            flood_at += flood_gap;
        }
        // completed: established and still holding its slot; then it
        // leaves (close_notify)
        if established && t.release(&honest) {
            completed += 1;
        }
    }
    assert_eq!(completed, 5, "honest clients that completed");
}

/// A peer's rank sorts the slots as `peers` lists them, through
/// admissions, a returning peer, an eviction, a release and a move; the
/// index finds every peer held and none released.
#[test]
fn ranks_follow_the_table_order_and_the_index_its_peers() {
    let mut t = SlotTable::new(Limits::slots(4), Policy::EvictOldest);
    for (h, at) in [(1, 0), (2, 10), (3, 20), (4, 30)] {
        assert_eq!(t.admit(peer(h, 1), at), Admission::Admitted);
    }
    t.established(&peer(2, 1), 15);
    // host 2 returns: a new half-open slot at the end of the table
    assert_eq!(t.admit(peer(2, 1), 40), Admission::Admitted);
    assert_eq!(t.rank(&peer(2, 1)).map(|(_, est)| est), Some(false));
    // full: the oldest (host 1) goes
    assert_eq!(t.admit(peer(5, 1), 50), Admission::Evicted(peer(1, 1)));
    assert!(t.release(&peer(3, 1)));
    t.moved(&peer(4, 1), peer(6, 1));
    let held: Vec<SocketAddr> = t.peers().copied().collect();
    assert_eq!(held, [peer(6, 1), peer(2, 1), peer(5, 1)]);
    let ranks: Vec<u64> = held.iter().map(|p| t.rank(p).unwrap().0).collect();
    assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
    for gone in [peer(1, 1), peer(3, 1), peer(4, 1)] {
        assert!(!t.holds(&gone) && t.rank(&gone).is_none());
    }
    assert!(!t.release(&peer(4, 1)));
}
