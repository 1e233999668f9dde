//! Key material is wiped when dropped and never printed by `Debug`.

mod common;

use common::*;
use dtls::accounting::CryptoOps;
use dtls::crypto::CookieGenerator;
use dtls::v12::keys::{key_block, KeyBlock};
use dtls::v12::record::RecordKeys;
use dtls::{AeadKind, Config, Secret};

/// Compiles only for types that wipe their secrets on drop.
fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>() {}

#[test]
fn key_material_is_wiped_on_drop() {
    wiped_on_drop::<Secret>();
    wiped_on_drop::<KeyBlock>();
    wiped_on_drop::<RecordKeys>();
    wiped_on_drop::<CookieGenerator>();
}

/// Every byte of `key` as `Debug` could print it (decimal list or hex).
fn shows(text: &str, key: &[u8]) -> bool {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let list = format!("{key:?}");
    text.to_lowercase().contains(&hex) || text.contains(&list[1..list.len() - 1])
}

#[test]
fn no_key_in_debug_output() {
    let mut ops = CryptoOps::default();
    let ms = Secret(vec![0x5A; 48]);
    let kb = key_block(&ms, &[1; 32], &[2; 32], 0, 4, &mut ops);
    let keys = RecordKeys::new(AeadKind::Ccm8, &kb.client_key, kb.client_iv, &mut ops);
    for (text, key) in [
        (format!("{ms:?}"), &ms.0[..]),
        (format!("{kb:?}"), &kb.client_key[..]),
        (format!("{keys:?}"), &kb.client_key[..]),
    ] {
        assert!(!shows(&text, key), "{text}");
    }
    let mut p = Pair::psk(Config::default(), Config::default(), 9);
    p.handshake();
    for text in [format!("{:?}", p.client), format!("{:?}", p.server)] {
        assert!(!shows(&text, PSK), "{text}");
    }
}
