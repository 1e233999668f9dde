//! Bytes each layer adds to one datagram (RFC 6347, RFC 6655, RFC 4944/6282, IEEE 802.15.4): the DTLS record,
//! and the 802.15.4 / 6LoWPAN / UDP stack under it in one 127-byte frame.

use crate::error::{require, ModelError};
use crate::security::{AuxHeader, SecurityLevel};

// ---------------------------------------------------------------- DTLS records

/// How a suite protects a record; the key exchange does not change the
/// per-datagram overhead, only this does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// AEAD with an explicit 8-byte nonce in 1.2 and a tag of `tag` bytes.
    Aead { tag: usize },
    /// CBC with an explicit IV, HMAC of `mac` bytes, then padding (1.2 only).
    Cbc { mac: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DtlsVersion {
    V1_2,
    V1_3,
}

impl DtlsVersion {
    pub fn from_name(s: &str) -> Result<Self, ModelError> {
        match s {
            "1.2" => Ok(DtlsVersion::V1_2),
            "1.3" => Ok(DtlsVersion::V1_3),
            _ => Err(ModelError::new("version", s, "must be one of 1.2, 1.3")),
        }
    }
}

/// A cipher suite by the name users type, with its record protection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suite {
    pub name: &'static str,
    pub iana: &'static str,
    pub version: DtlsVersion,
    pub protection: Protection,
}

const AES_BLOCK: usize = 16;
const DTLS12_HEADER: usize = 13;
const EXPLICIT_NONCE: usize = 8;

pub const SUITES: &[Suite] = &[
    Suite {
        name: "psk-aes128-ccm8",
        iana: "TLS_PSK_WITH_AES_128_CCM_8",
        version: DtlsVersion::V1_2,
        protection: Protection::Aead { tag: 8 },
    },
    Suite {
        name: "ecdhe-ecdsa-aes128-ccm8",
        iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8",
        version: DtlsVersion::V1_2,
        protection: Protection::Aead { tag: 8 },
    },
    Suite {
        name: "psk-aes128-ccm",
        iana: "TLS_PSK_WITH_AES_128_CCM",
        version: DtlsVersion::V1_2,
        protection: Protection::Aead { tag: 16 },
    },
    Suite {
        name: "psk-aes128-gcm-sha256",
        iana: "TLS_PSK_WITH_AES_128_GCM_SHA256",
        version: DtlsVersion::V1_2,
        protection: Protection::Aead { tag: 16 },
    },
    Suite {
        name: "ecdhe-ecdsa-aes128-gcm-sha256",
        iana: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        version: DtlsVersion::V1_2,
        protection: Protection::Aead { tag: 16 },
    },
    Suite {
        name: "psk-aes128-cbc-sha",
        iana: "TLS_PSK_WITH_AES_128_CBC_SHA",
        version: DtlsVersion::V1_2,
        protection: Protection::Cbc { mac: 20 },
    },
    Suite {
        name: "psk-aes128-cbc-sha256",
        iana: "TLS_PSK_WITH_AES_128_CBC_SHA256",
        version: DtlsVersion::V1_2,
        protection: Protection::Cbc { mac: 32 },
    },
    Suite {
        name: "aes128-ccm8-sha256",
        iana: "TLS_AES_128_CCM_8_SHA256",
        version: DtlsVersion::V1_3,
        protection: Protection::Aead { tag: 8 },
    },
    Suite {
        name: "aes128-ccm-sha256",
        iana: "TLS_AES_128_CCM_SHA256",
        version: DtlsVersion::V1_3,
        protection: Protection::Aead { tag: 16 },
    },
    Suite {
        name: "aes128-gcm-sha256",
        iana: "TLS_AES_128_GCM_SHA256",
        version: DtlsVersion::V1_3,
        protection: Protection::Aead { tag: 16 },
    },
    Suite {
        name: "chacha20-poly1305-sha256",
        iana: "TLS_CHACHA20_POLY1305_SHA256",
        version: DtlsVersion::V1_3,
        protection: Protection::Aead { tag: 16 },
    },
];

