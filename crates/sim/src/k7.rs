//! The K7 connectivity-trace format, as the 6TiSCH simulator reads it, and
//! a replay of a trace as per-link, per-channel delivery ratios over time.
//!
//! A K7 file (after decompression) is one line of JSON (`node_count`,
//! `channels`, `tx_length`, `interframe_duration`, `start_date`,
//! `stop_date`, ...) and then CSV rows
//! `datetime,src,dst,channel,mean_rssi,pdr,tx_count`, one per directed
//! link, channel and measurement round. A round's PDR holds from its
//! datetime until the link's next round on that channel.

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

use serde::Deserialize;

use crate::{NodeId, Time};

/// The IEEE 802.15.4 channel of the simulator's channel index 0 (the
/// radio's channels 0..=15 are IEEE channels 11..=26).
pub const FIRST_CHANNEL: u8 = 11;

/// Read a K7 trace from `path`, gzip-compressed (as the 6TiSCH simulator
/// ships them, `.k7.gz`) or plain.
pub fn open(path: &std::path::Path) -> Result<Trace, K7Error> {
    let bytes = std::fs::read(path)
        .map_err(|e| refuse(0, "path", path.display(), format!("a readable file ({e})")))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let gz = flate2::read::GzDecoder::new(bytes.as_slice());
        read(std::io::BufReader::new(gz))
    } else {
        read(bytes.as_slice())
    }
}

/// Traces read lately, by path, modification time and length: a sweep
/// checks and runs every point of a scenario on one trace, and parsing the
/// Grenoble trace's 108 660 rows each time cost more than simulating.
type Cached = (
    std::path::PathBuf,
    std::time::SystemTime,
    u64,
    std::sync::Arc<Trace>,
);
static READ: std::sync::Mutex<Vec<Cached>> = std::sync::Mutex::new(Vec::new());

/// Traces kept: a comparison of two traces stays cached, memory stays small.
const KEPT: usize = 2;

/// [`open`], sharing the parsed trace while the file stays the same.
pub fn open_shared(path: &std::path::Path) -> Result<std::sync::Arc<Trace>, K7Error> {
    let meta = std::fs::metadata(path)
        .map_err(|e| refuse(0, "path", path.display(), format!("a readable file ({e})")))?;
    let stamp = (meta.modified().ok(), meta.len());
    let hit = |c: &&Cached| c.0 == path && (Some(c.1), c.2) == stamp;
    if let Some(c) = READ
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(hit)
    {
        return Ok(c.3.clone());
    }
    let trace = std::sync::Arc::new(open(path)?);
    if let (Some(modified), len) = stamp {
        let mut cache = READ.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|c| c.0 != path);
        cache.insert(0, (path.to_path_buf(), modified, len, trace.clone()));
        cache.truncate(KEPT);
    }
    Ok(trace)
}

/// The JSON header line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Header {
    /// Nodes of the testbed measured, numbered 0..node_count.
    pub node_count: usize,
    /// IEEE 802.15.4 channels measured.
    pub channels: Vec<u8>,
    /// Length of the probe frames, octets.
    pub tx_length: u32,
    /// Time between probe frames, ms.
    pub interframe_duration: u32,
    /// First round, `YYYY-MM-DDTHH:MM:SS[.f]`.
    pub start_date: String,
    /// Last round.
    pub stop_date: String,
}

/// One measurement round of one directed link on one channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Start of the round, µs after the header's `start_date`.
    pub at: Time,
    /// Trace node that sent the probes.
    pub src: usize,
    /// Trace node that received them.
    pub dst: usize,
    /// Channel, 11..=26.
    pub channel: u8,
    /// Mean RSSI of the probes received, dBm.
    pub mean_rssi_dbm: f64,
    /// Delivery ratio over `tx_count` probes.
    pub pdr: f64,
    /// Probes sent in the round.
    pub tx_count: u32,
}

/// A parsed trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub header: Header,
    pub rows: Vec<Row>,
}

/// Why a trace or its mapping was refused: the line (1-based, 0 for the
/// mapping), the column or key, the value and what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct K7Error {
    pub line: usize,
    pub key: String,
    pub value: String,
    pub allowed: String,
}

impl std::fmt::Display for K7Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(
            f,
            "{} = {:?}: allowed {}",
            self.key, self.value, self.allowed
        )
    }
}

impl std::error::Error for K7Error {}

