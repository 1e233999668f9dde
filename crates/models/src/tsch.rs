//! Expected latency of frames over TSCH dedicated cells (Vučinić et al., PIMRC 2015).
//!
//! One hop has C dedicated cells in a slotframe of L timeslots and a delivery
//! ratio P per attempt. Two expectations are given, in timeslots:
//!
//! * the **closed form** `D = (1 + L/(C+1)) / P`: the wait for the next cell
//!   treats the C cells as points thrown uniformly on a continuous circle of
//!   length L (mean residual gap L/(C+1)), plus one slot to send, and every
//!   retry as a fresh draw — all divided by P. Valid for L ≫ C.
//! * the **exact** expectation for C *distinct* slots drawn uniformly among L
//!   (integer gaps), with the retry after a failed attempt waiting for the
//!   next cell of the *same* schedule (so with C = 1, a full slotframe).
//!
//! Shared assumptions: a frame finds an empty queue (frames of a handshake
//! are independent), cells of different hops are placed independently, no
//! collisions. A frame enters the first hop at a uniformly random instant; at
//! later hops it arrives at the end of the previous hop's slot, i.e. on a slot
//! boundary, which saves half a slot on average in the exact model.

use crate::error::{require, require_pdr, ModelError};

/// One hop of the path: its dedicated cells per slotframe and delivery ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hop {
    pub cells: u32,
    pub pdr: f64,
}

/// When a frame becomes ready to send, relative to the timeslot grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Uniformly at random in continuous time (an application event).
    Uniform,
    /// At a slot boundary chosen uniformly (a frame just received on the previous hop).
    SlotBoundary,
}

/// Latency of one hop, in timeslots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HopLatency {
    pub closed_form_slots: f64,
    pub exact_slots: f64,
}

/// Latency of a whole handshake of `frames` frames over every hop.
#[derive(Debug, Clone, PartialEq)]
pub struct HandshakeLatency {
    pub hops: Vec<HopLatency>,
    /// Per frame, end to end, in timeslots.
    pub closed_form_slots_per_frame: f64,
    pub exact_slots_per_frame: f64,
    /// Whole handshake, in seconds.
    pub closed_form_s: f64,
    pub exact_s: f64,
}

fn check_hop(slotframe: u32, hop: Hop) -> Result<(), ModelError> {
    require(slotframe >= 1, "slotframe", slotframe, "must be >= 1")?;
    require(
        hop.cells >= 1 && hop.cells <= slotframe,
        "cells",
        hop.cells,
        &format!("must be in [1, slotframe = {slotframe}]"),
    )?;
    require_pdr("pdr", hop.pdr)
}

/// Closed form (Vučinić et al., PIMRC 2015): `(1 + L/(C+1)) / P` timeslots for one hop.
pub fn closed_form_hop_slots(slotframe: u32, hop: Hop) -> Result<f64, ModelError> {
    check_hop(slotframe, hop)?;
    let l = f64::from(slotframe);
    let c = f64::from(hop.cells);
    Ok((1.0 + l / (c + 1.0)) / hop.pdr)
}

/// Moments of the gap between a cell and the next one, for C distinct slots
/// drawn uniformly from a cyclic slotframe of L slots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapMoments {
    /// E[g], always L/C.
    pub mean: f64,
    /// E[g²].
    pub mean_square: f64,
    /// E[g_a g_b] for two different gaps of the same schedule (0 when C = 1).
    pub cross: f64,
}

