//! The Constrained Join Protocol's objects (CoJP, RFC 9031 §8): the Join
//! Request a pledge POSTs to the JRC's `/j` resource through the Join Proxy
//! (over OSCORE), and the Configuration object the Join Response carries.
//! Both are CBOR maps keyed by small integers (§8.5 parameter labels).
//!
//! ```text
//! Join_Request   = { ? 1 (role): uint, ? 5 (network identifier): bstr }
//! Configuration  = { ? 2 (link-layer key set): [ + Link_Layer_Key ],
//!                    ? 3 (short identifier): [ identifier: bstr, ? lease time: uint ],
//!                    ? 4 (JRC address): bstr, ? 6 (network prefix): bstr,
//!                    ? 7 (join rate): float,
//!                    ? 8 (unsupported configuration): [ + parameter labels ] }
//! Link_Layer_Key = ( key_id: uint, ? key_usage: int, key_value: bstr, ? key_addinfo: bstr )
//! ```
//!
//! The labels, the role values (6TiSCH node 0, 6LBR 1) and the key-usage
//! default (0, 6TiSCH-K1K2-ENC-MIC32: the same key for EBs and data,
//! ENC-MIC-32) are RFC 9031 §8.4-§8.5 as recalled, not re-read here. So is
//! the join rate (7): the average bytes per second of join traffic a node
//! acting as a Join Proxy may forward into the network, a CBOR float
//! (major type 7), 0 turning the proxy off and its absence meaning no
//! limit (positive infinity). key_addinfo is not modelled: it is rejected,
//! and a label this decoder does not know is reported in
//! [`Configuration::unsupported`] (the pledge then answers per §8.4.5).
//!
//! CBOR is read and written by ciborium's [`Value`]; ciborium writes the
//! shortest form of every integer and length (RFC 8949 §4.2.1's
//! preferred serialisation), and keeps a map's entries in the order given.

use ciborium::value::{Integer, Value};
use core::fmt;

/// Parameter labels (RFC 9031 §8.5).
pub mod label {
    /// role of the pledge
    pub const ROLE: i64 = 1;
    /// link-layer key set
    pub const LINK_LAYER_KEY_SET: i64 = 2;
    /// short identifier
    pub const SHORT_IDENTIFIER: i64 = 3;
    /// JRC address
    pub const JRC_ADDRESS: i64 = 4;
    /// network identifier
    pub const NETWORK_IDENTIFIER: i64 = 5;
    /// network prefix
    pub const NETWORK_PREFIX: i64 = 6;
    /// join rate
    pub const JOIN_RATE: i64 = 7;
    /// unsupported configuration
    pub const UNSUPPORTED_CONFIGURATION: i64 = 8;
}

/// Role values (RFC 9031 §8.4.1).
pub mod role {
    /// a 6TiSCH node
    pub const NODE: u64 = 0;
    /// a 6LoWPAN border router
    pub const SIX_LBR: u64 = 1;
}

/// Why a CoJP object was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CojpError {
    /// not well-formed CBOR, or bytes after the object
    Cbor(String),
    /// not a map
    NotAMap,
    /// a key that is not an integer, or appears twice
    BadKey(String),
    /// a parameter whose value has the wrong type or range
    BadValue {
        /// the parameter label
        label: i64,
        /// what was expected
        expected: &'static str,
    },
}

impl fmt::Display for CojpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CojpError::Cbor(e) => write!(f, "CoJP object is not one CBOR item: {e}"),
            CojpError::NotAMap => write!(f, "CoJP object is not a CBOR map"),
            CojpError::BadKey(k) => write!(f, "CoJP map key {k} is not a unique integer label"),
            CojpError::BadValue { label, expected } => {
                write!(f, "CoJP parameter {label}: expected {expected}")
            }
        }
    }
}

impl std::error::Error for CojpError {}

type Result<T> = core::result::Result<T, CojpError>;

fn decode_map(bytes: &[u8]) -> Result<Vec<(i64, Value)>> {
    let mut rest = bytes;
    let v: Value = ciborium::from_reader(&mut rest).map_err(|e| CojpError::Cbor(format!("{e}")))?;
    if !rest.is_empty() {
        return Err(CojpError::Cbor(format!(
            "{} bytes after the object",
            rest.len()
        )));
    }
    let Value::Map(entries) = v else {
        return Err(CojpError::NotAMap);
    };
    let mut out: Vec<(i64, Value)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = k
            .as_integer()
            .and_then(|i| i64::try_from(i).ok())
            .ok_or_else(|| CojpError::BadKey(format!("{k:?}")))?;
        if out.iter().any(|(l, _)| *l == key) {
            return Err(CojpError::BadKey(format!("{key} (twice)")));
        }
        out.push((key, v));
    }
    Ok(out)
}

