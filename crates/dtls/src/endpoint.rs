//! What server endpoints of both versions share: the datagram they hand
//! out and the connection IDs they issue.

use std::collections::HashMap;
use std::net::SocketAddr;

use rand_core::CryptoRng;

/// A datagram to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Destination.
    pub destination: SocketAddr,
    /// UDP payload.
    pub payload: Vec<u8>,
}

/// A random CID of `len` bytes (`None`: the server uses no CIDs) that no
/// session in `in_use` holds. With `len` 0 every session shares the empty
/// CID: nothing is routed by CID, the address is used.
pub(crate) fn fresh_cid<R: CryptoRng + ?Sized, V>(
    rng: &mut R,
    len: Option<usize>,
    in_use: &HashMap<Vec<u8>, V>,
) -> Option<Vec<u8>> {
    let n = len?;
    loop {
        let mut cid = vec![0u8; n];
        rng.fill_bytes(&mut cid);
        if n == 0 || !in_use.contains_key(&cid) {
            return Some(cid);
        }
    }
}
