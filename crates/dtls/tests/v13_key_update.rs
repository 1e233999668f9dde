//! DTLS 1.3 KeyUpdate (RFC 9147 §8, RFC 8446 §4.6.3):
//! either side moves its sending keys to the next epoch
//! (application_traffic_secret_N+1, RFC 8446 §7.2), only once the peer has
//! acknowledged the KeyUpdate; the peer moves its receiving keys on reading
//! it and, when asked, updates its own. Data flows on in the new epochs,
//! and a side starts an update by itself before its sending epoch reaches
//! its record limit.

mod common13;

use common13::settle;

use dtls::v13::config::Config13;
use dtls::v13::connection::Connection13;
use dtls::{Event, Session};

fn data(c: &mut Connection13) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| c.poll_event())
        .filter_map(|e| match e {
            Event::ApplicationData(d) => Some(d),
            _ => None,
        })
        .collect()
}

/// The epoch bits of a unified header (RFC 9147 §4: 001CSLEE).
fn epoch_bits(datagram: &[u8]) -> u8 {
    datagram[0] & 0b11
}

#[test]
fn a_key_update_moves_both_directions_to_the_next_epoch() {
    let (mut cli, mut srv, _) = common13::handshake(Config13::default(), Config13::default());
    settle(&mut cli, &mut srv, 1);
    cli.update_keys(2, true).unwrap();
    // nothing in the new epoch before the ACK
    cli.send(b"old keys").unwrap();
    let pending: Vec<_> = std::iter::from_fn(|| cli.poll_transmit(2)).collect();
    assert!(pending.iter().all(|d| epoch_bits(d) == 3), "before the ACK");
    for d in &pending {
        srv.handle_datagram(2, d);
    }
    settle(&mut cli, &mut srv, 2);
    assert_eq!(data(&mut srv), [b"old keys".to_vec()]);
    assert_eq!(cli.write_epoch(), 4);
    assert_eq!(srv.write_epoch(), 4, "the server updated when asked");
    cli.send(b"epoch 4").unwrap();
    let d = cli.poll_transmit(3).unwrap();
    assert_eq!(epoch_bits(&d), 0, "epoch 4 has the low bits 00");
    srv.handle_datagram(3, &d);
    assert_eq!(data(&mut srv), [b"epoch 4".to_vec()]);
    srv.send(b"back").unwrap();
    settle(&mut cli, &mut srv, 4);
    assert_eq!(data(&mut cli), [b"back".to_vec()]);
    // and again, from the server, without asking the client
    srv.update_keys(5, false).unwrap();
    settle(&mut cli, &mut srv, 5);
    assert_eq!((srv.write_epoch(), cli.write_epoch()), (5, 4));
    srv.send(b"epoch 5").unwrap();
    settle(&mut cli, &mut srv, 6);
    assert_eq!(data(&mut cli), [b"epoch 5".to_vec()]);
    assert!(cli.is_established() && srv.is_established());
}

#[test]
fn a_lost_key_update_is_resent_until_acknowledged() {
    let (mut cli, mut srv, _) = common13::handshake(Config13::default(), Config13::default());
    settle(&mut cli, &mut srv, 1);
    cli.update_keys(2, false).unwrap();
    while cli.poll_transmit(2).is_some() {}
    let at = cli.poll_timeout().expect("the KeyUpdate's timer");
    cli.handle_timeout(at);
    settle(&mut cli, &mut srv, at);
    assert_eq!(cli.write_epoch(), 4);
    cli.send(b"after").unwrap();
    settle(&mut cli, &mut srv, at + 1);
    assert_eq!(data(&mut srv), [b"after".to_vec()]);
}

#[test]
fn a_side_updates_by_itself_before_its_record_limit() {
    let config = Config13 {
        key_update_after_records: Some(5),
        ..Config13::default()
    };
    let (mut cli, mut srv, _) = common13::handshake(config, Config13::default());
    settle(&mut cli, &mut srv, 1);
    for i in 0..20u8 {
        cli.send(&[i]).unwrap();
        settle(&mut cli, &mut srv, 2 + u64::from(i));
    }
    assert_eq!(data(&mut srv).len(), 20);
    assert!(cli.write_epoch() >= 5, "epoch {}", cli.write_epoch());
}

#[test]
fn a_key_update_is_refused_before_the_handshake_and_while_one_is_pending() {
    let (mut cli, mut srv, _) = common13::handshake(Config13::default(), Config13::default());
    settle(&mut cli, &mut srv, 1);
    cli.update_keys(2, false).unwrap();
    assert!(cli.update_keys(2, false).is_err(), "one at a time");
}