fn encode(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    // writing into a Vec cannot fail
    ciborium::into_writer(v, &mut out).expect("CBOR into a Vec");
    out
}

fn uint(label: i64, v: &Value) -> Result<u64> {
    v.as_integer()
        .and_then(|i| u64::try_from(i).ok())
        .ok_or(CojpError::BadValue {
            label,
            expected: "an unsigned integer",
        })
}

fn bytes(label: i64, v: &Value) -> Result<Vec<u8>> {
    v.as_bytes().cloned().ok_or(CojpError::BadValue {
        label,
        expected: "a byte string",
    })
}

fn int(v: u64) -> Value {
    Value::Integer(Integer::from(v))
}

/// The Join Request (RFC 9031 §8.2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JoinRequest {
    /// role (absent: 6TiSCH node)
    pub role: Option<u64>,
    /// network identifier (e.g. the PAN ID) the pledge asks to join
    pub network_id: Option<Vec<u8>>,
}

impl JoinRequest {
    /// Encode as a CBOR map.
    pub fn to_cbor(&self) -> Vec<u8> {
        let mut m = Vec::new();
        if let Some(r) = self.role {
            m.push((int(label::ROLE as u64), int(r)));
        }
        if let Some(n) = &self.network_id {
            m.push((
                int(label::NETWORK_IDENTIFIER as u64),
                Value::Bytes(n.clone()),
            ));
        }
        encode(&Value::Map(m))
    }

    /// Decode; unknown labels are ignored (§8.2: the JRC uses what it knows).
    pub fn from_cbor(b: &[u8]) -> Result<JoinRequest> {
        let mut r = JoinRequest::default();
        for (l, v) in decode_map(b)? {
            match l {
                label::ROLE => r.role = Some(uint(l, &v)?),
                label::NETWORK_IDENTIFIER => r.network_id = Some(bytes(l, &v)?),
                _ => {}
            }
        }
        Ok(r)
    }
}

/// One link-layer key of the key set (RFC 9031 §8.4.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkLayerKey {
    /// key index (0..=255)
    pub key_id: u8,
    /// key usage (absent: the default, 0)
    pub key_usage: Option<i64>,
    /// the key (16 bytes for AES-CCM*-128)
    pub key_value: Vec<u8>,
}

/// A short identifier (RFC 9031 §8.4.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortIdentifier {
    /// the 2-byte 802.15.4 short address
    pub identifier: Vec<u8>,
    /// lease time in hours (absent: unlimited)
    pub lease_time: Option<u64>,
}

/// The Configuration object of a Join Response (RFC 9031 §8.2.2, §8.4).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Configuration {
    /// link-layer keys
    pub keys: Option<Vec<LinkLayerKey>>,
    /// short address assigned
    pub short_id: Option<ShortIdentifier>,
    /// JRC's IPv6 address (absent: the DODAG root's)
    pub jrc_address: Option<Vec<u8>>,
    /// network prefix
    pub network_prefix: Option<Vec<u8>>,
    /// join rate: bytes per second a Join Proxy may forward (absent: no
    /// limit); finite and not negative, or positive infinity
    pub join_rate: Option<f64>,
    /// parameters the sender did not support (label 8), or, on receipt,
    /// labels this decoder does not model
    pub unsupported: Vec<i64>,
}

impl Configuration {
    /// Encode as a CBOR map (labels in increasing order).
    pub fn to_cbor(&self) -> Vec<u8> {
        let mut m = Vec::new();
        if let Some(keys) = &self.keys {
            let mut a = Vec::new();
            for k in keys {
                a.push(int(u64::from(k.key_id)));
                if let Some(u) = k.key_usage {
                    a.push(Value::Integer(Integer::from(u)));
                }
                a.push(Value::Bytes(k.key_value.clone()));
            }
            m.push((int(label::LINK_LAYER_KEY_SET as u64), Value::Array(a)));
        }
        if let Some(s) = &self.short_id {
            let mut a = vec![Value::Bytes(s.identifier.clone())];
            if let Some(t) = s.lease_time {
                a.push(int(t));
            }
            m.push((int(label::SHORT_IDENTIFIER as u64), Value::Array(a)));
        }
        if let Some(j) = &self.jrc_address {
            m.push((int(label::JRC_ADDRESS as u64), Value::Bytes(j.clone())));
        }
        if let Some(p) = &self.network_prefix {
            m.push((int(label::NETWORK_PREFIX as u64), Value::Bytes(p.clone())));
        }
        if let Some(r) = self.join_rate {
            // ciborium writes the shortest float that keeps the value
            m.push((int(label::JOIN_RATE as u64), Value::Float(r)));
        }
        if !self.unsupported.is_empty() {
            let a = self
                .unsupported
                .iter()
                .map(|&l| Value::Integer(Integer::from(l)))
                .collect();
            m.push((
                int(label::UNSUPPORTED_CONFIGURATION as u64),
                Value::Array(a),
            ));
        }
        encode(&Value::Map(m))
    }

