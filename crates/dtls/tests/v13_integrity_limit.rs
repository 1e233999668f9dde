//! The AEAD integrity limit of DTLS 1.3 (RFC 9147 §4.5.3): records that
//! fail authentication are counted per key; at half the limit a side asks
//! for a key update (update_requested), at the limit on the newest keys it
//! closes the connection, and an older epoch's keys at the limit are
//! dropped instead. TLS_AES_128_CCM_8_SHA256's limit is 2^7 (RFC 9147
//! Appendix B.3). Forgeries here are the client's own records with one bit
//! of their tag flipped, so each has its own record number.

mod common13;

use common13::{deliver, settle};

use dtls::error::v13::RecordError;
use dtls::v13::config::Config13;
use dtls::v13::connection::Connection13;
use dtls::v13::suite::CipherSuite13;
use dtls::{Error, Event, Session};

/// `n` records of the client, each with the last byte of its tag flipped.
fn forgeries(cli: &mut Connection13, n: usize, now: u64) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            // 32 bytes: the ciphertext is longer than the 16-byte sample
            // the record number mask is computed from (RFC 9147 §4.2.3)
            cli.send(&[7; 32]).unwrap();
            let mut d = cli.poll_transmit(now).unwrap();
            *d.last_mut().unwrap() ^= 1;
            d
        })
        .collect()
}

fn pair() -> (Connection13, Connection13) {
    let (mut cli, mut srv, _) = common13::handshake(Config13::default(), Config13::default());
    settle(&mut cli, &mut srv, 1);
    assert_eq!(srv.cipher_suite(), Some(CipherSuite13::Aes128Ccm8Sha256));
    (cli, srv)
}

fn failure(c: &mut Connection13) -> Option<Error> {
    std::iter::from_fn(|| c.poll_event()).find_map(|e| match e {
        Event::Failed(e) => Some(e),
        _ => None,
    })
}

#[test]
fn ccm8_limit_is_2_to_the_7() {
    assert_eq!(CipherSuite13::Aes128Ccm8Sha256.integrity_limit(), 128);
    assert_eq!(CipherSuite13::Aes128GcmSha256.integrity_limit(), 1 << 36);
}

#[test]
fn half_the_limit_asks_for_a_key_update() {
    let (mut cli, mut srv) = pair();
    for d in forgeries(&mut cli, 63, 2) {
        srv.handle_datagram(2, &d);
    }
    assert!(srv.poll_transmit(2).is_none(), "63 forgeries: nothing yet");
    let d = forgeries(&mut cli, 1, 2).remove(0);
    srv.handle_datagram(2, &d);
    // the KeyUpdate (update_requested): the client answers with its own
    let update = srv
        .poll_transmit(2)
        .expect("the 64th asks for a key update");
    cli.handle_datagram(3, &update);
    settle(&mut cli, &mut srv, 3);
    assert_eq!((srv.write_epoch(), cli.write_epoch()), (4, 4));
    assert!(srv.is_established() && cli.is_established());
    cli.send(b"after the update").unwrap();
    settle(&mut cli, &mut srv, 4);
    assert!(srv.is_established());
}

#[test]
fn the_limit_on_the_newest_keys_closes_the_connection() {
    let (mut cli, mut srv) = pair();
    // the key update asked for never reaches the client
    for d in forgeries(&mut cli, 127, 2) {
        srv.handle_datagram(2, &d);
    }
    assert!(srv.is_established(), "127 forgeries: still open");
    while srv.poll_transmit(2).is_some() {}
    let d = forgeries(&mut cli, 1, 2).remove(0);
    srv.handle_datagram(2, &d);
    assert!(!srv.is_established());
    assert_eq!(
        failure(&mut srv),
        Some(Error::Record13(RecordError::IntegrityLimit))
    );
    // the client is told: close_notify
    deliver(&mut srv, &mut cli, 3);
    assert!(!cli.is_established());
}

#[test]
fn the_limit_on_replaced_keys_drops_them_not_the_connection() {
    let (mut cli, mut srv) = pair();
    // forgeries under epoch 3, kept to be delivered after the update
    let old = forgeries(&mut cli, 128, 2);
    for d in &old[..64] {
        srv.handle_datagram(2, d);
    }
    settle(&mut cli, &mut srv, 3);
    assert_eq!((srv.write_epoch(), cli.write_epoch()), (4, 4));
    for d in &old[64..] {
        srv.handle_datagram(4, d);
    }
    assert!(srv.is_established(), "epoch 3's keys are dropped instead");
    assert_eq!(failure(&mut srv), None);
    cli.send(b"epoch 4").unwrap();
    settle(&mut cli, &mut srv, 5);
    let got: Vec<_> = std::iter::from_fn(|| srv.poll_event())
        .filter_map(|e| match e {
            Event::ApplicationData(d) => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(got.last().map(Vec::as_slice), Some(&b"epoch 4"[..]));
}
