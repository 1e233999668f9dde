//! `[link_security]`: IEEE 802.15.4 security of data frames (level, key
//! identifier mode, the network key), how CCM* runs on the platform, and
//! two fault injections (outdated keys, nodes below the network's policy).

use models::security::SecurityLevel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::param::params;
use crate::problem::Low::AtLeast;
use crate::problem::Problems;

/// Where CCM* (and the node's DTLS cryptography) runs; the costs of each
/// come from the platform file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    #[default]
    Software,
    Hybrid,
    Hardware,
}

/// Whose costs: `datasheet` (the parts' figures alone, the ideal lower
/// bound) or `openwsn` (what the OpenWSN firmware adds on that board:
/// per-slot processing, policy/key lookup, bus transfers; the platform
/// file's `[implementation.openwsn]`). TSCH only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Implementation {
    #[default]
    Datasheet,
    Openwsn,
}

crate::names::named!(
    /// A security level by its name (`none`, `mic-32` … `enc-mic-128`):
    /// the eight levels of IEEE 802.15.4 as `wpan::security` names them.
    Level,
    || SecurityLevel::ALL.iter().map(|l| l.name()).collect()
);

impl Level {
    pub fn get(self) -> SecurityLevel {
        SecurityLevel::from_name(self.0).expect("a Level holds a known name")
    }
}

params! {
    // Debug by hand: the key is never printed (a panic or a log shows the rest)
    #[derive(Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct LinkSecurity at "link_security": Default {
        /// The security level of data frames (none, mic-32 … enc-mic-128).
        level: Level = Level("none"),
        /// The key identifier mode (IEEE 802.15.4 7.4.1.2).
        key_id_mode: u8 = 1; range (AtLeast(0.0), 3.0),
        /// TSCH only: the ASN is in the nonce, the frame counter left out.
        frame_counter_suppressed: bool = false,
        /// Where CCM* runs: software, hybrid or hardware.
        strategy: Strategy = Strategy::Hardware,
        /// Whose costs: datasheet or openwsn (TSCH only).
        implementation: Implementation = Implementation::Datasheet,
        /// The network key, 32 hex digits.
        key_hex: String = "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf".into(),
        /// Fault injection: these nodes hold an outdated key (another index and
        /// key bytes); their neighbours refuse what they send, and count it.
        outdated_key_nodes: Vec<u32> = Vec::new(),
        /// Fault injection: these nodes are configured with
        /// `below_policy_level`, a secured level the network's `level` refuses;
        /// neighbours refuse (and count) their frames as below policy.
        below_policy_nodes: Vec<u32> = Vec::new(),
        /// The level of `below_policy_nodes`.
        below_policy_level: Level = Level("mic-32"),
    }
}

impl std::fmt::Debug for LinkSecurity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkSecurity")
            .field("level", &self.level)
            .field("key_id_mode", &self.key_id_mode)
            .field("frame_counter_suppressed", &self.frame_counter_suppressed)
            .field("strategy", &self.strategy)
            .field("implementation", &self.implementation)
            .field("key_hex", &"(redacted)")
            .field("outdated_key_nodes", &self.outdated_key_nodes)
            .field("below_policy_nodes", &self.below_policy_nodes)
            .field("below_policy_level", &self.below_policy_level)
            .finish()
    }
}

/// The secured levels a network at `policy` refuses: the simulator's own
/// incoming-frame check.
pub fn refused_levels(policy: Level) -> Vec<&'static str> {
    SecurityLevel::ALL[1..]
        .iter()
        .filter(|&&l| sim::mac::security::below_policy(policy.get(), l))
        .map(|l| l.name())
        .collect()
}

impl LinkSecurity {
    /// `nodes`: how many the topology has; `mac`: the chosen MAC.
    pub fn validate(&self, p: &mut Problems, nodes: u32, mac: crate::mac::MacKind) {
        use crate::mac::MacKind;
        self.check_ranges(p);
        if self.key_hex.len() != 32 || !self.key_hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            p.push(
                "link_security.key_hex",
                &self.key_hex,
                "must be 32 hex digits (a 16-byte key)",
            );
        }
        if self.frame_counter_suppressed && mac != MacKind::Tsch {
            p.unused(
                "link_security.frame_counter_suppressed",
                true,
                "mac.kind = 'tsch' (the ASN in the nonce); other MACs send the counter",
            );
        }
        if self.implementation != Implementation::Datasheet && mac != MacKind::Tsch {
            let only = format!(
                "mac.kind = 'tsch' (OpenWSN is a TSCH stack), not '{}'",
                mac.name()
            );
            p.push(
                "link_security.implementation",
                self.implementation,
                format!("only with {only}"),
            );
        }
        let node_range = |p: &mut Problems, key: &str, listed: &[u32]| {
            for &n in listed.iter().filter(|&&n| n >= nodes) {
                p.push(
                    key,
                    n,
                    format!("node must be in [0, {}]", nodes.saturating_sub(1)),
                );
            }
        };
        if !self.outdated_key_nodes.is_empty() && self.level.0 == "none" {
            let why = "needs link_security.level != 'none'";
            p.push(
                "link_security.outdated_key_nodes",
                &self.outdated_key_nodes,
                why,
            );
        }
        node_range(
            p,
            "link_security.outdated_key_nodes",
            &self.outdated_key_nodes,
        );
        if !self.below_policy_nodes.is_empty() {
            let allowed = refused_levels(self.level);
            if allowed.is_empty() {
                let why = format!(
                    "needs a link_security.level that refuses some secured level; '{}' refuses none",
                    self.level.0
                );
                p.push(
                    "link_security.below_policy_nodes",
                    &self.below_policy_nodes,
                    why,
                );
            } else if !allowed.contains(&self.below_policy_level.0) {
                let why = format!(
                    "with level '{}' it must be one of {}",
                    self.level.0,
                    allowed.join(", ")
                );
                p.push(
                    "link_security.below_policy_level",
                    self.below_policy_level,
                    why,
                );
            }
            node_range(
                p,
                "link_security.below_policy_nodes",
                &self.below_policy_nodes,
            );
        }
    }
}

#[cfg(test)]
mod debug_tests {
    use super::LinkSecurity;

    #[test]
    fn debug_does_not_print_the_key() {
        let shown = format!("{:?}", LinkSecurity::default());
        assert!(!shown.contains("c0c1c2"), "{shown}");
        assert!(shown.contains("key_hex: \"(redacted)\""));
    }
}