    /// Decode.
    pub fn from_cbor(b: &[u8]) -> Result<Configuration> {
        let mut c = Configuration::default();
        for (l, v) in decode_map(b)? {
            match l {
                label::LINK_LAYER_KEY_SET => c.keys = Some(parse_keys(&v)?),
                label::SHORT_IDENTIFIER => {
                    let bad = CojpError::BadValue {
                        label: l,
                        expected: "[identifier: bstr, ? lease time: uint]",
                    };
                    let a = v.as_array().ok_or(bad.clone())?;
                    let (id, lease) = match a.as_slice() {
                        [id] => (id, None),
                        [id, t] => (id, Some(uint(l, t)?)),
                        _ => return Err(bad),
                    };
                    c.short_id = Some(ShortIdentifier {
                        identifier: bytes(l, id)?,
                        lease_time: lease,
                    });
                }
                label::JRC_ADDRESS => c.jrc_address = Some(bytes(l, &v)?),
                label::NETWORK_PREFIX => c.network_prefix = Some(bytes(l, &v)?),
                label::JOIN_RATE => {
                    let r = v.as_float().filter(|r| *r >= 0.0);
                    c.join_rate = Some(r.ok_or(CojpError::BadValue {
                        label: l,
                        expected: "a float, not negative (bytes per second)",
                    })?);
                }
                label::UNSUPPORTED_CONFIGURATION => {
                    let bad = CojpError::BadValue {
                        label: l,
                        expected: "an array of integer labels",
                    };
                    for x in v.as_array().ok_or(bad.clone())? {
                        let i = x
                            .as_integer()
                            .and_then(|i| i64::try_from(i).ok())
                            .ok_or(bad.clone())?;
                        c.unsupported.push(i);
                    }
                }
                other => c.unsupported.push(other),
            }
        }
        Ok(c)
    }
}