fn refuse(line: usize, key: &str, value: impl ToString, allowed: impl ToString) -> K7Error {
    K7Error {
        line,
        key: key.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

/// Seconds since 1970-01-01 of a `YYYY-MM-DDTHH:MM:SS[.f]` datetime (UTC,
/// proleptic Gregorian; days from the civil date as Howard Hinnant's
/// `days_from_civil`).
fn epoch_us(text: &str) -> Option<i64> {
    let (date, time) = text.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.splitn(3, ':');
    let (h, min) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let sec: f64 = t.next()?.parse().ok()?;
    if !(1..=12).contains(&m)
        || !(1..=31).contains(&day)
        || !(0..24).contains(&h)
        || !(0..60).contains(&min)
        || !(0.0..61.0).contains(&sec)
    {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + min * 60) * 1_000_000 + (sec * 1e6).round() as i64)
}

const COLUMNS: &str = "datetime,src,dst,channel,mean_rssi,pdr,tx_count";

/// Read a decompressed K7 trace.
pub fn read(input: impl BufRead) -> Result<Trace, K7Error> {
    let mut lines = input.lines().enumerate();
    let io = |line: usize, e: std::io::Error| refuse(line, "file", e, "a readable UTF-8 text");
    let (_, first) = lines
        .next()
        .ok_or_else(|| refuse(1, "header", "", "a JSON header line"))?;
    let first = first.map_err(|e| io(1, e))?;
    let header: Header = serde_json::from_str(&first).map_err(|e| {
        refuse(
            1,
            "header",
            e,
            "JSON with node_count, channels, tx_length, interframe_duration, start_date, stop_date",
        )
    })?;
    let start = epoch_us(&header.start_date).ok_or_else(|| {
        refuse(
            1,
            "start_date",
            &header.start_date,
            "YYYY-MM-DDTHH:MM:SS[.f]",
        )
    })?;
    for &c in &header.channels {
        if !(11..=26).contains(&c) {
            return Err(refuse(
                1,
                "channels",
                c,
                "IEEE 802.15.4 2.4 GHz channels 11..=26",
            ));
        }
    }
    let mut rows = Vec::new();
    for (i, text) in lines {
        let n = i + 1;
        let text = text.map_err(|e| io(n, e))?;
        if text.trim().is_empty() || (n == 2 && text.trim() == COLUMNS) {
            continue;
        }
        let f: Vec<&str> = text.split(',').map(str::trim).collect();
        if f.len() != 7 {
            return Err(refuse(n, "row", text, format!("7 columns {COLUMNS}")));
        }
        let at = epoch_us(f[0]).filter(|&t| t >= start).ok_or_else(|| {
            refuse(
                n,
                "datetime",
                f[0],
                format!("a datetime at or after start_date {}", header.start_date),
            )
        })?;
        let node = |key: &str, v: &str| {
            v.parse::<usize>()
                .ok()
                .filter(|&x| x < header.node_count)
                .ok_or_else(|| refuse(n, key, v, format!("0..{} (node_count)", header.node_count)))
        };
        let (src, dst) = (node("src", f[1])?, node("dst", f[2])?);
        let channel = f[3]
            .parse::<u8>()
            .ok()
            .filter(|c| header.channels.contains(c))
            .ok_or_else(|| {
                refuse(
                    n,
                    "channel",
                    f[3],
                    format!("one of the header's channels {:?}", header.channels),
                )
            })?;
        let mean_rssi_dbm = f[4]
            .parse::<f64>()
            .ok()
            .filter(|r| (-174.0..0.0).contains(r))
            .ok_or_else(|| {
                refuse(
                    n,
                    "mean_rssi",
                    f[4],
                    "received dBm in [-174, 0); a positive figure is mW",
                )
            })?;
        let pdr = f[5]
            .parse::<f64>()
            .ok()
            .filter(|p| (0.0..=1.0).contains(p))
            .ok_or_else(|| refuse(n, "pdr", f[5], "a ratio in [0, 1]"))?;
        let tx_count = f[6]
            .parse::<u32>()
            .map_err(|_| refuse(n, "tx_count", f[6], "a count of frames >= 0"))?;
        rows.push(Row {
            at: (at - start) as Time,
            src,
            dst,
            channel,
            mean_rssi_dbm,
            pdr,
            tx_count,
        });
    }
    Ok(Trace { header, rows })
}

/// A trace replayed for a scenario: scenario node `i` is trace node
/// `mapping[i]`; a link's PDR on a channel at a time is that of its
/// latest round at or before the time (none before its first round).
#[derive(Debug, Clone)]
pub struct Replay {
    /// Ordered, so the sums over links and channels add in the same order
    /// in every process (a hash map's order changes with its seed).
    rounds: BTreeMap<(NodeId, NodeId, u8), Vec<(Time, f64)>>,
    channels: Vec<u8>,
    /// Every frame meets this channel's PDR, whatever channel it is sent
    /// on: the network as if it did not hop ([`Replay::pinned_to`]).
    pinned: Option<u8>,
}

impl Replay {
    /// Refuses a mapping longer than the trace's node count, naming a node
    /// the trace lacks, or naming one twice.
    pub fn new(trace: &Trace, mapping: &[usize]) -> Result<Self, K7Error> {
        let count = trace.header.node_count;
        if mapping.len() > count {
            return Err(refuse(
                0,
                "nodes",
                mapping.len(),
                format!("at most the trace's node_count ({count})"),
            ));
        }
        let mut scenario_of = vec![None; count];
        for (i, &t) in mapping.iter().enumerate() {
            if t >= count {
                return Err(refuse(
                    0,
                    &format!("mapping[{i}]"),
                    t,
                    format!("a trace node 0..{count}"),
                ));
            }
            if scenario_of[t].replace(i).is_some() {
                return Err(refuse(
                    0,
                    &format!("mapping[{i}]"),
                    t,
                    "a trace node not already mapped",
                ));
            }
        }
        let mut rounds: BTreeMap<_, Vec<(Time, f64)>> = BTreeMap::new();
        for r in &trace.rows {
            if let (Some(a), Some(b)) = (scenario_of[r.src], scenario_of[r.dst]) {
                rounds
                    .entry((a, b, r.channel))
                    .or_default()
                    .push((r.at, r.pdr));
            }
        }
        for v in rounds.values_mut() {
            v.sort_by_key(|&(t, _)| t);
        }
        Ok(Replay {
            rounds,
            channels: trace.header.channels.clone(),
            pinned: None,
        })
    }

    /// Replay every frame with `channel`'s PDR (a channel the trace
    /// measured), so a hopping MAC meets one channel's links throughout;
    /// frames on different channels still do not disturb each other.
    pub fn pinned_to(mut self, channel: u8) -> Self {
        self.pinned = Some(channel);
        self
    }

    /// The PDR of scenario link `src` → `dst` on `channel` at `at`; `None`
    /// for a link the trace never measured or before its first round.
    pub fn pdr(
        &self,
        src: NodeId,
        dst: NodeId,
        channel: u8,
        at: Time,
    ) -> Result<Option<f64>, K7Error> {
        let channel = self.pinned.unwrap_or(channel);
        if !self.channels.contains(&channel) {
            return Err(refuse(
                0,
                "channel",
                channel,
                format!("one of the trace's channels {:?}", self.channels),
            ));
        }
        let Some(v) = self.rounds.get(&(src, dst, channel)) else {
            return Ok(None);
        };
        let i = v.partition_point(|&(t, _)| t <= at);
        Ok(i.checked_sub(1).map(|i| v[i].1))
    }

    /// [`Replay::pdr`], except that before a link's first round on the
    /// channel its first round holds (the trace measures the channels one
    /// after another: a run that starts with the trace must not find the
    /// later channels dead until they are first measured).
    pub fn pdr_from_first(&self, src: NodeId, dst: NodeId, channel: u8, at: Time) -> Option<f64> {
        let channel = self.pinned.unwrap_or(channel);
        let v = self.rounds.get(&(src, dst, channel))?;
        let i = v.partition_point(|&(t, _)| t <= at);
        Some(v[i.saturating_sub(1)].1)
    }

    /// Each measured link's mean PDR over its rounds and channels (every
    /// channel weighing the same; only the pinned one when pinned), as
    /// `(src, dst, pdr)` sorted by link: what routes are chosen by; frames
    /// see the replayed PDR.
    pub fn link_means(&self) -> Vec<(NodeId, NodeId, f64)> {
        let mut per_link: HashMap<(NodeId, NodeId), (f64, usize)> = HashMap::new();
        let counted = |c: u8| self.pinned.is_none_or(|p| p == c);
        for (&(a, b, _), v) in self.rounds.iter().filter(|(k, _)| counted(k.2)) {
            let mean = v.iter().map(|&(_, p)| p).sum::<f64>() / v.len() as f64;
            let slot = per_link.entry((a, b)).or_default();
            slot.0 += mean;
            slot.1 += 1;
        }
        let mut links: Vec<_> = per_link
            .into_iter()
            .map(|((a, b), (sum, n))| (a, b, sum / n as f64))
            .collect();
        links.sort_by_key(|&(a, b, _)| (a, b));
        links
    }

    /// The mean over all rounds of all mapped links and channels.
    pub fn mean_pdr(&self) -> Option<f64> {
        let all: Vec<f64> = self.rounds.values().flatten().map(|&(_, p)| p).collect();
        (!all.is_empty()).then(|| all.iter().sum::<f64>() / all.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Written for these tests in the format of the shared trace (not rows
    // of it): 3 nodes, channels 11 and 26, rounds 10 min apart.
    const SMALL: &str = r#"{"node_count": 3, "channels": [11, 26], "tx_length": 100, "interframe_duration": 100, "start_date": "2018-01-11T16:32:22.0", "stop_date": "2018-01-11T16:52:22.0", "location": "test"}
datetime,src,dst,channel,mean_rssi,pdr,tx_count
2018-01-11T16:32:22.0,0,1,11,-70.5,0.97,100
2018-01-11T16:32:22.0,0,1,26,-88.0,0.41,100
2018-01-11T16:42:22.0,0,1,11,-71.0,0.5,100
2018-01-11T16:32:22.0,2,0,11,-90.0,0.25,100
"#;

    fn small() -> Trace {
        read(SMALL.as_bytes()).unwrap()
    }

    #[test]
    fn a_replay_pinned_to_one_channel_gives_every_frame_its_pdr() {
        let r = Replay::new(&small(), &[0, 1, 2]).unwrap().pinned_to(26);
        // a frame on channel 11 meets channel 26's 0.41 (its only round)
        assert_eq!(r.pdr(0, 1, 11, 0).unwrap(), Some(0.41));
        assert_eq!(r.pdr_from_first(0, 1, 11, 700_000_000), Some(0.41));
        // routes by channel 26 alone: 2 → 0 was measured on 11 only
        assert_eq!(r.link_means(), vec![(0, 1, 0.41)]);
        // unpinned, 0 → 1 averages channel 11's (0.97 + 0.5) / 2 and 26's 0.41
        let all = Replay::new(&small(), &[0, 1, 2]).unwrap().link_means();
        assert!((all[0].2 - (0.735 + 0.41) / 2.0).abs() < 1e-12, "{all:?}");
    }

    #[test]
    fn a_trace_read_again_is_shared_until_its_file_changes() {
        let path = std::env::temp_dir().join(format!("k7-shared-{}.k7", std::process::id()));
        std::fs::write(&path, SMALL).unwrap();
        let a = open_shared(&path).unwrap();
        assert!(std::sync::Arc::ptr_eq(&a, &open_shared(&path).unwrap()));
        assert_eq!(*a, small());
        // one row fewer: another length, read anew
        let shorter: String = SMALL.lines().take(4).map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, shorter).unwrap();
        let b = open_shared(&path).unwrap();
        assert_eq!(b.rows.len(), 2);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn one_row_replays_to_its_exact_pdr() {
        let t = small();
        assert_eq!(t.header.node_count, 3);
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.rows[2].at, 600_000_000); // 10 min after start
        let r = Replay::new(&t, &[0, 1, 2]).unwrap();
        assert_eq!(r.pdr(0, 1, 26, 0).unwrap(), Some(0.41));
        // the first round holds until the second, then the second
        assert_eq!(r.pdr(0, 1, 11, 599_999_999).unwrap(), Some(0.97));
        assert_eq!(r.pdr(0, 1, 11, 600_000_000).unwrap(), Some(0.5));
        // the trace is directed: 1 → 0 was not measured
        assert_eq!(r.pdr(1, 0, 11, 0).unwrap(), None);
        // scenario node 0 as trace node 2: trace 2 → 0 is scenario 0 → 1
        let swapped = Replay::new(&t, &[2, 0]).unwrap();
        assert_eq!(swapped.pdr(0, 1, 11, 0).unwrap(), Some(0.25));
        assert_eq!(swapped.pdr(1, 0, 11, 0).unwrap(), None);
    }

    #[test]
    fn bad_traces_and_mappings_are_refused_by_line_key_and_range() {
        let t = small();
        let e = Replay::new(&t, &[0, 1, 2, 0]).unwrap_err();
        assert_eq!((e.key.as_str(), e.value.as_str()), ("nodes", "4"));
        assert!(e.allowed.contains("node_count (3)"), "{e}");
        assert_eq!(Replay::new(&t, &[0, 5]).unwrap_err().key, "mapping[1]");
        assert_eq!(Replay::new(&t, &[1, 1]).unwrap_err().key, "mapping[1]");
        let r = Replay::new(&t, &[0, 1]).unwrap();
        assert_eq!(r.pdr(0, 1, 15, 0).unwrap_err().key, "channel");
        let bad = |from: &str, to: &str| read(SMALL.replacen(from, to, 1).as_bytes()).unwrap_err();
        let e = bad(",0,1,26,", ",0,1,27,");
        assert_eq!(
            (e.line, e.key.as_str(), e.value.as_str()),
            (4, "channel", "27")
        );
        // an RSSI in mW where dBm belongs
        let e = bad("-88.0", "1.6e-9");
        assert_eq!(e.key, "mean_rssi", "{e}");
        assert!(e.to_string().starts_with("line 4: mean_rssi"), "{e}");
        assert_eq!(bad("0.41", "41").key, "pdr");
        assert_eq!(bad(",2,0,", ",3,0,").key, "src");
        assert_eq!(bad("[11, 26]", "[11, 30]").key, "channels");
    }

    #[test]
    fn before_its_first_round_a_link_has_its_first_pdr() {
        let t = read(SMALL.as_bytes()).unwrap();
        let r = Replay::new(&t, &[0, 1, 2]).unwrap();
        // 0 → 1 on channel 11 is first measured at 0 with 0.97
        assert_eq!(r.pdr_from_first(0, 1, 11, 0), Some(0.97));
        // after its second round (10 min = 600 s later): 0.5
        assert_eq!(r.pdr_from_first(0, 1, 11, 600_000_000), Some(0.5));
        // 1 → 0 was never measured; 2 → 0 never on channel 26
        assert_eq!(r.pdr_from_first(1, 0, 11, 0), None);
        assert_eq!(r.pdr_from_first(2, 0, 26, 0), None);
    }

    #[test]
    fn datetimes_count_from_the_epoch() {
        assert_eq!(epoch_us("1970-01-01T00:00:00.0"), Some(0));
        // 2018-01-11 is day 17542 after 1970-01-01
        assert_eq!(
            epoch_us("2018-01-11T00:00:01.5"),
            Some((17_542 * 86_400 + 1) * 1_000_000 + 500_000)
        );
        assert_eq!(epoch_us("2018-13-11T00:00:00"), None);
    }

    /// The Grenoble trace: $DTLSIM_K7_TRACE, else the shared data
    /// directory beside the checkout (its README: read it there in tests).
    fn grenoble() -> std::path::PathBuf {
        let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("..");
        std::env::var_os("DTLSIM_K7_TRACE").map_or_else(
            || {
                checkout
                    .join("..")
                    .join("shared")
                    .join("data")
                    .join("grenoble.k7.gz")
            },
            Into::into,
        )
    }

    #[test]
    fn a_row_of_the_grenoble_trace_replays_to_its_exact_pdr() {
        // The trace is not ours to ship: a checkout beside the shared data
        // (or $DTLSIM_K7_TRACE) runs this; a clone elsewhere has only the
        // synthetic traces above, which pin the same replay rules.
        let path = grenoble();
        if std::env::var_os("DTLSIM_K7_TRACE").is_none() && !path.is_file() {
            eprintln!("no Grenoble trace at {}: not read", path.display());
            return;
        }
        let t = open(&path).expect("the Grenoble K7 trace");
        assert_eq!(t.header.node_count, 50);
        assert_eq!(t.header.channels.len(), 16);
        // the README's 108 660 lines count the column names too
        assert_eq!(t.rows.len(), 108_659);
        // Line 5: "2018-01-11T16:32:22.0,0,42,11,-80.06,0.6,100", the first
        // round of 0 → 42 on channel 11; its next round there is at
        // 19:03:21.0, 2 h 30 min 59 s = 9 059 s later, with PDR 1.0.
        let r = Replay::new(&t, &(0..50).collect::<Vec<_>>()).unwrap();
        assert_eq!(r.pdr(0, 42, 11, 0).unwrap(), Some(0.6));
        assert_eq!(r.pdr(0, 42, 11, 9_058_999_999).unwrap(), Some(0.6));
        assert_eq!(r.pdr(0, 42, 11, 9_059_000_000).unwrap(), Some(1.0));
    }
}