pub fn suite(version: DtlsVersion, name: &str) -> Result<&'static Suite, ModelError> {
    SUITES
        .iter()
        .find(|s| s.version == version && (s.name == name || s.iana == name))
        .ok_or_else(|| {
            let names: Vec<_> = SUITES
                .iter()
                .filter(|s| s.version == version)
                .map(|s| s.name)
                .collect();
            ModelError::new(
                "suite",
                name,
                format!("must be one of {}", names.join(", ")),
            )
        })
}

/// DTLS 1.3 unified header options (RFC 9147 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnifiedHeader {
    /// Connection ID length in bytes, 0 for none.
    pub cid_len: usize,
    /// 1 or 2 bytes of (encrypted) sequence number.
    pub seq_len: usize,
    /// Whether the 2-byte length field is present (omitted for the last record of a datagram).
    pub length_present: bool,
    /// Zero bytes of record padding inside the encrypted inner plaintext.
    pub padding: usize,
}

impl Default for UnifiedHeader {
    /// The shortest header: no CID, 8-bit sequence number, no length.
    fn default() -> Self {
        UnifiedHeader {
            cid_len: 0,
            seq_len: 1,
            length_present: false,
            padding: 0,
        }
    }
}

/// The bytes one protected record adds to `plaintext_len` bytes of data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordOverhead {
    pub header: usize,
    /// Explicit nonce (AEAD) or IV (CBC); 0 in DTLS 1.3.
    pub nonce_or_iv: usize,
    /// AEAD tag or HMAC.
    pub tag_or_mac: usize,
    /// CBC padding including its length byte; DTLS 1.3 inner content type + padding.
    pub padding: usize,
}

impl RecordOverhead {
    pub fn total(&self) -> usize {
        self.header + self.nonce_or_iv + self.tag_or_mac + self.padding
    }
}

/// CBC padding (RFC 5246 §6.2.3.2, kept by RFC 6347): data, MAC, padding
/// bytes and the padding-length byte fill whole blocks, with the minimal
/// padding — between 1 and 16 bytes counting the length byte.
pub fn cbc_padding(plaintext_len: usize, mac_len: usize) -> usize {
    AES_BLOCK - (plaintext_len + mac_len) % AES_BLOCK
}

pub fn record_overhead(
    suite: &Suite,
    plaintext_len: usize,
    unified: UnifiedHeader,
) -> Result<RecordOverhead, ModelError> {
    Ok(match (suite.version, suite.protection) {
        (DtlsVersion::V1_2, Protection::Aead { tag }) => RecordOverhead {
            header: DTLS12_HEADER,
            nonce_or_iv: EXPLICIT_NONCE,
            tag_or_mac: tag,
            padding: 0,
        },
        (DtlsVersion::V1_2, Protection::Cbc { mac }) => RecordOverhead {
            header: DTLS12_HEADER,
            nonce_or_iv: AES_BLOCK,
            tag_or_mac: mac,
            padding: cbc_padding(plaintext_len, mac),
        },
        (DtlsVersion::V1_3, Protection::Aead { tag }) => {
            require(
                unified.seq_len == 1 || unified.seq_len == 2,
                "seq_len",
                unified.seq_len,
                "must be 1 or 2",
            )?;
            require(
                unified.cid_len <= 255,
                "cid_len",
                unified.cid_len,
                "must be in [0, 255]",
            )?;
            RecordOverhead {
                header: 1
                    + unified.cid_len
                    + unified.seq_len
                    + if unified.length_present { 2 } else { 0 },
                nonce_or_iv: 0,
                tag_or_mac: tag,
                // The inner plaintext ends with the real content type.
                padding: 1 + unified.padding,
            }
        }
        (DtlsVersion::V1_3, Protection::Cbc { .. }) => {
            return Err(ModelError::new(
                "suite",
                suite.name,
                "DTLS 1.3 has AEAD suites only",
            ))
        }
    })
}

// ------------------------------------------------------ 802.15.4 + 6LoWPAN frame

/// IEEE 802.15.4 addressing of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrMode {
    Short,
    Extended,
}

