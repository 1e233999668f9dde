//! The Minimum Rank with Hysteresis Objective Function (MRHOF, RFC 6719)
//! with the ETX metric and no metric container: a node's advertised Rank
//! is its path cost (RFC 6719 §3.3 with ETX; the DIO carries no metric
//! container, as in RFC 8180's 6TiSCH minimal configuration).
//!
//! - link metric: ETX in 1/128 units (RFC 6551 §4.3.2: the ETX object
//!   carries ETX * 128), so a perfect link costs 128;
//! - path cost through a neighbour (§3.1): the neighbour's advertised Rank
//!   plus the link metric to it;
//! - candidates (§3.2.1): neighbours whose link metric is at most
//!   MAX_LINK_METRIC and whose path cost is at most MAX_PATH_COST, with a
//!   Rank below INFINITE_RANK;
//! - preferred parent (§3.2.2): the candidate of least path cost, except
//!   that the current parent is kept while the best is not better than it
//!   by at least PARENT_SWITCH_THRESHOLD (the hysteresis);
//! - parent set (§3.2.3): the preferred parent and up to PARENT_SET_SIZE - 1
//!   more candidates by path cost;
//! - Rank (§3.3): the largest of (1) the path cost through the preferred
//!   parent, (2) the highest Rank in the parent set rounded up to the next
//!   integral Rank, MinHopRankIncrease * (1 + floor(Rank / MinHopRankIncrease)),
//!   and (3) the largest path cost through the parent set minus
//!   MaxRankIncrease.

/// RPL's infinite rank (RFC 6550 §17, 0xffff).
pub const INFINITE_RANK: u16 = 0xffff;

/// MRHOF parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrhofConfig {
    /// MinHopRankIncrease (RFC 6550 §17 default 256)
    pub min_hop_rank_increase: u16,
    /// MaxRankIncrease (RFC 6550 §6.7.6; 0 disables rule 3 of §3.3)
    pub max_rank_increase: u16,
    /// MAX_LINK_METRIC (RFC 6719 §5: 512, ETX 4)
    pub max_link_metric: u16,
    /// MAX_PATH_COST (RFC 6719 §5: 32768)
    pub max_path_cost: u32,
    /// PARENT_SWITCH_THRESHOLD (RFC 6719 §5: 192, ETX 1.5)
    pub parent_switch_threshold: u16,
    /// PARENT_SET_SIZE (RFC 6719 §5: 3)
    pub parent_set_size: usize,
    /// How the Rank follows from the parents
    pub rank_rule: RankRule,
}

/// How a node's Rank follows from its parents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankRule {
    /// RFC 6719 §3.3's three rules (the module comment)
    Rfc6719,
    /// Contiki-NG's rpl-classic MRHOF (rpl-mrhof.c `rank_via_parent`): the
    /// path cost through the preferred parent, at least the parent's Rank
    /// plus MinHopRankIncrease
    ParentPlusMinHop,
}

impl MrhofConfig {
    /// The defaults of RFC 6719 §5 and RFC 6550 §17. MaxRankIncrease is
    /// DEFAULT_MAX_RANK_INCREASE = 7 * MinHopRankIncrease (RFC 6550 §17,
    /// as recalled, not re-read).
    pub const DEFAULT: MrhofConfig = MrhofConfig {
        min_hop_rank_increase: 256,
        max_rank_increase: 7 * 256,
        max_link_metric: 512,
        max_path_cost: 32768,
        parent_switch_threshold: 192,
        parent_set_size: 3,
        rank_rule: RankRule::Rfc6719,
    };

    /// Contiki-NG 4.9's storing-mode RPL (os/net/routing/rpl-classic):
    /// rpl-private.h `RPL_MIN_HOPRANKINC` 128 under MRHOF (so a Rank is
    /// the ETX path cost) and `RPL_MAX_RANKINC` 7 * 128; rpl-mrhof.c
    /// without squared ETX: `MAX_LINK_METRIC` 1024 (ETX 8, "the default
    /// value is 512 but we use 1024"), `PARENT_SWITCH_THRESHOLD` 96 (ETX
    /// 0.75), `MAX_PATH_COST` 32768, and one parent (it keeps only the
    /// preferred one: "we can have only one official parent", rpl-dag.c).
    pub const CONTIKI_NG: MrhofConfig = MrhofConfig {
        min_hop_rank_increase: 128,
        max_rank_increase: 7 * 128,
        max_link_metric: 1024,
        max_path_cost: 32768,
        parent_switch_threshold: 96,
        parent_set_size: 1,
        rank_rule: RankRule::ParentPlusMinHop,
    };

