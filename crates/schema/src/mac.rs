//! `[mac]`: which MAC protocol runs, and one table per protocol. Only the
//! chosen protocol's table may be given: another's would do nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::problem::Problems;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MacKind {
    Csma,
    Xmac,
    Beacon,
    Tsch,
    /// No MAC: the scenario feeds closed forms only.
    #[default]
    None,
}

impl MacKind {
    pub fn name(self) -> &'static str {
        match self {
            MacKind::Csma => "csma",
            MacKind::Xmac => "xmac",
            MacKind::Beacon => "beacon",
            MacKind::Tsch => "tsch",
            MacKind::None => "none",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Mac {
    #[serde(default)]
    #[schemars(extend("x-sweep" = false))]
    pub kind: MacKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csma: Option<Csma>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xmac: Option<Xmac>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<Beacon>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tsch: Option<Tsch>,
}

impl Mac {
    /// Refuse the tables of other protocols, then give the chosen one its
    /// defaults.
    pub fn settle(&mut self, p: &mut Problems) {
        let kind = self.kind;
        let given = [
            (MacKind::Csma, self.csma.is_some()),
            (MacKind::Xmac, self.xmac.is_some()),
            (MacKind::Beacon, self.beacon.is_some()),
            (MacKind::Tsch, self.tsch.is_some()),
        ];
        for (table, present) in given {
            if present && table != kind {
                let only = format!("mac.kind = '{}', not '{}'", table.name(), kind.name());
                p.unused(&format!("mac.{}", table.name()), "(table)", &only);
            }
        }
        let keep = |k: MacKind| k == kind;
        self.csma = keep(MacKind::Csma).then(|| self.csma.take().unwrap_or_default());
        self.xmac = keep(MacKind::Xmac).then(|| self.xmac.take().unwrap_or_default());
        self.beacon = keep(MacKind::Beacon).then(|| self.beacon.take().unwrap_or_default());
        self.tsch = keep(MacKind::Tsch).then(|| self.tsch.take().unwrap_or_default());
    }

    pub fn validate(&self, p: &mut Problems) {
        if let Some(c) = &self.csma {
            c.validate(p);
        }
        if let Some(x) = &self.xmac {
            x.validate(p);
        }
        if let Some(b) = &self.beacon {
            b.validate(p);
        }
        if let Some(t) = &self.tsch {
            t.validate(p);
        }
    }
}

/// The CSMA/CA backoff of IEEE 802.15.4-2006 7.5.1.4 (macMinBE, macMaxBE,
/// macMaxCSMABackoffs, macMaxFrameRetries).
fn check_backoff(
    p: &mut Problems,
    at: &str,
    min_be: u32,
    max_be: u32,
    backoffs: u32,
    retries: u32,
) {
    p.within(&format!("{at}.min_be"), min_be);
    p.within(&format!("{at}.max_be"), max_be);
    p.within(&format!("{at}.max_backoffs"), backoffs);
    p.within(&format!("{at}.max_retries"), retries);
    p.at_most(
        &format!("{at}.min_be"),
        min_be,
        &format!("{at}.max_be"),
        max_be,
    );
}

/// Always-on unslotted CSMA with link-layer ACKs (the no-duty-cycle baseline).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Csma {
    pub max_retries: u32,
    pub min_be: u32,
    pub max_be: u32,
    pub max_backoffs: u32,
}

impl Default for Csma {
    /// The simulator's own defaults (IEEE 802.15.4-2006 table 86).
    fn default() -> Self {
        let d = sim::mac::csma::CsmaParams::default();
        Csma {
            max_retries: d.max_retries,
            min_be: d.min_be,
            max_be: d.max_be,
            max_backoffs: d.max_backoffs,
        }
    }
}

impl Csma {
    fn validate(&self, p: &mut Problems) {
        let c = self;
        check_backoff(
            p,
            "mac.csma",
            c.min_be,
            c.max_be,
            c.max_backoffs,
            c.max_retries,
        );
    }
}

/// X-MAC preamble sampling; defaults are Contiki's cxmac (8 Hz channel
/// check). The longest strobe train lasts the check interval plus
/// `strobe_margin_ms` (cxmac: 4·on + off = CI + 3 on times);
/// `strobe_period_ms` is cxmac's strobe wait time, 7/8 of the on time.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Xmac {
    pub check_interval_ms: f64,
    pub on_time_ms: f64,
    pub strobe_margin_ms: f64,
    pub strobe_period_ms: f64,
    pub data_wait_ms: f64,
    pub encounter_optimization: bool,
    pub encounter_lead_ms: f64,
    /// Contiki's csma layer above cxmac: trains per payload before dropping it.
    pub max_transmissions: u32,
    /// Packet buffers csma's queues draw from (csma.c MAX_QUEUED_PACKETS =
    /// QUEUEBUF_NUM; cxmac takes one more for the packet it strobes):
    /// Contiki 2.7 on WiSMote 8, Contiki 3.0's cooja platform 16.
    pub queued_packets: u32,
    /// cxmac aborts its own train on hearing another node's strobe.
    pub abort_on_strobe: bool,
    /// Contiki 2.7 timing and state (cxmac.c, csma.c; all on by default):
    /// a wake-up listens one 128 Hz clock tick (the duty cycle is a ctimer);
    pub listen_window_in_clock_ticks: bool,
    /// a sender listens one strobe period before its first strobe and ends
    /// its train on any frame but a strobe ACK;
    pub listen_before_strobe: bool,
    /// after hearing a strobe a node refuses to send for up to two wake-ups;
    pub someone_is_sending: bool,
    /// csma's backoffs are whole clock ticks;
    pub backoff_in_clock_ticks: bool,
    /// a node that sent a strobe ACK stays awake until the data or the end
    /// of its second on time since (cxmac.c `waiting_for_packet`; false:
    /// `data_wait_ms`);
    pub waiting_for_packet: bool,
    /// a send keeps the CPU active from the wait for a remembered wake-up
    /// to its data frame (cxmac.c `send_packet` is a busy loop);
    pub busy_send_cpu: bool,
    /// the wait for a remembered wake-up has the radio off and skips the
    /// wake-ups due in it (off by default: Contiki's late wake-up after it
    /// is not modelled).
    pub deaf_encounter_wait: bool,
}