/// Exact gap moments. Given a cell at slot 0, the other C−1 cells are a
/// uniform subset of the remaining L−1 slots, so
/// `P(g = k) = binom(L−1−k, C−2) / binom(L−1, C−1)` for k in 1..=L−C+1.
pub fn gap_moments(slotframe: u32, cells: u32) -> Result<GapMoments, ModelError> {
    check_hop(slotframe, Hop { cells, pdr: 1.0 })?;
    let l = f64::from(slotframe);
    let c = f64::from(cells);
    if cells == 1 {
        return Ok(GapMoments {
            mean: l,
            mean_square: l * l,
            cross: 0.0,
        });
    }
    // p(1) = (C-1)/(L-1); p(k+1)/p(k) = (L-k-C+1)/(L-1-k): no factorials, no overflow.
    let mut p = (c - 1.0) / (l - 1.0);
    let (mut mean, mut mean_square) = (0.0, 0.0);
    for k in 1..=(slotframe - cells + 1) {
        let kf = f64::from(k);
        mean += kf * p;
        mean_square += kf * kf * p;
        if k < slotframe - cells + 1 {
            p *= (l - kf - c + 1.0) / (l - 1.0 - kf);
        }
    }
    // The C gaps always sum to L: L² = C·E[g²] + C(C−1)·E[g_a g_b].
    let cross = (l * l - c * mean_square) / (c * (c - 1.0));
    Ok(GapMoments {
        mean,
        mean_square,
        cross,
    })
}

/// Exact expected latency of one hop in timeslots (see the module comment).
pub fn exact_hop_slots(slotframe: u32, hop: Hop, arrival: Arrival) -> Result<f64, ModelError> {
    check_hop(slotframe, hop)?;
    let m = gap_moments(slotframe, hop.cells)?;
    let l = f64::from(slotframe);
    let c = f64::from(hop.cells);
    // A frame lands in a gap with probability proportional to its length
    // (size-biased), and waits on average half of it: C·E[g²] / (2L).
    let residual = c * m.mean_square / (2.0 * l)
        - match arrival {
            Arrival::Uniform => 0.0,
            // Boundaries inside a gap of g slots give waits 0..g-1, mean (g-1)/2.
            Arrival::SlotBoundary => 0.5,
        };
    // After j failed attempts the frame has waited the j gaps that follow the
    // size-biased one: E[g_{I+j}] = C·E[g_I g_{I+j}]/L, which is C·E[g²]/L when
    // j is a multiple of C (the same gap again) and C·E[g_a g_b]/L otherwise.
    let q = 1.0 - hop.pdr;
    let retries = if q == 0.0 {
        0.0
    } else {
        let same_gap = q.powf(c) / (1.0 - q.powf(c)); // Σ over j = C, 2C, …
        let all = q / (1.0 - q); // Σ over j ≥ 1
        c / l * (m.mean_square * same_gap + m.cross * (all - same_gap))
    };
    Ok(1.0 + residual + retries)
}