    /// The root's Rank (RFC 6550 §8.2.2.1: ROOT_RANK = MinHopRankIncrease).
    pub fn root_rank(&self) -> u16 {
        self.min_hop_rank_increase
    }
}

/// A neighbour heard in a DIO of the node's DODAG version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Neighbour {
    /// the neighbour's identity
    pub id: u32,
    /// the Rank it advertises
    pub rank: u16,
    /// ETX of the link to it, * 128
    pub link_etx: u16,
}

/// What MRHOF chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// preferred parent, `None` when no neighbour qualifies
    pub parent: Option<u32>,
    /// parent set, preferred parent first
    pub parent_set: Vec<u32>,
    /// the node's Rank (INFINITE_RANK without a parent)
    pub rank: u16,
}

/// ETX * 128 of a link from transmission counts (attempts / acknowledged;
/// the estimator itself is left to the implementation by RFC 6719 §3.1),
/// saturating at `u16::MAX` and infinite without an acknowledgement.
pub fn etx_from_counts(attempts: u64, acked: u64) -> u16 {
    if acked == 0 {
        return u16::MAX;
    }
    u16::try_from(attempts.saturating_mul(128) / acked).unwrap_or(u16::MAX)
}

/// Path cost through `n` (§3.1).
pub fn path_cost(n: &Neighbour) -> u32 {
    u32::from(n.rank) + u32::from(n.link_etx)
}