impl Default for Xmac {
    /// Contiki's cxmac as the simulator defines it (`XmacParams::contiki`),
    /// at cxmac's 8 Hz channel check.
    fn default() -> Self {
        let d = sim::mac::xmac::XmacParams::contiki(125_000);
        let ms = |us: u64| us as f64 / 1000.0;
        Xmac {
            check_interval_ms: ms(d.check_interval_us),
            on_time_ms: ms(d.on_time_us),
            strobe_margin_ms: ms(d.strobe_time_us - d.check_interval_us),
            strobe_period_ms: ms(d.strobe_period_us),
            data_wait_ms: ms(d.data_wait_us),
            encounter_optimization: d.encounter_optimization,
            encounter_lead_ms: ms(d.encounter_lead_us),
            max_transmissions: d.max_transmissions,
            queued_packets: d.queue_capacity as u32,
            abort_on_strobe: d.abort_on_strobe,
            listen_window_in_clock_ticks: d.listen_window_in_clock_ticks,
            listen_before_strobe: d.listen_before_strobe,
            someone_is_sending: d.someone_is_sending,
            backoff_in_clock_ticks: d.backoff_in_clock_ticks,
            waiting_for_packet: d.waiting_for_packet,
            busy_send_cpu: d.busy_send_cpu,
            deaf_encounter_wait: d.deaf_encounter_wait,
        }
    }
}

impl Xmac {
    fn validate(&self, p: &mut Problems) {
        let at = |k: &str| format!("mac.xmac.{k}");
        p.within(&at("check_interval_ms"), self.check_interval_ms);
        p.within(&at("on_time_ms"), self.on_time_ms);
        p.within(&at("strobe_margin_ms"), self.strobe_margin_ms);
        p.within(&at("strobe_period_ms"), self.strobe_period_ms);
        p.within(&at("data_wait_ms"), self.data_wait_ms);
        p.within(&at("encounter_lead_ms"), self.encounter_lead_ms);
        p.within(&at("max_transmissions"), self.max_transmissions);
        p.within(&at("queued_packets"), self.queued_packets);
    }
}