/// Latency of a handshake of `frames` frames, each crossing every hop.
pub fn handshake_latency(
    slotframe: u32,
    hops: &[Hop],
    frames: u32,
    timeslot_ms: f64,
) -> Result<HandshakeLatency, ModelError> {
    require(!hops.is_empty(), "hops", hops.len(), "must be >= 1")?;
    require(frames >= 1, "frames", frames, "must be >= 1")?;
    require(
        timeslot_ms > 0.0 && timeslot_ms.is_finite(),
        "timeslot_ms",
        timeslot_ms,
        "must be > 0",
    )?;
    let per_hop = hops
        .iter()
        .enumerate()
        .map(|(i, &hop)| {
            let arrival = if i == 0 {
                Arrival::Uniform
            } else {
                Arrival::SlotBoundary
            };
            Ok(HopLatency {
                closed_form_slots: closed_form_hop_slots(slotframe, hop)?,
                exact_slots: exact_hop_slots(slotframe, hop, arrival)?,
            })
        })
        .collect::<Result<Vec<_>, ModelError>>()?;
    let closed: f64 = per_hop.iter().map(|h| h.closed_form_slots).sum();
    let exact: f64 = per_hop.iter().map(|h| h.exact_slots).sum();
    let to_s = f64::from(frames) * timeslot_ms / 1000.0;
    Ok(HandshakeLatency {
        hops: per_hop,
        closed_form_slots_per_frame: closed,
        exact_slots_per_frame: exact,
        closed_form_s: closed * to_s,
        exact_s: exact * to_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hop(cells: u32, pdr: f64) -> Hop {
        Hop { cells, pdr }
    }

    #[test]
    fn spec_reference_value_l101_c1_one_hop() {
        // Reference experiment 3 (Vučinić et al., PIMRC 2015): the closed form gives 5.15 s for L = 101,
        // C = 1, one hop, 10 frames of 10 ms slots: 10 · (1 + 101/2) · 10 ms.
        let r = handshake_latency(101, &[hop(1, 1.0)], 10, 10.0).unwrap();
        assert!(
            (r.closed_form_s - 5.15).abs() < 1e-12,
            "{}",
            r.closed_form_s
        );
        // With one cell the discrete schedule is deterministic: same value.
        assert!((r.exact_s - 5.15).abs() < 1e-12, "{}", r.exact_s);
    }

    #[test]
    fn multi_hop_sums_per_hop_terms() {
        // Hand computation: cells 1,2,1 with L = 101, P = 1, 0.9, 1:
        // (1 + 101/2) + (1 + 101/3)/0.9 + (1 + 101/2) = 51.5 + 38.5185… + 51.5
        let r = handshake_latency(101, &[hop(1, 1.0), hop(2, 0.9), hop(1, 1.0)], 10, 10.0).unwrap();
        let expected = 51.5 + (1.0 + 101.0 / 3.0) / 0.9 + 51.5;
        assert!((r.closed_form_slots_per_frame - expected).abs() < 1e-9);
        assert!((r.closed_form_s - expected * 0.1).abs() < 1e-9);
    }

    #[test]
    fn two_cells_exact_gap_moments_by_hand() {
        // C = 2 in L = 5: the gap after a cell is uniform on 1..=4.
        let m = gap_moments(5, 2).unwrap();
        assert!((m.mean - 2.5).abs() < 1e-12);
        assert!((m.mean_square - (1.0 + 4.0 + 9.0 + 16.0) / 4.0).abs() < 1e-12);
        // g_a + g_b = 5, so E[g_a g_b] = E[g (5 - g)] = 12.5 - 7.5 = 5.
        assert!((m.cross - 5.0).abs() < 1e-12);
        // Residual for a uniform arrival: 2·7.5/(2·5) = 1.5 slots; +1 to send.
        let d = exact_hop_slots(5, hop(2, 1.0), Arrival::Uniform).unwrap();
        assert!((d - 2.5).abs() < 1e-12);
    }

    #[test]
    fn exact_matches_enumeration_of_every_schedule() {
        // Brute force over every placement of C cells in L slots and every
        // arrival boundary, with P = 1: the exact model must agree.
        for (l, c) in [(7u32, 1u32), (7, 2), (7, 3), (9, 4), (6, 6)] {
            let mut total = 0.0;
            let mut count = 0.0;
            for mask in 0u32..(1 << l) {
                if mask.count_ones() != c {
                    continue;
                }
                for b in 0..l {
                    let wait = (0..l).find(|w| mask & (1 << ((b + w) % l)) != 0).unwrap();
                    total += f64::from(wait) + 1.0;
                    count += 1.0;
                }
            }
            let exact = exact_hop_slots(l, hop(c, 1.0), Arrival::SlotBoundary).unwrap();
            assert!((exact - total / count).abs() < 1e-9, "L={l} C={c}");
        }
    }

    #[test]
    fn exact_retries_match_enumeration() {
        // With P < 1, enumerate schedules and sum the geometric series of
        // failures explicitly over the actual next gaps.
        let (l, c, p) = (8u32, 3u32, 0.6f64);
        let mut total = 0.0;
        let mut count = 0.0;
        for mask in 0u32..(1 << l) {
            if mask.count_ones() != c {
                continue;
            }
            let cells: Vec<u32> = (0..l).filter(|s| mask & (1 << s) != 0).collect();
            for b in 0..l {
                // first cell at or after boundary b
                let first = (0..l).find(|w| mask & (1 << ((b + w) % l)) != 0).unwrap();
                let mut idx = cells.iter().position(|&s| s == (b + first) % l).unwrap();
                let mut e = f64::from(first) + 1.0;
                for j in 1..400 {
                    let next = (idx + 1) % cells.len();
                    let gap = (cells[next] + l - cells[idx]) % l;
                    let gap = if gap == 0 { l } else { gap };
                    e += (1.0 - p).powi(j) * f64::from(gap);
                    idx = next;
                }
                total += e;
                count += 1.0;
            }
        }
        let exact = exact_hop_slots(l, hop(c, p), Arrival::SlotBoundary).unwrap();
        assert!(
            (exact - total / count).abs() < 1e-9,
            "{exact} vs {}",
            total / count
        );
    }

    #[test]
    fn one_cell_with_losses_waits_whole_slotframes() {
        // C = 1: exact = 1 + L/2 + L(1-P)/P; closed = (1 + L/2)/P.
        let (l, p) = (101u32, 0.7);
        let exact = exact_hop_slots(l, hop(1, p), Arrival::Uniform).unwrap();
        assert!((exact - (1.0 + 50.5 + 101.0 * 0.3 / 0.7)).abs() < 1e-9);
        let closed = closed_form_hop_slots(l, hop(1, p)).unwrap();
        assert!((closed - 51.5 / 0.7).abs() < 1e-9);
    }

    #[test]
    fn refuses_out_of_range() {
        assert!(closed_form_hop_slots(0, hop(1, 1.0)).is_err());
        assert!(closed_form_hop_slots(10, hop(0, 1.0)).is_err());
        assert!(closed_form_hop_slots(10, hop(11, 1.0)).is_err());
        assert!(closed_form_hop_slots(10, hop(1, 0.0)).is_err());
        assert!(closed_form_hop_slots(10, hop(1, 1.5)).is_err());
        assert!(handshake_latency(10, &[], 10, 10.0).is_err());
        assert!(handshake_latency(10, &[hop(1, 1.0)], 0, 10.0).is_err());
        let e = closed_form_hop_slots(10, hop(11, 1.0)).unwrap_err();
        assert_eq!(e.to_string(), "cells = 11: must be in [1, slotframe = 10]");
    }

    proptest! {
        #[test]
        fn gap_mean_is_l_over_c(l in 1u32..3000, c_frac in 0.0f64..1.0) {
            let c = 1 + ((f64::from(l - 1)) * c_frac) as u32;
            let m = gap_moments(l, c).unwrap();
            prop_assert!((m.mean - f64::from(l) / f64::from(c)).abs() < 1e-6 * f64::from(l));
            prop_assert!(m.mean_square >= m.mean * m.mean - 1e-6);
        }

        #[test]
        fn latency_falls_with_cells_and_rises_with_slotframe(
            l in 2u32..2000, c in 1u32..20, p in 0.05f64..=1.0,
        ) {
            prop_assume!(c < l);
            for arrival in [Arrival::Uniform, Arrival::SlotBoundary] {
                let d = exact_hop_slots(l, hop(c, p), arrival).unwrap();
                let more_cells = exact_hop_slots(l, hop(c + 1, p), arrival).unwrap();
                let longer = exact_hop_slots(l + 1, hop(c, p), arrival).unwrap();
                prop_assert!(more_cells <= d + 1e-9);
                prop_assert!(longer >= d - 1e-9);
                prop_assert!(d >= 1.0);
            }
            let d = closed_form_hop_slots(l, hop(c, p)).unwrap();
            prop_assert!(closed_form_hop_slots(l, hop(c + 1, p)).unwrap() <= d);
            prop_assert!(closed_form_hop_slots(l + 1, hop(c, p)).unwrap() >= d);
        }

        #[test]
        fn exact_and_closed_form_agree_when_l_much_larger_than_c(
            l in 1000u32..5000, c in 1u32..4,
        ) {
            // Same continuous arrival: differ by O(C/L) relative, well under 1 %.
            let exact = exact_hop_slots(l, hop(c, 1.0), Arrival::Uniform).unwrap();
            let closed = closed_form_hop_slots(l, hop(c, 1.0)).unwrap();
            prop_assert!((exact - closed).abs() / closed < 0.01, "{} {}", exact, closed);
        }
    }
}
