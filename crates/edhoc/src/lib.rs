//! EDHOC (RFC 9528) as two sans-IO parties, an [`Initiator`] and a
//! [`Responder`], built on the `lakers` crate (the OpenWSN group's EDHOC
//! implementation): bytes in, bytes out, no clock, no socket. Each party
//! counts the cryptographic operations lakers asked of its backend
//! ([`ops::Ops`]), for the simulator to charge at the platform's cost.
//!
//! What lakers 0.8 implements, and so what runs here: method 3 (static DH
//! keys on both sides, RFC 9528 section 3.2) with cipher suite 2
//! (AES-CCM-16-64-128, SHA-256, MAC length 8, P-256, ES256; RFC 9528
//! section 3.6). Method 0 (signatures) and cipher suite 0 (X25519,
//! EdDSA) are not in lakers ([`Method::Signature`] and [`Suite::X25519`]
//! say so instead of running). Credentials are CWT Claims Sets (RFC 8392)
//! sent by reference (a kid) or by value.

pub mod ops;

use std::cell::Cell;
use std::rc::Rc;

use lakers::{
    ConnId, Credential, EDHOCMethod, EDHOCSuite, EdhocInitiator, EdhocInitiatorWaitM2,
    EdhocMessageBuffer, EdhocResponder, EdhocResponderWaitM3,
};
use lakers_crypto_rustcrypto::Crypto as RustCrypto;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use ops::Ops;

type Backend = ops::Counted<RustCrypto<ChaCha8Rng>>;

/// The static DH key pairs and CCS credentials of RFC 9529 section 3
/// (trace 2: method 3, cipher suite 2), as lakers' own tests carry them.
mod trace2 {
    /// Initiator's private key I.
    pub const I: [u8; 32] =
        hex32("fb13adeb6518cee5f88417660841142e830a81fe334380a953406a1305e8706b");
    /// Responder's private key R.
    pub const R: [u8; 32] =
        hex32("72cc4761dbd4c78f758931aa589d348d1ef874a7e303ede2f140dcf3e6aa4aac");
    /// CRED_I: a CCS with subject "42-50-31-FF-EF-37-32-39", kid h'2b'.
    pub const CRED_I: &str = "A2027734322D35302D33312D46462D45462D33372D33322D333908A101A5010202412B2001215820AC75E9ECE3E50BFC8ED60399889522405C47BF16DF96660A41298CB4307F7EB62258206E5DE611388A4B8A8211334AC7D37ECB52A387D257E6DB3C2A93DF21FF3AFFC8";
    /// CRED_R: a CCS with an empty subject and a one-byte kid.
    pub const CRED_R: &str = "A2026008A101A5010202410A2001215820BBC34960526EA4D32E940CAD2A234148DDC21791A12AFBCBAC93622046DD44F02258204519E257236B2A0CE2023F0931F1F386CA7AFDA64FCDE0108C224C51EABF6072";

    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not a hex digit"),
        }
    }

    const fn hex32(s: &str) -> [u8; 32] {
        let b = s.as_bytes();
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            out[i] = nibble(b[2 * i]) << 4 | nibble(b[2 * i + 1]);
            i += 1;
        }
        out
    }

    pub fn bytes(s: &str) -> Vec<u8> {
        let b = s.as_bytes();
        (0..b.len() / 2)
            .map(|i| nibble(b[2 * i]) << 4 | nibble(b[2 * i + 1]))
            .collect()
    }
}

/// How the parties authenticate (RFC 9528 section 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// Method 3: static DH keys on both sides.
    #[default]
    StaticDh,
    /// Method 0: signature keys on both sides. Not in lakers 0.8.
    Signature,
}

/// The cipher suite (RFC 9528 section 3.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Suite {
    /// Suite 2: AES-CCM-16-64-128, SHA-256, 8, P-256, ES256.
    #[default]
    P256,
    /// Suite 0: AES-CCM-16-64-128, SHA-256, 8, X25519, EdDSA. Not in lakers 0.8.
    X25519,
}

/// How ID_CRED_x names the credential (RFC 9528 section 3.5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Credentials {
    /// By reference: a kid (the peer holds the credential).
    #[default]
    ByReference,
    /// By value: the whole CCS travels in the message.
    ByValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Config {
    pub method: Method,
    pub suite: Suite,
    pub credentials: Credentials,
}