/// After an indirect frame whose frame pending bit is set, a device polls
/// again in the same CAP (`standard`, IEEE 802.15.4-2006 7.5.6.3) or waits
/// for the next beacon to list it (`once-per-beacon`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Poll {
    Standard,
    /// What the open 802.15.4-2006 MAC of the time did, TinyOS TKN15.4
    /// (PollP.nc leaves the bit unread, BeaconSynchronizeP.nc polls once
    /// per beacon).
    #[default]
    OncePerBeacon,
}

/// Beacon-enabled IEEE 802.15.4: 0 <= SO <= BO <= 14 (IEEE 802.15.4-2006 7.5.1.1).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Beacon {
    pub beacon_order: u8,
    pub superframe_order: u8,
    pub min_be: u32,
    pub max_be: u32,
    pub max_backoffs: u32,
    pub max_retries: u32,
    pub guard_time_us: u64,
    /// How far each cluster head's superframe starts after its parent's;
    /// absent: one superframe duration (active periods back to back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superframe_offset_us: Option<u64>,
    pub poll: Poll,
}

impl Default for Beacon {
    fn default() -> Self {
        Beacon {
            beacon_order: 6,
            superframe_order: 2,
            min_be: 3,
            max_be: 5,
            max_backoffs: 4,
            max_retries: 3,
            guard_time_us: 1000,
            superframe_offset_us: None,
            poll: Poll::OncePerBeacon,
        }
    }
}

