//! Record-layer parsing: splitting a datagram into records, and opening
//! them with fixed AEAD and CBC keys (must never panic; must round-trip
//! what it parses).
#![no_main]

use dtls::accounting::CryptoOps;
use dtls::config::{AeadKind, MacAlgorithm};
use dtls::record::header::split_datagram;
use dtls::record::{ReplayWindow, RecordKeys};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (records, _) = split_datagram(data);
    let mut ops = CryptoOps::default();
    let ccm = RecordKeys::new(AeadKind::Ccm8, &[1; 16], [2; 4], &mut ops);
    let gcm = RecordKeys::new(AeadKind::Gcm, &[1; 16], [2; 4], &mut ops);
    let cbc_sha = RecordKeys::cbc_receiver(MacAlgorithm::HmacSha1, &[1; 16], &[3; 20]);
    let cbc_sha256 = RecordKeys::cbc_receiver(MacAlgorithm::HmacSha256, &[1; 16], &[3; 32]);
    let mut w = ReplayWindow::new();
    let mut rebuilt = Vec::new();
    for (h, frag) in &records {
        let _ = ccm.open(h, frag, &mut ops);
        let _ = gcm.open(h, frag, &mut ops);
        let _ = cbc_sha.open(h, frag, &mut ops);
        let _ = cbc_sha256.open(h, frag, &mut ops);
        if w.check(h.seq) {
            w.mark(h.seq);
        }
        h.emit(&mut rebuilt);
        rebuilt.extend_from_slice(frag);
    }
    assert!(data.starts_with(&rebuilt));
});