impl Config {
    /// Whether lakers runs this configuration; why not otherwise.
    pub fn supported(&self) -> Result<(), &'static str> {
        if self.method == Method::Signature {
            return Err("lakers 0.8 implements method 3 (static DH) only");
        }
        if self.suite == Suite::X25519 {
            return Err("lakers 0.8 implements cipher suite 2 (P-256) only");
        }
        Ok(())
    }

    fn transfer(&self) -> lakers::CredentialTransfer {
        match self.credentials {
            Credentials::ByReference => lakers::CredentialTransfer::ByReference,
            Credentials::ByValue => lakers::CredentialTransfer::ByValue,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The configuration is one lakers does not implement.
    Unsupported(&'static str),
    /// lakers refused the message (malformed, wrong MAC, unknown credential).
    Refused(String),
    /// A message longer than lakers' buffers.
    TooLong(usize),
    /// A message the party does not expect in its state.
    Unexpected,
    /// A message that does not decode: refused before lakers sees it, or
    /// one lakers panicked on (contained here, see [`contained`]).
    Malformed(String),
}

/// Run a step of lakers, turning a panic inside it into
/// [`Error::Malformed`]: lakers 0.8 panics on some malformed messages (a
/// message_3 shorter than its tag overflows a subtraction in
/// `aes_ccm_decrypt_tag_8`; a CBOR length past the message's end makes
/// `r_parse_message_3` slice out of range), and a peer's bytes must never
/// bring down the party that reads them. The party's state was consumed
/// by the step: it is spent, as after any refused message.
fn contained<T>(step: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step)).unwrap_or_else(|p| {
        let why = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Error::Malformed(format!("lakers panicked: {why}")))
    })
}

/// The checks lakers 0.8 skips on message_3 (RFC 9528 section 5.4.2: a
/// CBOR byte string, CIPHERTEXT_3, which ends in an 8-byte tag with
/// cipher suite 2): its header and length must match the bytes there, and
/// it must be longer than the tag.
fn check_message_3(m: &[u8]) -> Result<(), Error> {
    const TAG: usize = 8;
    let malformed = |why: &str| Err(Error::Malformed(format!("message_3: {why}")));
    let Some(&first) = m.first() else {
        return malformed("empty");
    };
    if first >> 5 != 2 {
        return malformed("not a CBOR byte string");
    }
    let (len, header) = match first & 0x1f {
        n @ 0..=23 => (usize::from(n), 1),
        24 => match m.get(1) {
            Some(&n) => (usize::from(n), 2),
            None => return malformed("its length is cut off"),
        },
        25 => match m.get(1..3) {
            Some(b) => (usize::from(u16::from_be_bytes([b[0], b[1]])), 3),
            None => return malformed("its length is cut off"),
        },
        _ => return malformed("a length lakers' buffers cannot hold"),
    };
    if m.len() != header + len {
        return malformed("its CBOR length is not the bytes there");
    }
    if len <= TAG {
        return malformed("shorter than its tag");
    }
    Ok(())
}

fn buffer(message: &[u8]) -> Result<EdhocMessageBuffer, Error> {
    EdhocMessageBuffer::new_from_slice(message).map_err(|_| Error::TooLong(message.len()))
}

fn refused(e: lakers::EDHOCError) -> Error {
    Error::Refused(format!("{e:?}"))
}

fn credential(ccs: &str) -> Credential {
    Credential::parse_ccs(&trace2::bytes(ccs)).expect("the RFC 9529 credentials parse")
}

fn backend(seed: u64, ops: &Rc<Cell<Ops>>) -> Backend {
    ops::Counted::new(
        RustCrypto::new(ChaCha8Rng::seed_from_u64(seed)),
        ops.clone(),
    )
}

enum InitiatorState {
    Start(Box<EdhocInitiator<Backend>>),
    WaitM2(Box<EdhocInitiatorWaitM2<Backend>>),
    Done,
    Spent,
}

/// The party that sends message_1 and message_3 (the CoAP client).
pub struct Initiator {
    state: InitiatorState,
    config: Config,
    ops: Rc<Cell<Ops>>,
}

impl Initiator {
    /// A fresh initiator; its ephemeral key and C_I come from `seed`.
    pub fn new(config: Config, seed: u64) -> Result<Self, Error> {
        config.supported().map_err(Error::Unsupported)?;
        let ops = Rc::new(Cell::new(Ops::default()));
        let mut party = EdhocInitiator::new(
            backend(seed, &ops),
            EDHOCMethod::StatStat,
            EDHOCSuite::CipherSuite2,
        );
        party.set_identity(trace2::I, credential(trace2::CRED_I));
        Ok(Initiator {
            state: InitiatorState::Start(Box::new(party)),
            config,
            ops,
        })
    }

    pub fn ops(&self) -> Ops {
        self.ops.get()
    }

    /// message_1 (RFC 9528 section 5.2).
    pub fn message_1(&mut self) -> Result<Vec<u8>, Error> {
        let InitiatorState::Start(party) =
            std::mem::replace(&mut self.state, InitiatorState::Spent)
        else {
            return Err(Error::Unexpected);
        };
        let (party, m1) = party.prepare_message_1(None, &None).map_err(refused)?;
        self.state = InitiatorState::WaitM2(Box::new(party));
        Ok(m1.as_slice().to_vec())
    }