impl Beacon {
    fn validate(&self, p: &mut Problems) {
        let b = self;
        p.within("mac.beacon.beacon_order", b.beacon_order);
        p.within("mac.beacon.superframe_order", b.superframe_order);
        p.at_most(
            "mac.beacon.superframe_order",
            b.superframe_order,
            "mac.beacon.beacon_order",
            b.beacon_order,
        );
        check_backoff(
            p,
            "mac.beacon",
            b.min_be,
            b.max_be,
            b.max_backoffs,
            b.max_retries,
        );
        p.within("mac.beacon.guard_time_us", b.guard_time_us as f64);
        if let Some(o) = b.superframe_offset_us {
            p.within("mac.beacon.superframe_offset_us", o as f64);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellPlacement {
    /// `cells_per_link` distinct random slots per directed link.
    #[default]
    Random,
    /// Exactly `cells`.
    Given,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// `cells_per_link` dedicated cells on every directed link.
    #[default]
    Links,
    /// `shared_cells` shared cells, one dedicated cell per child→parent link.
    Tree,
    /// As `tree`, and one dedicated cell per parent→child link too (what
    /// goes down the tree then has cells of its own).
    #[serde(rename = "tree-both")]
    TreeBoth,
    /// Contiki-NG's Orchestra, receiver-based, RPL storing-mode rule: every
    /// node listens in its own unicast cell (hash of its address), its
    /// parent and children send there sharing it; a common shared cell for
    /// the rest. Slotframes of `orchestra_unicast_period` and
    /// `orchestra_common_period` slots (`slotframe_length` is not used).
    Orchestra,
}

/// A dedicated TSCH cell: `sender` transmits to `receiver` in it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GivenCell {
    pub sender: u32,
    pub receiver: u32,
    pub slot: u32,
    #[serde(default)]
    pub channel_offset: u8,
}

/// TSCH; the IEEE 802.15.4-2015 default 10 ms timeslot template.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Tsch {
    pub slotframe_length: u32,
    pub cells_per_link: u32,
    pub timeslot_ms: f64,
    pub max_retries: u32,
    pub cell_placement: CellPlacement,
    pub cells: Vec<GivenCell>,
    pub schedule: Schedule,
    pub shared_cells: u32,
    /// Per channel 11..26 (16 values), a factor on every link's PDR on that
    /// channel (interference on some frequencies); empty: none.
    pub channel_pdr: Vec<f64>,
    /// Data frames and Enhanced ACKs name both ends by their 64-bit
    /// extended addresses (as Contiki-NG and OpenWSN do); false: 16-bit
    /// short addresses.
    pub extended_addresses: bool,
    /// With `schedule = "orchestra"`: the unicast slotframe's length
    /// (Contiki-NG orchestra-conf.h `ORCHESTRA_UNICAST_PERIOD`, 17).
    pub orchestra_unicast_period: u32,
    /// With `schedule = "orchestra"`: the common shared slotframe's length
    /// (orchestra-conf.h `ORCHESTRA_COMMON_SHARED_PERIOD`, 31).
    pub orchestra_common_period: u32,
}

impl Default for Tsch {
    fn default() -> Self {
        Tsch {
            slotframe_length: 101,
            cells_per_link: 1,
            timeslot_ms: 10.0,
            max_retries: 3,
            cell_placement: CellPlacement::Random,
            cells: Vec::new(),
            schedule: Schedule::Links,
            shared_cells: 1,
            channel_pdr: Vec::new(),
            extended_addresses: false,
            orchestra_unicast_period: 17,
            orchestra_common_period: 31,
        }
    }
}

/// IEEE 802.15.4-2015 channels 11..26 of the 2.4 GHz band.
const CHANNELS: usize = 16;

impl Tsch {
    fn validate(&self, p: &mut Problems) {
        let t = self;
        p.within("mac.tsch.slotframe_length", t.slotframe_length);
        p.within("mac.tsch.cells_per_link", t.cells_per_link);
        p.at_most(
            "mac.tsch.cells_per_link",
            t.cells_per_link,
            "mac.tsch.slotframe_length",
            t.slotframe_length,
        );
        p.within("mac.tsch.timeslot_ms", t.timeslot_ms);
        if t.timeslot_ms > 0.0 {
            let need_us = crate::runtime::template_minimum_us();
            if crate::units::us_from_ms(t.timeslot_ms) < need_us {
                let need = crate::problem::num(need_us as f64 / 1000.0);
                let why = format!("must be >= {need} (the IEEE default template needs {need} ms)");
                p.push("mac.tsch.timeslot_ms", t.timeslot_ms, why);
            }
        }
        p.within("mac.tsch.max_retries", t.max_retries);
        p.within("mac.tsch.shared_cells", t.shared_cells);
        p.within(
            "mac.tsch.orchestra_unicast_period",
            t.orchestra_unicast_period,
        );
        p.within(
            "mac.tsch.orchestra_common_period",
            t.orchestra_common_period,
        );
        for (i, &f) in t.channel_pdr.iter().enumerate() {
            p.within(&format!("mac.tsch.channel_pdr[{i}]"), f);
        }
        if !matches!(t.channel_pdr.len(), 0 | CHANNELS) {
            let n = t.channel_pdr.len();
            let why = format!("must list 16 values (channels 11..26) or none, not {n}");
            p.push("mac.tsch.channel_pdr", &t.channel_pdr, why);
        }
        match t.cell_placement {
            CellPlacement::Given => self.validate_given(p),
            CellPlacement::Random if !t.cells.is_empty() => {
                let why = "cells are used only with cell_placement = 'given'";
                p.push("mac.tsch.cells", "[...]", why);
            }
            CellPlacement::Random => {}
        }
    }

    fn validate_given(&self, p: &mut Problems) {
        let t = self;
        if t.cells.is_empty() {
            p.push(
                "mac.tsch.cells",
                &t.cells,
                "must list cells when cell_placement = 'given'",
            );
        }
        if t.schedule != Schedule::Links {
            p.push(
                "mac.tsch.schedule",
                t.schedule,
                "must be 'links' with given cells",
            );
        }
        let last = t.slotframe_length.saturating_sub(1);
        let mut used = std::collections::BTreeSet::new();
        for (i, c) in t.cells.iter().enumerate() {
            let key = format!("mac.tsch.cells[{i}]");
            p.within(&format!("{key}.slot"), c.slot);
            if c.slot > last {
                p.push(&key, c, format!("slot must be in [0, {last}]"));
            }
            p.within(&format!("{key}.sender"), c.sender);
            p.within(&format!("{key}.receiver"), c.receiver);
            p.within(&format!("{key}.channel_offset"), c.channel_offset);
            if c.sender == c.receiver {
                p.push(&key, c, "sender = receiver");
            }
            for node in [c.sender, c.receiver] {
                if !used.insert((node, c.slot)) {
                    let why = format!(
                        "node {node} already has a cell in slot {} (one per slot)",
                        c.slot
                    );
                    p.push(&key, c, why);
                }
            }
        }
    }
}
