//! Unified header forms of protected records (RFC 9147 §4): 8- or 16-bit
//! sequence numbers, and the length field left out of a datagram's last
//! record. Byte counts of a PSK-CCM8 handshake in each form, with and
//! without connection IDs; mixed forms interoperate.

mod common13;

use common13::handshake;
use dtls::v13::config::Config13;
use dtls::v13::connection::Connection13;
use dtls::v13::header::{split_datagram, Header13, HeaderForm, SeqLen};
use dtls::Event;
use dtls::Session;

fn config(form: HeaderForm, cid_len: Option<usize>) -> Config13 {
    Config13 {
        header_form: form,
        cid_len,
        ..Config13::psk_ccm8()
    }
}

/// (protected records, protected records last in their datagram).
fn protected_records(wire: &[Vec<u8>], cid_len: usize) -> (usize, usize) {
    let (mut all, mut last) = (0, 0);
    for d in wire {
        let (records, err) = split_datagram(d, cid_len);
        assert_eq!(err, None);
        for (i, r) in records.iter().enumerate() {
            if matches!(r.header, Header13::Ciphertext(_)) {
                all += 1;
                last += usize::from(i + 1 == records.len());
            }
        }
    }
    (all, last)
}

#[test]
fn byte_counts_of_a_psk_ccm8_handshake_per_header_form() {
    let mut totals = Vec::new();
    for (cid_label, cid) in [("no CID", None), ("4-byte CIDs both ways", Some(4))] {
        for (form_label, form) in [
            ("16-bit seq, length always", HeaderForm::FULL),
            ("8-bit seq, no length on the last", HeaderForm::COMPACT),
        ] {
            let (c, s, wire) = handshake(config(form, cid), config(form, cid));
            println!("DTLS 1.3 PSK-CCM8 (psk_ke), no cookie, {cid_label}, {form_label}:");
            for (who, stats) in [("client", c.stats()), ("server", s.stats())] {
                for (kind, bytes, records) in stats.sent.iter() {
                    println!(
                        "  {who} {:<20} {bytes:>4} B in {records} record(s)",
                        kind.name()
                    );
                }
            }
            let total: usize = wire.iter().map(Vec::len).sum();
            println!("  total on the wire: {total} B in {} datagrams", wire.len());
            totals.push((total, protected_records(&wire, cid.unwrap_or(0))));
        }
    }
    // the protected records: EncryptedExtensions and the server's
    // Finished share one record after the ServerHello in its datagram, the
    // client's Finished and the server's ACK travel alone
    for (_, records) in &totals {
        assert_eq!(*records, (3, 3));
    }
    // one sequence-number byte less on each, two length bytes less on the
    // three, all last in their datagram: 3 + 3 * 2 = 9 bytes
    assert_eq!(totals[1].0, totals[0].0 - 9);
    assert_eq!(totals[3].0, totals[2].0 - 9);
    // regression guard on the counts themselves (printed above)
    let bytes: Vec<usize> = totals.iter().map(|t| t.0).collect();
    assert_eq!(bytes, [383, 374, 413, 404]);
}

#[test]
fn the_default_is_the_compact_form() {
    assert_eq!(Config13::default().header_form, HeaderForm::COMPACT);
    assert_eq!(Config13::psk_ccm8().header_form, HeaderForm::COMPACT);
}

/// Each side writes its own form; both read either.
#[test]
fn mixed_forms_interoperate_and_are_written_as_configured() {
    let (mut c, mut s, wire) = handshake(
        config(HeaderForm::COMPACT, None),
        config(HeaderForm::FULL, None),
    );
    // server datagram: ServerHello, then EncryptedExtensions and Finished
    // in one record with a length and a 16-bit sequence number
    let (records, _) = split_datagram(&wire[1], 0);
    assert_eq!(records.len(), 2);
    for r in &records[1..] {
        let Header13::Ciphertext(h) = &r.header else {
            panic!("protected record expected")
        };
        assert_eq!(h.seq_len, SeqLen::Bits16);
        assert!(h.length.is_some());
    }
    // client Finished: 8-bit, no length
    let (records, _) = split_datagram(&wire[2], 0);
    let Header13::Ciphertext(h) = &records[0].header else {
        panic!("protected record expected")
    };
    assert_eq!((h.seq_len, h.length), (SeqLen::Bits8, None));
    data_arrives(&mut c, &mut s);
    data_arrives(&mut s, &mut c);
}

fn data_arrives(from: &mut Connection13, to: &mut Connection13) {
    from.send(b"hello").unwrap();
    let d = from.poll_transmit(0).unwrap();
    to.handle_datagram(0, &d);
    let got: Vec<Event> = std::iter::from_fn(|| to.poll_event()).collect();
    assert!(got.contains(&Event::ApplicationData(b"hello".to_vec())));
}

/// 300 records in a row, more than an 8-bit sequence number counts: the
/// receiver reconstructs each from the last it saw.
#[test]
fn eight_bit_sequence_numbers_wrap_in_order() {
    let (mut c, mut s, _) = handshake(
        config(HeaderForm::COMPACT, None),
        config(HeaderForm::COMPACT, None),
    );
    while s.poll_event().is_some() {}
    for i in 0..300u32 {
        c.send(&i.to_be_bytes()).unwrap();
        let d = c.poll_transmit(0).unwrap();
        s.handle_datagram(0, &d);
        assert_eq!(
            s.poll_event(),
            Some(Event::ApplicationData(i.to_be_bytes().to_vec()))
        );
    }
}

/// A burst that overruns the receiver's socket: 150 records arrive, then
/// 200 in a row are lost.
/// With 8-bit sequence numbers every later record is reconstructed 256
/// below its number (RFC 9147 §4.2.2 takes the value closest to one more
/// than the highest deprotected), fails to deprotect and is dropped, for
/// the rest of the epoch; with 16 bits the receiver goes on.
#[test]
fn a_run_of_losses_longer_than_half_the_sequence_space_is_survived_only_with_16_bits() {
    for (form, survives) in [(HeaderForm::COMPACT, false), (HeaderForm::FULL, true)] {
        let (mut c, mut s, _) = handshake(config(form, None), config(form, None));
        // the first 150 arrive, so no candidate below zero can be ruled out
        for _ in 0..150 {
            c.send(b"arrives").unwrap();
            s.handle_datagram(0, &c.poll_transmit(0).unwrap());
        }
        while s.poll_event().is_some() {}
        for _ in 0..200 {
            c.send(b"lost").unwrap();
            c.poll_transmit(0).unwrap();
        }
        let mut got = 0;
        for i in 0..10u32 {
            c.send(&i.to_be_bytes()).unwrap();
            s.handle_datagram(0, &c.poll_transmit(0).unwrap());
            got += std::iter::from_fn(|| s.poll_event()).count();
        }
        assert_eq!(got == 10, survives, "{form:?}: {got} of 10 arrived");
    }
}