/// The flattened key array: key_id, optional key_usage (an integer right
/// after the id), key_value (a byte string).
fn parse_keys(v: &Value) -> Result<Vec<LinkLayerKey>> {
    let l = label::LINK_LAYER_KEY_SET;
    let bad = |expected| CojpError::BadValue { label: l, expected };
    let a = v.as_array().ok_or(bad("an array"))?;
    let mut out = Vec::new();
    let mut it = a.iter().peekable();
    while let Some(id) = it.next() {
        let key_id = u8::try_from(uint(l, id)?).map_err(|_| bad("key_id 0..=255"))?;
        let key_usage = match it.peek() {
            Some(Value::Integer(u)) => {
                let u = i64::try_from(*u).map_err(|_| bad("a key_usage integer"))?;
                it.next();
                Some(u)
            }
            _ => None,
        };
        let key_value = match it.next() {
            Some(Value::Bytes(k)) => k.clone(),
            _ => return Err(bad("key_value, a byte string, after key_id")),
        };
        if matches!(it.peek(), Some(Value::Bytes(_))) {
            return Err(bad("no key_addinfo (not modelled)"));
        }
        out.push(LinkLayerKey {
            key_id,
            key_usage,
            key_value,
        });
    }
    if out.is_empty() {
        return Err(bad("at least one key"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_request_bytes() {
        // map(2) = a2; 1 -> 01, role 0 -> 00; 5 -> 05, bstr(2) = 42 ab cd
        let r = JoinRequest {
            role: Some(role::NODE),
            network_id: Some(vec![0xab, 0xcd]),
        };
        let b = r.to_cbor();
        assert_eq!(b, [0xa2, 0x01, 0x00, 0x05, 0x42, 0xab, 0xcd]);
        assert_eq!(JoinRequest::from_cbor(&b), Ok(r));
        // the empty request is the empty map a0
        assert_eq!(JoinRequest::default().to_cbor(), [0xa0]);
    }

    #[test]
    fn configuration_bytes() {
        let key: Vec<u8> = (0u8..16).collect();
        let c = Configuration {
            keys: Some(vec![LinkLayerKey {
                key_id: 1,
                key_usage: None,
                key_value: key.clone(),
            }]),
            short_id: Some(ShortIdentifier {
                identifier: vec![0x00, 0x01],
                lease_time: None,
            }),
            ..Configuration::default()
        };
        let b = c.to_cbor();
        // a2 | 02 82 01 50 <16 key bytes> | 03 81 42 00 01:
        // 1 + (1 + 1 + 1 + 1 + 16) + (1 + 1 + 1 + 2) = 26 bytes
        let mut want = vec![0xa2, 0x02, 0x82, 0x01, 0x50];
        want.extend_from_slice(&key);
        want.extend_from_slice(&[0x03, 0x81, 0x42, 0x00, 0x01]);
        assert_eq!(b, want);
        assert_eq!(b.len(), 26);
        assert_eq!(Configuration::from_cbor(&b), Ok(c.clone()));
        // with a join rate of 16 bytes/s: a3 and 07 f9 4c 00 after the
        // short identifier (16.0 as a half float: exponent 4 + 15 = 19,
        // 0 10011 0000000000), 4 bytes more; no limit is +inf, f9 7c 00
        let rated = Configuration {
            join_rate: Some(16.0),
            ..c.clone()
        };
        let b3 = rated.to_cbor();
        assert_eq!(b3.len(), 30);
        assert_eq!(b3[0], 0xa3);
        assert_eq!(&b3[1..26], &b[1..]);
        assert_eq!(&b3[26..], &[0x07, 0xf9, 0x4c, 0x00]);
        assert_eq!(Configuration::from_cbor(&b3), Ok(rated));
        let open = Configuration {
            join_rate: Some(f64::INFINITY),
            ..Configuration::default()
        };
        assert_eq!(open.to_cbor(), [0xa1, 0x07, 0xf9, 0x7c, 0x00]);
        // with a key usage and a lease time: 02 83 01 00 50 .. and 03 82 42 00 01 18 18
        let c2 = Configuration {
            keys: Some(vec![LinkLayerKey {
                key_id: 1,
                key_usage: Some(0),
                key_value: key,
            }]),
            short_id: Some(ShortIdentifier {
                identifier: vec![0x00, 0x01],
                lease_time: Some(24),
            }),
            ..Configuration::default()
        };
        let b2 = c2.to_cbor();
        assert_eq!(&b2[..5], &[0xa2, 0x02, 0x83, 0x01, 0x00]);
        assert_eq!(
            &b2[b2.len() - 7..],
            &[0x03, 0x82, 0x42, 0x00, 0x01, 0x18, 0x18]
        );
        assert_eq!(Configuration::from_cbor(&b2), Ok(c2));
    }

    #[test]
    fn malformed_objects_are_errors() {
        // truncated, trailing bytes, not a map, text key, duplicate key
        assert!(matches!(
            JoinRequest::from_cbor(&[0xa1, 0x01]),
            Err(CojpError::Cbor(_))
        ));
        assert!(matches!(
            JoinRequest::from_cbor(&[0xa0, 0x00]),
            Err(CojpError::Cbor(_))
        ));
        assert_eq!(JoinRequest::from_cbor(&[0x80]), Err(CojpError::NotAMap));
        assert!(matches!(
            JoinRequest::from_cbor(&[0xa1, 0x61, 0x61, 0x00]),
            Err(CojpError::BadKey(_))
        ));
        assert!(matches!(
            JoinRequest::from_cbor(&[0xa2, 0x01, 0x00, 0x01, 0x00]),
            Err(CojpError::BadKey(_))
        ));
        // role as a byte string, key set without a key value
        assert_eq!(
            JoinRequest::from_cbor(&[0xa1, 0x01, 0x40]),
            Err(CojpError::BadValue {
                label: 1,
                expected: "an unsigned integer"
            })
        );
        assert!(Configuration::from_cbor(&[0xa1, 0x02, 0x81, 0x01]).is_err());
        assert!(Configuration::from_cbor(&[0xa1, 0x02, 0x80]).is_err());
        // an unknown label (9) is reported, not fatal
        let c = Configuration::from_cbor(&[0xa1, 0x09, 0x01]).unwrap();
        assert_eq!(c.unsupported, vec![9]);
        // a join rate that is not a float, or is negative or NaN
        for bad in [
            &[0xa1, 0x07, 0x01][..],
            &[0xa1, 0x07, 0xf9, 0xbc, 0x00],
            &[0xa1, 0x07, 0xf9, 0x7e, 0x00],
        ] {
            assert_eq!(
                Configuration::from_cbor(bad),
                Err(CojpError::BadValue {
                    label: label::JOIN_RATE,
                    expected: "a float, not negative (bytes per second)"
                })
            );
        }
    }
}
