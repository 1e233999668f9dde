//! A malformed CoJP message reaching a pledge: a JRC
//! that answers each Join Request with an acknowledgement carrying the
//! request's Message ID and token but no Join Response a pledge can open,
//! or with a datagram that is no CoAP message at all. Each answer the
//! pledge cannot open ends that join as failed, with the reason, and the
//! pledge tries again after its pause; garbage is ignored (CoAP then
//! retransmits and gives up as RFC 7252 §4.2 says). Nothing panics.

mod common;

use coap::message::{Message, Type};
use sim::app::cojp::{CojpSetup, Pledge, PledgeParams};
use sim::app::edhoc::COAP_PORT;
use sim::app::pause::Pause;
use sim::app::record::Record;
use sim::engine::Sim;
use sim::net::Udp;
use sim::node::app::{App, AppCx};
use sim::node::cpu::CryptoCost;
use sim::scenario::{MacSpec, TschSchedule, TschSpec};
use sim::timer::Token;
use sim::topology::Topology;
use sim::world::World;

/// What the JRC of this test answers.
#[derive(Clone, Copy)]
enum Answer {
    /// An ACK to the request, 2.04 Changed, its payload not OSCORE.
    Unprotected,
    /// An ACK whose payload is cut short.
    Cut,
    /// Bytes that are no CoAP message.
    Garbage,
}

struct BadJrc(Answer);

impl App<Record> for BadJrc {
    fn start(&mut self, _: &mut AppCx<Record>) {}

    fn on_udp(&mut self, cx: &mut AppCx<Record>, udp: Udp) {
        let Ok(request) = Message::parse(&udp.payload) else {
            return;
        };
        let ack = |payload: Vec<u8>| {
            Message::new(
                Type::Acknowledgement,
                0x44,
                request.message_id,
                &request.token,
            )
            .with_payload(payload)
            .emit()
        };
        let answer = match self.0 {
            Answer::Unprotected => ack(vec![0xa0]),
            Answer::Cut => {
                let mut a = ack(vec![0xa1, 0x02, 0x81]);
                a.truncate(a.len() - 2);
                a
            }
            Answer::Garbage => vec![0xff, 0x00, 0x13],
        };
        cx.send(udp.src, COAP_PORT, udp.src_port, answer);
    }

    fn on_timer(&mut self, _: &mut AppCx<Record>, _: Token) {}
}

/// A pledge one hop from the bad JRC over TSCH (the minimal schedule),
/// run for `secs`: its join records.
fn run(answer: Answer, secs: u64) -> Vec<(u64, Record)> {
    let topology = Topology::line(2, 1.0).unwrap();
    let spec = MacSpec::Tsch(TschSpec::new(11, TschSchedule::Minimal));
    let network = spec.network(&topology, 0, 7, 0).unwrap();
    let macs = (0..2).map(|n| spec.build(n, &network, None)).collect();
    let pledge = Pledge::new(
        PledgeParams {
            jrc: 0,
            proxy: None,
            setup: CojpSetup {
                coap: coap::reliability::Params::default(),
                token_bytes: 2,
            },
            first_at: 1_000_000,
            retry: Pause::fixed(5_000_000),
            cost: CryptoCost::default(),
            seed: 7,
            replication: 0,
            timer_tick_us: 0,
        },
        1,
    );
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(BadJrc(answer)), Box::new(pledge)];
    let mut sim = Sim::new(World::new(topology, 7, 0), common::stacks(macs, apps));
    sim.start();
    sim.run(secs * 1_000_000, |_| false);
    (sim.recorder.entries().iter())
        .filter(|e| e.node == 1)
        .map(|e| (e.at, e.record.clone()))
        .collect()
}

fn failures(records: &[(u64, Record)]) -> Vec<String> {
    records
        .iter()
        .filter_map(|(_, r)| match r {
            Record::HandshakeEnded(h) => {
                assert!(
                    !h.success,
                    "a join succeeded against a JRC that cannot answer"
                );
                Some(h.failure.clone().unwrap_or_default())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_join_response_the_pledge_cannot_open_fails_the_join_and_it_tries_again() {
    for answer in [Answer::Unprotected, Answer::Cut] {
        let records = run(answer, 60);
        let failed = failures(&records);
        let started = (records.iter())
            .filter(|(_, r)| matches!(r, Record::HandshakeStarted { .. }))
            .count();
        // each answer ends its join at once; the pledge tries again after 5 s
        assert!(failed.len() >= 3, "{failed:?}");
        assert!(started >= failed.len(), "{started} {failed:?}");
        assert!(
            failed.iter().all(|f| f.starts_with("CoJP Join Response")),
            "{failed:?}"
        );
    }
}

#[test]
fn garbage_from_the_jrc_is_ignored_and_coap_gives_up_as_it_says() {
    // RFC 7252 §4.8 defaults: ACK_TIMEOUT 2 s × up to 1.5, MAX_RETRANSMIT 4:
    // the request's last retransmission times out at most 2 × 1.5 × 31 = 93 s
    let records = run(Answer::Garbage, 200);
    let failed = failures(&records);
    assert!(!failed.is_empty(), "{records:?}");
    assert!(
        failed.iter().all(|f| f.contains("MAX_RETRANSMIT")),
        "{failed:?}"
    );
    let resent = (records.iter())
        .filter(|(_, r)| matches!(r, Record::Retransmitted))
        .count();
    assert!(resent >= 4, "{resent}");
}