/// Choose the preferred parent, parent set and Rank among `neighbours`,
/// keeping `current` under the hysteresis of §3.2.2.
pub fn select(cfg: &MrhofConfig, neighbours: &[Neighbour], current: Option<u32>) -> Selection {
    let mut cands: Vec<(u32, &Neighbour)> = neighbours
        .iter()
        .filter(|n| {
            n.rank != INFINITE_RANK
                && n.link_etx <= cfg.max_link_metric
                && path_cost(n) <= cfg.max_path_cost
        })
        .map(|n| (path_cost(n), n))
        .collect();
    // least cost first; ties by id so the choice does not depend on order
    cands.sort_by_key(|(c, n)| (*c, n.id));
    let Some(&(best_cost, best)) = cands.first() else {
        return Selection {
            parent: None,
            parent_set: Vec::new(),
            rank: INFINITE_RANK,
        };
    };
    let threshold = u32::from(cfg.parent_switch_threshold);
    let preferred = match current.and_then(|id| cands.iter().find(|(_, n)| n.id == id)) {
        Some(&(cur_cost, cur)) if best_cost + threshold > cur_cost => cur,
        _ => best,
    };
    let mut set = vec![preferred];
    set.extend(
        cands
            .iter()
            .map(|(_, n)| *n)
            .filter(|n| n.id != preferred.id)
            .take(cfg.parent_set_size.saturating_sub(1)),
    );
    let mhri = u32::from(cfg.min_hop_rank_increase);
    let through_parent = path_cost(preferred);
    if cfg.rank_rule == RankRule::ParentPlusMinHop {
        let rank = through_parent.max(u32::from(preferred.rank) + mhri);
        return Selection {
            parent: Some(preferred.id),
            parent_set: set.iter().map(|n| n.id).collect(),
            rank: u16::try_from(rank).unwrap_or(INFINITE_RANK),
        };
    }
    let highest_rank = set.iter().map(|n| u32::from(n.rank)).max().unwrap_or(0);
    let rounded = mhri * (1 + highest_rank / mhri);
    let worst_cost = set.iter().map(|n| path_cost(n)).max().unwrap_or(0);
    let spread = worst_cost.saturating_sub(u32::from(cfg.max_rank_increase));
    let rank = through_parent.max(rounded).max(spread);
    Selection {
        parent: Some(preferred.id),
        parent_set: set.iter().map(|n| n.id).collect(),
        rank: u16::try_from(rank).unwrap_or(INFINITE_RANK),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: MrhofConfig = MrhofConfig::DEFAULT;

    fn n(id: u32, rank: u16, link_etx: u16) -> Neighbour {
        Neighbour { id, rank, link_etx }
    }

    #[test]
    fn rank_is_the_largest_of_three_rules() {
        // root A (rank 256) over a perfect link: cost 256 + 128 = 384;
        // B (rank 384) over ETX 2: cost 384 + 256 = 640;
        // C over ETX 600/128 > MAX_LINK_METRIC 512: not a candidate.
        let s = select(
            &CFG,
            &[n(2, 384, 256), n(1, 256, 128), n(3, 256, 600)],
            None,
        );
        assert_eq!(s.parent, Some(1));
        assert_eq!(s.parent_set, vec![1, 2]);
        // rule 1: 384; rule 2: highest rank in the set 384 -> 256 * (1 +
        // 384 / 256) = 256 * 2 = 512; rule 3: 640 - 1792 < 0 -> 0. Rank 512.
        assert_eq!(s.rank, 512);
        // alone with A: rule 2 gives 256 * (1 + 1) = 512 again, rule 1 384
        assert_eq!(select(&CFG, &[n(1, 256, 128)], None).rank, 512);
        // a lossy link to A (ETX 3.5 = 448): rule 1 gives 256 + 448 = 704
        assert_eq!(select(&CFG, &[n(1, 256, 448)], None).rank, 704);
    }

    #[test]
    fn hysteresis_keeps_the_parent_until_the_threshold() {
        // A costs 384; current parent B costs 294 + 256 = 550:
        // 384 + 192 = 576 > 550 -> keep B.
        let a = n(1, 256, 128);
        let s = select(&CFG, &[a, n(2, 294, 256)], Some(2));
        assert_eq!(s.parent, Some(2));
        assert_eq!(s.parent_set, vec![2, 1]);
        // B at 384 + 256 = 640: 576 <= 640 -> switch to A.
        assert_eq!(select(&CFG, &[a, n(2, 384, 256)], Some(2)).parent, Some(1));
        // B at 320 + 256 = 576 exactly: 576 > 576 is false -> switch.
        assert_eq!(select(&CFG, &[a, n(2, 320, 256)], Some(2)).parent, Some(1));
        // a current parent that is no longer a candidate is dropped
        assert_eq!(select(&CFG, &[a, n(2, 294, 900)], Some(2)).parent, Some(1));
    }

    #[test]
    fn no_candidate_gives_infinite_rank_and_set_is_bounded() {
        let s = select(&CFG, &[n(1, INFINITE_RANK, 128), n(2, 32_700, 128)], None);
        // 32700 + 128 = 32828 > MAX_PATH_COST 32768
        assert_eq!((s.parent, s.rank), (None, INFINITE_RANK));
        let many: Vec<Neighbour> = (0..10).map(|i| n(i, 256 + 10 * i as u16, 128)).collect();
        assert_eq!(select(&CFG, &many, None).parent_set, vec![0, 1, 2]);
    }

    #[test]
    fn contiki_ng_rank_and_hysteresis() {
        let c = MrhofConfig::CONTIKI_NG;
        // root rank 128 over ETX 1: max(128 + 128, 128 + 128) = 256
        assert_eq!(select(&c, &[n(1, 128, 128)], None).rank, 256);
        // over ETX 1.5 (192): path cost 320 > 256
        assert_eq!(select(&c, &[n(1, 128, 192)], None).rank, 320);
        // ETX 8 (1024) is still a candidate, 1025 is not
        assert_eq!(select(&c, &[n(1, 128, 1024)], None).rank, 1152);
        assert_eq!(select(&c, &[n(1, 128, 1025)], None).parent, None);
        // hysteresis 96: current 2 at 128 + 300 = 428, best 1 at 128 + 240 =
        // 368: 368 + 96 = 464 > 428, keep 2; at 128 + 230 = 358: 454 > 428
        // keep; 1 at 128 + 200 = 328: 424 <= 428, switch
        assert_eq!(
            select(&c, &[n(1, 128, 240), n(2, 128, 300)], Some(2)).parent,
            Some(2)
        );
        assert_eq!(
            select(&c, &[n(1, 128, 200), n(2, 128, 300)], Some(2)).parent,
            Some(1)
        );
        assert_eq!(
            select(&c, &[n(1, 128, 200), n(2, 128, 300)], Some(2)).parent_set,
            vec![1]
        );
    }

    #[test]
    fn etx_from_transmission_counts() {
        // 10 attempts, 8 acknowledged: 10 * 128 / 8 = 160 (ETX 1.25)
        assert_eq!(etx_from_counts(10, 8), 160);
        assert_eq!(etx_from_counts(5, 5), 128);
        assert_eq!(etx_from_counts(5, 0), u16::MAX);
    }
}