impl AddrMode {
    pub fn len_bytes(self) -> usize {
        match self {
            AddrMode::Short => 2,
            AddrMode::Extended => 8,
        }
    }

    pub fn from_name(s: &str) -> Result<Self, ModelError> {
        match s {
            "short" => Ok(AddrMode::Short),
            "extended" => Ok(AddrMode::Extended),
            _ => Err(ModelError::new(
                "addressing",
                s,
                "must be short or extended",
            )),
        }
    }
}

/// How 6LoWPAN compresses the IPv6 header (RFC 6282).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Link-local addresses derived from the MAC addresses: IPHC only.
    LinkLocal,
    /// Global addresses from the default context 0 with IIDs derived from the
    /// MAC addresses: IPHC only (a context other than 0 adds a CID byte).
    Context,
    /// Global addresses carried inline (16 + 16 bytes).
    GlobalInline,
    /// No compression: IPv6 dispatch, 40-byte IPv6 header, 8-byte UDP header.
    Uncompressed,
}

impl Compression {
    pub fn from_name(s: &str) -> Result<Self, ModelError> {
        match s {
            "link-local" => Ok(Compression::LinkLocal),
            "context" => Ok(Compression::Context),
            "global-inline" => Ok(Compression::GlobalInline),
            "uncompressed" => Ok(Compression::Uncompressed),
            _ => Err(ModelError::new(
                "compression",
                s,
                "must be one of link-local, context, global-inline, uncompressed",
            )),
        }
    }
}

/// How UDP NHC carries the ports (RFC 6282 §4.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UdpPorts {
    /// Both ports inline: 4 bytes (e.g. an ephemeral port and CoAPs 5684).
    Inline,
    /// One port 0xF0xx in 8 bits, the other inline: 3 bytes.
    OneCompressed,
    /// Both ports in 0xF0B0..0xF0BF, 4 bits each: 1 byte.
    BothNibbles,
}

impl UdpPorts {
    pub fn from_name(s: &str) -> Result<Self, ModelError> {
        match s {
            "inline" => Ok(UdpPorts::Inline),
            "8bit" => Ok(UdpPorts::OneCompressed),
            "4bit" => Ok(UdpPorts::BothNibbles),
            _ => Err(ModelError::new(
                "udp_ports",
                s,
                "must be one of inline, 8bit, 4bit",
            )),
        }
    }
}

/// Everything that decides how much of one 802.15.4 frame is left for data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameConfig {
    /// aMaxPHYPacketSize: MHR + payload + FCS.
    pub max_frame: usize,
    pub dst: AddrMode,
    pub src: AddrMode,
    pub pan_id_compression: bool,
    pub level: SecurityLevel,
    pub aux: AuxHeader,
    pub compression: Compression,
    pub udp_ports: UdpPorts,
    /// The UDP checksum elided (RFC 6282 allows it only when the upper layer
    /// authorises it, e.g. with a DTLS MIC).
    pub udp_checksum_elided: bool,
    /// Hop limit carried inline (a forwarder's decremented value such as 63).
    pub hop_limit_inline: bool,
}

impl Default for FrameConfig {
    /// Short addresses, PAN ID compression, no link security, link-local
    /// compression, UDP ports inline (CoAPs 5684 does not compress).
    fn default() -> Self {
        FrameConfig {
            max_frame: 127,
            dst: AddrMode::Short,
            src: AddrMode::Short,
            pan_id_compression: true,
            level: SecurityLevel::None,
            aux: AuxHeader {
                key_id_mode: 1,
                frame_counter_suppressed: false,
            },
            compression: Compression::LinkLocal,
            udp_ports: UdpPorts::Inline,
            udp_checksum_elided: false,
            hop_limit_inline: false,
        }
    }
}

pub const FCS_LEN: usize = 2;
const FRAG1_LEN: usize = 4;
const FRAGN_LEN: usize = 5;
const IPV6_HEADER: usize = 40;
const UDP_HEADER: usize = 8;

