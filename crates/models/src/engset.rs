//! Session blocking at a server with R session slots and N clients: the
//! M/M/R/R/N (Engset) loss system (Engset's formulas, as Vučinić et al., PIMRC 2015 apply them to DTLS sessions).
//!
//! Each client, while it holds no session, asks for one at rate λ; a session
//! lasts an exponential time of mean 1/μ; ρ = λ/μ is the traffic offered by
//! one *idle* client. A request that finds all R slots busy is refused.
//!
//! Two blocking figures exist and differ because the arrival rate depends on
//! how many clients are already served:
//! * **time congestion** E: the fraction of time all R slots are busy — what
//!   an outside observer polling the server sees;
//! * **call congestion** B: the fraction of session requests refused — what
//!   a client experiences. Arrivals see the system as if they were absent,
//!   so B is the time congestion of the same system with N − 1 clients, and
//!   B < E whenever 0 < R < N.

use crate::error::{require, ModelError};

#[derive(Debug, Clone, PartialEq)]
pub struct EngsetResult {
    /// P(k slots busy) for k = 0..=min(R, N), in time.
    pub busy_distribution: Vec<f64>,
    /// P(all R slots busy) in time.
    pub time_congestion: f64,
    /// P(a session request is refused).
    pub call_congestion: f64,
    /// Mean number of busy slots (carried traffic, Erlang).
    pub carried_erlang: f64,
    /// Mean request rate per mean session time (λ/μ · mean idle clients).
    pub request_rate_per_holding_time: f64,
}

/// Distribution of busy slots with `clients` sources: P(k) ∝ binom(N, k) ρ^k.
fn busy_distribution(slots: u32, clients: u32, erlang: f64) -> Vec<f64> {
    let top = slots.min(clients);
    // Work in logarithms so large N and ρ neither overflow nor underflow.
    let mut log_terms = Vec::with_capacity(top as usize + 1);
    let mut log_t = 0.0f64;
    log_terms.push(log_t);
    for k in 0..top {
        log_t += (f64::from(clients - k) / f64::from(k + 1)).ln() + erlang.ln();
        log_terms.push(log_t);
    }
    let max = log_terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_terms.iter().map(|t| (t - max).exp()).collect();
    let sum: f64 = weights.iter().sum();
    weights.into_iter().map(|w| w / sum).collect()
}

pub fn engset(slots: u32, clients: u32, erlang: f64) -> Result<EngsetResult, ModelError> {
    require(slots >= 1, "slots", slots, "must be >= 1")?;
    require(clients >= 1, "clients", clients, "must be >= 1")?;
    require(
        erlang > 0.0 && erlang.is_finite(),
        "erlang",
        erlang,
        "must be > 0 (offered traffic per idle client, λ/μ)",
    )?;
    let dist = busy_distribution(slots, clients, erlang);
    let blocking_possible = slots < clients;
    let time_congestion = if blocking_possible {
        dist[slots as usize]
    } else {
        0.0
    };
    let call_congestion = if blocking_possible {
        busy_distribution(slots, clients - 1, erlang)[slots as usize]
    } else {
        0.0
    };
    let carried: f64 = dist.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
    Ok(EngsetResult {
        time_congestion,
        call_congestion,
        carried_erlang: carried,
        request_rate_per_holding_time: erlang * (f64::from(clients) - carried),
        busy_distribution: dist,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spec_experiment_4_by_hand() {
        // R = 3, N = 5, ρ = 0.5. Terms binom(5,k)·0.5^k = 1, 2.5, 2.5, 1.25,
        // sum 7.25, so E = 1.25/7.25. With N−1 = 4: 1, 2, 1.5, 0.5, sum 5, B = 0.1.
        let r = engset(3, 5, 0.5).unwrap();
        assert!((r.time_congestion - 1.25 / 7.25).abs() < 1e-12);
        assert!((r.call_congestion - 0.1).abs() < 1e-12);
        let expected = [1.0, 2.5, 2.5, 1.25].map(|t| t / 7.25);
        for (p, e) in r.busy_distribution.iter().zip(expected) {
            assert!((p - e).abs() < 1e-12);
        }
        assert!((r.carried_erlang - (2.5 + 5.0 + 3.75) / 7.25).abs() < 1e-12);
    }

    #[test]
    fn no_blocking_when_every_client_has_a_slot() {
        let r = engset(5, 5, 2.0).unwrap();
        assert_eq!(r.time_congestion, 0.0);
        assert_eq!(r.call_congestion, 0.0);
        assert_eq!(r.busy_distribution.len(), 6);
    }

    #[test]
    fn refuses_bad_parameters() {
        assert!(engset(0, 5, 0.5).is_err());
        assert!(engset(3, 0, 0.5).is_err());
        assert!(engset(3, 5, 0.0).is_err());
        assert!(engset(3, 5, f64::NAN).is_err());
    }

    proptest! {
        #[test]
        fn distribution_is_a_probability(r in 1u32..40, n in 1u32..200, rho in 1e-3f64..50.0) {
            let res = engset(r, n, rho).unwrap();
            let sum: f64 = res.busy_distribution.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-9);
            for p in &res.busy_distribution { prop_assert!((0.0..=1.0).contains(p)); }
            prop_assert!((0.0..=1.0).contains(&res.time_congestion));
            prop_assert!((0.0..=1.0).contains(&res.call_congestion));
            // Arrivals come from idle clients, fewer when busy: B ≤ E.
            prop_assert!(res.call_congestion <= res.time_congestion + 1e-12);
        }

        #[test]
        fn call_congestion_is_arrival_weighted_time_congestion(
            r in 1u32..30, n in 2u32..100, rho in 1e-3f64..20.0,
        ) {
            prop_assume!(r < n);
            // Arrival theorem check: B = (N−R)·p_R / Σ (N−k)·p_k.
            let res = engset(r, n, rho).unwrap();
            let weighted: f64 = res.busy_distribution.iter().enumerate()
                .map(|(k, p)| f64::from(n - k as u32) * p).sum();
            let b = f64::from(n - r) * res.time_congestion / weighted;
            prop_assert!((b - res.call_congestion).abs() < 1e-9 * b.max(1e-300) + 1e-15);
        }

        #[test]
        fn more_slots_block_less(r in 1u32..30, n in 1u32..100, rho in 1e-3f64..20.0) {
            let a = engset(r, n, rho).unwrap();
            let b = engset(r + 1, n, rho).unwrap();
            prop_assert!(b.time_congestion <= a.time_congestion + 1e-12);
            prop_assert!(b.call_congestion <= a.call_congestion + 1e-12);
        }
    }
}