    /// Process message_2; on success message_3 (RFC 9528 section 5.4) and
    /// the responder's connection identifier C_R, CBOR-encoded (the prefix
    /// of the CoAP request that carries message_3, RFC 9528 appendix A.2).
    /// lakers consumes its state: after a refused message_2 the initiator
    /// is spent (the handshake has failed), as RFC 9528 section 6 has it.
    pub fn handle_message_2(&mut self, message_2: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Error> {
        if !matches!(self.state, InitiatorState::WaitM2(_)) {
            return Err(Error::Unexpected);
        }
        let m2 = buffer(message_2)?;
        let InitiatorState::WaitM2(party) =
            std::mem::replace(&mut self.state, InitiatorState::Spent)
        else {
            unreachable!("matched above")
        };
        let transfer = self.config.transfer();
        let (m3, c_r) = contained(move || {
            let (processing, c_r, _id_cred_r, _ead_2) =
                party.parse_message_2(&m2).map_err(refused)?;
            let processed = processing
                .verify_message_2(credential(trace2::CRED_R))
                .map_err(refused)?;
            let (_, m3, _prk_out) = processed
                .prepare_message_3(transfer, &None)
                .map_err(refused)?;
            Ok((m3, c_r))
        })?;
        self.state = InitiatorState::Done;
        Ok((m3.as_slice().to_vec(), c_r.as_cbor().to_vec()))
    }

    /// Whether message_3 has been made (the initiator's keys are ready).
    pub fn is_done(&self) -> bool {
        matches!(self.state, InitiatorState::Done)
    }
}

enum ResponderState {
    Start(Box<EdhocResponder<Backend>>),
    WaitM3(Box<EdhocResponderWaitM3<Backend>>),
    Done,
    Spent,
}

/// The party that answers message_1 with message_2 (the CoAP server).
pub struct Responder {
    state: ResponderState,
    config: Config,
    ops: Rc<Cell<Ops>>,
}

impl Responder {
    /// A fresh responder; its ephemeral key and C_R come from `seed`.
    pub fn new(config: Config, seed: u64) -> Result<Self, Error> {
        config.supported().map_err(Error::Unsupported)?;
        let ops = Rc::new(Cell::new(Ops::default()));
        let party = EdhocResponder::new(
            backend(seed, &ops),
            EDHOCMethod::StatStat,
            trace2::R,
            credential(trace2::CRED_R),
        );
        Ok(Responder {
            state: ResponderState::Start(Box::new(party)),
            config,
            ops,
        })
    }

    pub fn ops(&self) -> Ops {
        self.ops.get()
    }

    /// Process message_1; on success message_2 (RFC 9528 section 5.3),
    /// with a connection identifier C_R lakers draws.
    pub fn handle_message_1(&mut self, message_1: &[u8]) -> Result<Vec<u8>, Error> {
        self.answer_message_1(message_1, None)
    }

    /// As [`Responder::handle_message_1`], with the C_R the caller chose
    /// (`c_r`: the identifier's bytes, RFC 9528 section 3.3.2: one byte of
    /// -24..=23's CBOR encoding is that integer, anything else a byte
    /// string), so that it can keep its C_Rs distinct.
    pub fn handle_message_1_as(&mut self, message_1: &[u8], c_r: &[u8]) -> Result<Vec<u8>, Error> {
        let c_r = ConnId::from_slice(c_r)
            .ok_or_else(|| Error::Malformed(format!("C_R of {} bytes", c_r.len())))?;
        self.answer_message_1(message_1, Some(c_r))
    }

    fn answer_message_1(
        &mut self,
        message_1: &[u8],
        c_r: Option<ConnId>,
    ) -> Result<Vec<u8>, Error> {
        if !matches!(self.state, ResponderState::Start(_)) {
            return Err(Error::Unexpected);
        }
        let m1 = buffer(message_1)?;
        let ResponderState::Start(party) =
            std::mem::replace(&mut self.state, ResponderState::Spent)
        else {
            unreachable!("matched above")
        };
        let transfer = self.config.transfer();
        let (party, m2) = contained(move || {
            let (processed, _c_i, _ead_1) = party.process_message_1(&m1).map_err(refused)?;
            processed
                .prepare_message_2(transfer, c_r, &None)
                .map_err(refused)
        })?;
        self.state = ResponderState::WaitM3(Box::new(party));
        Ok(m2.as_slice().to_vec())
    }

    /// Process message_3 (RFC 9528 section 5.4); the handshake is over for
    /// the responder when it is accepted (no message_4).
    pub fn handle_message_3(&mut self, message_3: &[u8]) -> Result<(), Error> {
        if !matches!(self.state, ResponderState::WaitM3(_)) {
            return Err(Error::Unexpected);
        }
        let m3 = buffer(message_3)?;
        check_message_3(message_3)?;
        let ResponderState::WaitM3(party) =
            std::mem::replace(&mut self.state, ResponderState::Spent)
        else {
            unreachable!("matched above")
        };
        contained(move || {
            let (processing, _id_cred_i, _ead_3) = party.parse_message_3(&m3).map_err(refused)?;
            let (processed, _prk_out) = processing
                .verify_message_3(credential(trace2::CRED_I))
                .map_err(refused)?;
            processed.completed_without_message_4().map_err(refused)
        })?;
        self.state = ResponderState::Done;
        Ok(())
    }

    pub fn is_done(&self) -> bool {
        matches!(self.state, ResponderState::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_lakers_is_a_malformed_message() {
        let r: Result<(), Error> = contained(|| panic!("index out of range"));
        assert_eq!(
            r,
            Err(Error::Malformed(
                "lakers panicked: index out of range".into()
            ))
        );
    }
}