/// Where the 127 bytes of one frame go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameBudget {
    pub mac_header: usize,
    pub aux_security_header: usize,
    pub mic: usize,
    pub fcs: usize,
    /// MAC payload available for 6LoWPAN.
    pub mac_payload: usize,
    pub sixlowpan_ipv6: usize,
    pub udp: usize,
    /// UDP payload that fits without fragmentation.
    pub udp_payload: usize,
}

impl FrameConfig {
    /// FCF (2) + sequence number (1) + destination PAN (2) + addresses, and
    /// the source PAN (2) unless PAN ID compression.
    pub fn mac_header_len(&self) -> usize {
        2 + 1
            + 2
            + self.dst.len_bytes()
            + self.src.len_bytes()
            + if self.pan_id_compression { 0 } else { 2 }
    }

    pub fn aux_len(&self) -> usize {
        if self.level.is_secured() {
            self.aux.len_bytes()
        } else {
            0
        }
    }

    /// Compressed IPv6 header (IPHC) or dispatch + full header.
    pub fn ipv6_header_len(&self) -> usize {
        let hop = usize::from(self.hop_limit_inline);
        match self.compression {
            Compression::LinkLocal => 2 + hop,
            Compression::Context => 2 + hop,
            Compression::GlobalInline => 2 + 16 + 16 + hop,
            Compression::Uncompressed => 1 + IPV6_HEADER,
        }
    }

    pub fn udp_header_len(&self) -> usize {
        if self.compression == Compression::Uncompressed {
            return UDP_HEADER;
        }
        let ports = match self.udp_ports {
            UdpPorts::Inline => 4,
            UdpPorts::OneCompressed => 3,
            UdpPorts::BothNibbles => 1,
        };
        1 + ports + if self.udp_checksum_elided { 0 } else { 2 }
    }

    pub fn budget(&self) -> Result<FrameBudget, ModelError> {
        require(
            (10..=2047).contains(&self.max_frame),
            "max_frame",
            self.max_frame,
            "must be in [10, 2047] (127 for the 2.4 GHz O-QPSK PHY)",
        )?;
        let fixed = self.mac_header_len() + self.aux_len() + self.level.mic_len() + FCS_LEN;
        let upper = self.ipv6_header_len() + self.udp_header_len();
        require(
            fixed + upper <= self.max_frame,
            "max_frame",
            self.max_frame,
            &format!(
                "must hold the {} header bytes of this configuration",
                fixed + upper
            ),
        )?;
        let mac_payload = self.max_frame - fixed;
        Ok(FrameBudget {
            mac_header: self.mac_header_len(),
            aux_security_header: self.aux_len(),
            mic: self.level.mic_len(),
            fcs: FCS_LEN,
            mac_payload,
            sixlowpan_ipv6: self.ipv6_header_len(),
            udp: self.udp_header_len(),
            udp_payload: mac_payload - upper,
        })
    }

    /// Number of 802.15.4 frames for a UDP payload of `udp_payload` bytes:
    /// 1 if it fits, else FRAG1 + FRAGN fragments (RFC 4944 §5.3; offsets in
    /// 8-byte units of the *uncompressed* datagram, RFC 6282 §2).
    pub fn frames_for(&self, udp_payload: usize) -> Result<usize, ModelError> {
        let b = self.budget()?;
        if udp_payload <= b.udp_payload {
            return Ok(1);
        }
        let compressed_headers = b.sixlowpan_ipv6 + b.udp;
        let uncompressed_headers = IPV6_HEADER + UDP_HEADER;
        // FRAG1: compressed headers + data such that the uncompressed length
        // covered so far is a multiple of 8.
        let room1 = b.mac_payload - FRAG1_LEN - compressed_headers.min(b.mac_payload - FRAG1_LEN);
        let covered1 = (uncompressed_headers + room1) / 8 * 8;
        require(
            covered1 > uncompressed_headers,
            "max_frame",
            self.max_frame,
            "leaves no room for data in the first fragment",
        )?;
        let data1 = covered1 - uncompressed_headers;
        let per_fragn = (b.mac_payload - FRAGN_LEN) / 8 * 8;
        require(
            per_fragn > 0,
            "max_frame",
            self.max_frame,
            "leaves no room in a FRAGN",
        )?;
        let rest = udp_payload.saturating_sub(data1);
        Ok(1 + rest.div_ceil(per_fragn))
    }
}

/// What one datagram of `app_len` application bytes costs on the air.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatagramCost {
    pub record: RecordOverhead,
    pub udp_payload: usize,
    pub frames: usize,
}

/// A suite over a frame configuration: per-datagram overhead and the point
/// where 6LoWPAN fragmentation starts. `suite = None` is plain UDP.
pub fn datagram_cost(
    frame: &FrameConfig,
    suite: Option<&Suite>,
    unified: UnifiedHeader,
    app_len: usize,
) -> Result<DatagramCost, ModelError> {
    let record = match suite {
        Some(s) => record_overhead(s, app_len, unified)?,
        None => RecordOverhead::default(),
    };
    let udp_payload = app_len + record.total();
    Ok(DatagramCost {
        record,
        udp_payload,
        frames: frame.frames_for(udp_payload)?,
    })
}

/// The largest application payload that still fits one frame, or None if
/// not even an empty record fits. Fragmentation starts at this value + 1.
pub fn max_unfragmented_app_payload(
    frame: &FrameConfig,
    suite: Option<&Suite>,
    unified: UnifiedHeader,
) -> Result<Option<usize>, ModelError> {
    let room = frame.budget()?.udp_payload;
    // Overhead never shrinks as data grows (CBC padding only fills the last
    // block), so the first payload that does not fit ends the search.
    let mut best = None;
    for n in 0..=room {
        let cost = datagram_cost(frame, suite, unified, n)?;
        if cost.udp_payload > room {
            break;
        }
        best = Some(n);
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v12(name: &str) -> &'static Suite {
        suite(DtlsVersion::V1_2, name).unwrap()
    }

    #[test]
    fn psk_ccm8_adds_29_bytes() {
        // RFC 6347 §4.1 and RFC 6655 §3: 13-byte header + 8-byte explicit nonce + 8-byte tag.
        let o = record_overhead(v12("psk-aes128-ccm8"), 40, UnifiedHeader::default()).unwrap();
        assert_eq!(o.total(), 29);
        let o =
            record_overhead(v12("psk-aes128-gcm-sha256"), 40, UnifiedHeader::default()).unwrap();
        assert_eq!(o.total(), 37);
    }

    #[test]
    fn cbc_sha1_padding_rule_by_hand() {
        let s = v12("psk-aes128-cbc-sha");
        // 0 bytes: 0 + 20 MAC = 20 → next multiple of 16 is 32 → 12 padding.
        assert_eq!(cbc_padding(0, 20), 12);
        // 12 bytes: 32 is already a multiple of 16 → a full block of padding.
        assert_eq!(cbc_padding(12, 20), 16);
        // 11 bytes: 31 → 1 byte (the length byte alone).
        assert_eq!(cbc_padding(11, 20), 1);
        let o = record_overhead(s, 12, UnifiedHeader::default()).unwrap();
        assert_eq!(o.total(), 13 + 16 + 20 + 16);
        let o = record_overhead(s, 11, UnifiedHeader::default()).unwrap();
        assert_eq!(o.total(), 13 + 16 + 20 + 1);
        // SHA-256 MAC: 5 + 32 = 37 → 48 → 11.
        assert_eq!(cbc_padding(5, 32), 11);
    }

    #[test]
    fn dtls13_unified_header() {
        let s = suite(DtlsVersion::V1_3, "aes128-ccm8-sha256").unwrap();
        // 1 (flags) + 1 (seq) + 1 (inner type) + 8 (tag) = 11.
        assert_eq!(
            record_overhead(s, 10, UnifiedHeader::default())
                .unwrap()
                .total(),
            11
        );
        let full = UnifiedHeader {
            cid_len: 4,
            seq_len: 2,
            length_present: true,
            padding: 3,
        };
        // 1 + 4 + 2 + 2 + 1 + 3 + 8 = 21.
        assert_eq!(record_overhead(s, 10, full).unwrap().total(), 21);
        let bad = UnifiedHeader {
            seq_len: 3,
            ..UnifiedHeader::default()
        };
        assert!(record_overhead(s, 10, bad).is_err());
        assert!(suite(DtlsVersion::V1_3, "psk-aes128-cbc-sha").is_err());
    }

    #[test]
    fn frame_budget_by_hand() {
        // Short addresses, PAN ID compression: MHR 9, FCS 2 → 116 MAC payload.
        // IPHC link-local 2 + UDP NHC with inline ports and checksum 7 → 107.
        let f = FrameConfig::default();
        let b = f.budget().unwrap();
        assert_eq!((b.mac_header, b.mac_payload, b.udp_payload), (9, 116, 107));
        // ENC-MIC-32, key-id mode 1 with frame counter: aux 6, MIC 4 → 97 UDP payload.
        let sec = FrameConfig {
            level: SecurityLevel::EncMic32,
            ..f
        };
        assert_eq!(sec.budget().unwrap().udp_payload, 97);
        // Extended addresses without PAN ID compression: MHR 2+1+2+8+2+8 = 23.
        let ext = FrameConfig {
            dst: AddrMode::Extended,
            src: AddrMode::Extended,
            pan_id_compression: false,
            ..f
        };
        assert_eq!(ext.mac_header_len(), 23);
        // Uncompressed: 1 + 40 + 8 = 49 header bytes.
        let raw = FrameConfig {
            compression: Compression::Uncompressed,
            ..f
        };
        assert_eq!(raw.budget().unwrap().udp_payload, 116 - 49);
    }

    #[test]
    fn fragmentation_starts_where_the_frame_is_full() {
        let f = FrameConfig::default();
        // Plain UDP: 107 bytes fit, 108 do not.
        assert_eq!(
            max_unfragmented_app_payload(&f, None, UnifiedHeader::default()).unwrap(),
            Some(107)
        );
        // DTLS 1.2 CCM-8 takes 29 of them.
        let ccm8 = v12("psk-aes128-ccm8");
        assert_eq!(
            max_unfragmented_app_payload(&f, Some(ccm8), UnifiedHeader::default()).unwrap(),
            Some(78)
        );
        // CBC-SHA1: n + 13 + 16 + 20 + pad ≤ 107, with n + 20 + pad a multiple of 16:
        // n + 20 + pad ≤ 78 → 64 → n ≤ 43 (pad 1).
        let cbc = v12("psk-aes128-cbc-sha");
        assert_eq!(
            max_unfragmented_app_payload(&f, Some(cbc), UnifiedHeader::default()).unwrap(),
            Some(43)
        );
        assert_eq!(
            datagram_cost(&f, Some(ccm8), UnifiedHeader::default(), 79)
                .unwrap()
                .frames,
            2
        );
    }

    #[test]
    fn fragment_count_by_hand() {
        // MAC payload 116. FRAG1: 112 bytes after its header, 9 of them compressed
        // headers → 103 free; uncompressed 48 + 103 = 151 → 144 → 96 data bytes.
        // FRAGN: 111 → 104 data bytes each.
        let f = FrameConfig::default();
        assert_eq!(f.frames_for(108).unwrap(), 2);
        assert_eq!(f.frames_for(96 + 104).unwrap(), 2);
        assert_eq!(f.frames_for(96 + 104 + 1).unwrap(), 3);
        assert_eq!(
            f.frames_for(1280 - 48).unwrap(),
            1 + (1232usize - 96).div_ceil(104)
        );
    }

    proptest! {
        #[test]
        fn frames_never_decrease_with_payload(n in 0usize..1500, level in 0u8..8) {
            let f = FrameConfig { level: SecurityLevel::from_value(level).unwrap(), ..FrameConfig::default() };
            prop_assert!(f.frames_for(n + 1).unwrap() >= f.frames_for(n).unwrap());
        }

        #[test]
        fn cbc_padding_fills_whole_blocks(n in 0usize..2000, mac in prop::sample::select(vec![20usize, 32])) {
            let p = cbc_padding(n, mac);
            prop_assert!((1..=16).contains(&p));
            prop_assert_eq!((n + mac + p) % 16, 0);
        }
    }
}
