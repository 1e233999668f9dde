//! The simulator's mechanics against hand computation on tiny cases.

mod common;

use common::stacks;
use sim::app::echo::{EchoServer, PingClient, PingParams};
use sim::app::record::Record;
use sim::channel::{airtime_us, Airtime};
use sim::energy::RadioState;
use sim::engine::Sim;
use sim::mac::csma::{Csma, CsmaParams};
use sim::mac::xmac::{Xmac, XmacParams};
use sim::mac::{Mac, NodeMac};
use sim::node::app::{App, Idle};
use sim::topology::Topology;
use sim::world::World;

fn ping(server: usize, payload: usize, count: u32, first_at: u64) -> PingClient {
    PingClient::new(PingParams {
        server,
        payload,
        count,
        first_at,
        timeout_us: 10_000_000,
        pause_us: 1_000_000,
    })
}

fn csma_no_backoff() -> CsmaParams {
    CsmaParams {
        min_be: 0,
        ..CsmaParams::default()
    }
}

#[test]
fn one_frame_airtime_and_energy_over_csma() {
    // Node 0 sends one 20-byte datagram to node 1 (which does not answer at
    // the application layer). With macMinBE = 0 there is no backoff: CCA
    // (128 µs), turnaround (192 µs), then the frame.
    let world = World::new(Topology::line(2, 1.0).unwrap(), 1, 0);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 20, 1, 1000)), Box::new(Idle)];
    let macs: Vec<NodeMac> = vec![
        Csma::new(csma_no_backoff()).into(),
        Csma::new(csma_no_backoff()).into(),
    ];
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim.run(100_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    let data = &sent[0];
    assert_eq!(data.node, 0);
    assert_eq!(data.at, 1000 + 128 + 192);
    // MAC header 9 + IPHC 2 + UDP NHC 7 + 20 bytes + FCS 2 = 40 bytes
    assert_eq!(data.frame.len(), 40);
    let ack = &sent[1];
    assert_eq!(ack.node, 1);
    assert_eq!(ack.frame.len(), 5);
    assert_eq!(ack.at, data.at + airtime_us(40) + 192);
    // Energy: node 0 transmitted for exactly the frame's airtime, node 1 for the ACK's.
    let t0 = sim.world.energest(0).times(100_000);
    let t1 = sim.world.energest(1).times(100_000);
    assert_eq!(t0.radio_tx_us, airtime_us(40));
    assert_eq!(t0.radio_tx_us, (6 + 40) * 32);
    assert_eq!(t1.radio_tx_us, airtime_us(5));
    assert_eq!(t0.radio_rx_us + t0.radio_tx_us, 100_000); // always on
    assert_eq!(sim.stacks[0].mac.stats().retransmissions, 0);
}

#[test]
fn a_backoff_slot_lasts_the_configured_unit() {
    // macMinBE = macMaxBE = 1: the frame waits 0 or 1 backoff slot before
    // its CCA. With Contiki-NG's Cooja slot (6 ms) it leaves 128 + 192 µs
    // or 6 000 + 128 + 192 µs after the send; over seeds, both happen.
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..16 {
        let world = World::new(Topology::line(2, 1.0).unwrap(), seed, 0);
        let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 20, 1, 1000)), Box::new(Idle)];
        let p = CsmaParams {
            min_be: 1,
            max_be: 1,
            backoff_unit_us: 6_000,
            ..CsmaParams::default()
        };
        let macs: Vec<NodeMac> = vec![Csma::new(p).into(), Csma::new(p).into()];
        let mut sim = Sim::new(world, stacks(macs, apps));
        sim.world.sent = Some(Vec::new());
        sim.start();
        sim.run(100_000, |_| false);
        seen.insert(sim.world.sent.as_ref().unwrap()[0].at - 1000);
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![320, 6_320]);
}

#[test]
fn csma_ping_round_trip_over_two_hops() {
    let world = World::new(Topology::line(3, 1.0).unwrap(), 7, 0);
    let apps: Vec<Box<dyn App<Record>>> = vec![
        Box::new(ping(2, 30, 5, 1000)),
        Box::new(Idle),
        Box::new(EchoServer),
    ];
    let macs: Vec<NodeMac> = (0..3)
        .map(|_| Csma::new(CsmaParams::default()).into())
        .collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.start();
    sim.run(60_000_000, |_| false);
    let rtts = sim.recorder.ping_rtts();
    assert_eq!(rtts.len(), 5);
    for rtt in &rtts {
        // four transmissions of ~50-byte frames with their ACKs: a few ms
        let rtt = rtt.expect("no loss at PDR 1");
        assert!((4 * airtime_us(50)..40_000).contains(&rtt), "{rtt}");
    }
}

fn xmac(phase: u64) -> XmacParams {
    XmacParams {
        phase_us: Some(phase),
        encounter_optimization: false,
        ..XmacParams::contiki(125_000)
    }
}

#[test]
fn xmac_strobe_train_length_for_a_known_wake_up_phase() {
    // Receiver (node 1) wakes at 40 ms (+k·125 ms) for one 128 Hz clock
    // tick, 7.8125 ms. The sender's datagram is handed to the MAC at 1 ms;
    // after listening one strobe period (cxmac's strobe wait time, 178
    // rtimer ticks = 5.432 ms) the train starts at t0 = 6.432 ms with a
    // strobe every 5.432 ms.
    let (wake, t0, period) = (40_000u64, 6_432u64, 5_432u64);
    let strobe_air = airtime_us(13); // MHR 9 + NALP 2 + FCS 2
    let world = World::new(Topology::line(2, 1.0).unwrap(), 3, 0);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 10, 1, 1000)), Box::new(Idle)];
    let macs: Vec<NodeMac> = vec![
        Xmac::new(xmac(100_000)).into(),
        Xmac::new(xmac(wake)).into(),
    ];
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim.run(200_000, |_| false);
    // The first strobe entirely inside [wake, wake + on): index k with
    // t0 + k·period >= wake.
    let k = (wake - t0).div_ceil(period);
    assert_eq!(sim.stacks[0].mac.stats().strobes_sent, k + 1);
    let heard_end = t0 + k * period + strobe_air;
    let sent = sim.world.sent.as_ref().unwrap();
    // the strobe ACK from node 1 after the turnaround, then the data frame
    let ack = sent.iter().find(|s| s.node == 1).unwrap();
    assert_eq!(ack.at, heard_end + 192);
    let data = sent.iter().filter(|s| s.node == 0).nth(1).unwrap();
    assert_eq!(data.at, ack.at + airtime_us(13) + 192);
    assert_eq!(sim.stacks[1].mac.stats().data_frames_received, 1);
    // The sender's radio: strobes and data in TX, the gaps between strobes in RX.
    let t = sim.world.energest(0).times(200_000);
    assert_eq!(
        t.radio_tx_us,
        (k + 1) * strobe_air + airtime_us(data.frame.len())
    );
    assert_eq!(sim.world.radio(0), RadioState::Off);
}

#[test]
fn xmac_cost_per_frame_does_not_depend_on_the_check_interval_in_events() {
    // The same exchange with CI = 4 s: the number of events stays small
    // because strobes nobody hears are never simulated one by one.
    let ci = 4_000_000;
    let p = |phase| XmacParams {
        phase_us: Some(phase),
        encounter_optimization: false,
        ..XmacParams::contiki(ci)
    };
    let world = World::new(Topology::line(2, 1.0).unwrap(), 3, 0);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 10, 1, 1000)), Box::new(Idle)];
    let macs: Vec<NodeMac> = vec![
        Xmac::new(p(3_000_000)).into(),
        Xmac::new(p(3_500_000)).into(),
    ];
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.start();
    sim.run(5_000_000, |_| false);
    assert_eq!(sim.stacks[1].mac.stats().data_frames_received, 1);
    let strobes = sim.stacks[0].mac.stats().strobes_sent;
    assert!(strobes > 600, "{strobes} strobes over 3.5 s");
    assert!(sim.events() < 100, "{} events", sim.events());
}

/// A relay (node 1, the middle of a line) with Idle applications, its
/// neighbours waking at known phases; packets are handed to its MAC directly.
fn relay(nodes: usize, phases: &[u64]) -> Sim<Record> {
    let world = World::new(Topology::line(nodes, 1.0).unwrap(), 3, 0);
    let apps: Vec<Box<dyn App<Record>>> = (0..nodes)
        .map(|_| Box::new(Idle) as Box<dyn App<Record>>)
        .collect();
    let macs: Vec<NodeMac> = phases.iter().map(|&p| Xmac::new(xmac(p)).into()).collect();
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim
}

fn relay_sends(sim: &mut Sim<Record>, to: usize, payload_len: usize) {
    let mut cx = sim.world.cx(1);
    sim.stacks[1].mac.send(&mut cx, to, vec![0xAA; payload_len]);
}

#[test]
fn xmac_relay_serves_each_neighbour_from_its_own_queue() {
    // Contiki 2.7 csma keeps one packet queue per neighbour, each with its
    // own transmit timer (csma.c `neighbor_queue_from_addr`,
    // `transmit_packet_list`): four packets towards node 2 do not hold up
    // one towards node 0, which goes as soon as the radio is free and node 0
    // wakes. Frames tell their destination by length: 9-byte header + 2 FCS.
    let (to2, to0) = (20, 30);
    let mut sim = relay(3, &[40_000, 100_000, 80_000]);
    sim.run(1_000, |_| false);
    for _ in 0..4 {
        relay_sends(&mut sim, 2, to2);
    }
    relay_sends(&mut sim, 0, to0);
    sim.run(3_000_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    let data_at = |len: usize| -> Vec<u64> {
        sent.iter()
            .filter(|s| s.node == 1 && s.copies == 1 && s.frame.len() == 11 + len)
            .map(|s| s.at)
            .collect()
    };
    let (towards2, towards0) = (data_at(to2), data_at(to0));
    assert_eq!(towards2.len(), 4, "{towards2:?}");
    assert_eq!(towards0.len(), 1);
    // The first train towards node 2 meets its wake-up at 80 ms; the train
    // towards node 0 starts right after and meets node 0's at 165 ms.
    assert!(towards2[0] < 90_000, "{towards2:?}");
    assert!(
        (165_000..175_000).contains(&towards0[0]),
        "towards node 0 at {} µs, towards node 2 at {towards2:?}",
        towards0[0]
    );
    // One check interval between packets of the same queue (csma.c
    // `free_packet`), each then waiting for node 2's next wake-up.
    for pair in towards2.windows(2) {
        assert!(pair[1] - pair[0] >= 125_000, "{towards2:?}");
    }
    assert_eq!(sim.stacks[0].mac.stats().data_frames_received, 1);
    assert_eq!(sim.stacks[2].mac.stats().data_frames_received, 4);
    assert_eq!(sim.stacks[1].mac.stats().drops, 0);
}

#[test]
fn xmac_neighbour_queues_share_eight_packet_buffers() {
    // csma.c `send_packet`: every queue draws from one pool of
    // MAX_QUEUED_PACKETS = QUEUEBUF_NUM = 8 (`packet_memb`), so the ninth
    // packet is dropped although its own neighbour's queue holds only three.
    let mut sim = relay(3, &[40_000, 100_000, 80_000]);
    sim.run(1_000, |_| false);
    for _ in 0..5 {
        relay_sends(&mut sim, 2, 20);
    }
    for _ in 0..3 {
        relay_sends(&mut sim, 0, 30);
    }
    assert_eq!(sim.stacks[1].mac.queued(), 8);
    assert_eq!(sim.stacks[1].mac.stats().drops, 0);
    relay_sends(&mut sim, 0, 30);
    assert_eq!(sim.stacks[1].mac.queued(), 8);
    assert_eq!(sim.stacks[1].mac.stats().drops, 1);
}

#[test]
fn xmac_a_third_neighbour_finds_no_queue() {
    // csma.c: at most CSMA_MAX_NEIGHBOR_QUEUES = 2 neighbours have packets
    // queued at once (`neighbor_memb`); a packet for a third is dropped.
    let mut sim = relay(4, &[40_000, 100_000, 80_000, 60_000]);
    sim.run(1_000, |_| false);
    relay_sends(&mut sim, 2, 20);
    relay_sends(&mut sim, 0, 20);
    relay_sends(&mut sim, 3, 20);
    assert_eq!(sim.stacks[1].mac.queued(), 2);
    assert_eq!(sim.stacks[1].mac.stats().drops, 1);
}

mod tsch {
    use sim::energy::PowerProfile;
    use sim::mac::tsch::Template;
    use sim::node::cpu::CryptoCost;
    use sim::row::Value;
    use sim::run::run_replication;
    use sim::scenario::{MacSpec, Scenario, TopologySpec, TschSchedule, TschSpec, Workload};
    use sim::world::Processing;

    fn scenario(hops: usize, slotframe: u32, cells: u32, pdr: f64) -> Scenario {
        Scenario {
            topology: TopologySpec::line(hops + 1, pdr),
            client: 0,
            server: hops,
            mac: MacSpec::Tsch(TschSpec {
                max_retries: 7,
                ..TschSpec::new(slotframe, TschSchedule::RandomLinks { cells })
            }),
            power: PowerProfile {
                voltage_v: 3.0,
                cpu_active_ma: 13.0,
                cpu_lpm_ma: 0.0013,
                radio_tx_ma: 24.0,
                radio_rx_ma: 20.0,
                radio_off_ma: 0.0013,
            },
            crypto: CryptoCost::default(),
            processing: Processing::default(),
            workload: Workload::Frames {
                frames: 10,
                payload: 40,
                max_wait_us: u64::from(slotframe) * 10_000,
            },
            start_us: 1_000_000,
            power_on_window_us: 0,
            max_time_us: 3_600_000_000,
            timer_tick_us: 0,
            give_up_idle_us: None,
            close_notify: true,
            seed: 11,
            outdated_key_nodes: Vec::new(),
            below_policy_nodes: Vec::new(),
        }
    }

    fn float(row: &[(String, Value)], key: &str) -> f64 {
        match row.iter().find(|(k, _)| k == key).unwrap().1 {
            Value::Float(f) => f,
            ref v => panic!("{v:?}"),
        }
    }

    /// The mean slot latency of `n` replications of `s` (each must
    /// succeed) and its 95 % half-width.
    fn mean_slot_latency(s: &Scenario, n: u64) -> (f64, f64) {
        let samples: Vec<f64> = (0..n)
            .map(|rep| {
                let r = run_replication(s, rep, false, &[]).unwrap();
                assert_eq!(r.rows[0][2].1, Value::Bool(true));
                float(&r.rows[0], "slot_latency_s")
            })
            .collect();
        let mean = samples.iter().sum::<f64>() / n as f64;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (mean, 1.966 * (var / n as f64).sqrt())
    }

    #[test]
    fn one_cell_one_hop_matches_the_closed_form() {
        // Reference experiment 3 (Vučinić et al., PIMRC 2015): 10 frames over one hop, L = 101, C = 1,
        // 10 ms slots: (1 + 101/2) slots a frame, 5.15 s in all. With
        // frames at random phases the mean over replications must agree.
        let s = scenario(1, 101, 1, 1.0);
        let (mean, half) = mean_slot_latency(&s, 400);
        assert!((mean - 5.15).abs() < half, "mean {mean} ± {half} vs 5.15");
    }

    #[test]
    fn the_minimal_schedule_is_one_shared_cell_per_slotframe() {
        // RFC 8180's minimal configuration with L = 7: one shared cell at
        // slot offset 0, nothing else, so one hop at PDR 1 behaves as one
        // dedicated cell per slotframe: (1 + 7/2) slots a frame, 10 frames,
        // 0.45 s in all (the closed form above with L = 7). No other node
        // sends, so no TSCH CSMA backoff is ever drawn.
        let mut s = scenario(1, 7, 1, 1.0);
        if let MacSpec::Tsch(t) = &mut s.mac {
            t.schedule = TschSchedule::Minimal;
        }
        let (mean, half) = mean_slot_latency(&s, 400);
        assert!((mean - 0.45).abs() < half, "mean {mean} ± {half} vs 0.45");
    }

    #[test]
    fn per_channel_pdr_scales_every_link_on_that_channel() {
        // every channel at half: the same draws, the same fate, as links of PDR 0.5
        let halved = {
            let mut s = scenario(2, 11, 1, 1.0);
            if let MacSpec::Tsch(t) = &mut s.mac {
                t.channel_pdr = vec![0.5; 16];
            }
            s
        };
        let lossy = scenario(2, 11, 1, 0.5);
        for rep in 0..5 {
            let a = run_replication(&halved, rep, false, &[]).unwrap().rows;
            assert_eq!(a, run_replication(&lossy, rep, false, &[]).unwrap().rows);
        }
        // one dead channel: frames still get through, on the other 15, but
        // some attempts fail; all channels dead: nothing does
        let mut one_dead = scenario(1, 11, 1, 1.0);
        if let MacSpec::Tsch(t) = &mut one_dead.mac {
            t.channel_pdr = vec![1.0; 16];
            t.channel_pdr[3] = 0.0;
        }
        let retries: f64 = (0..20)
            .map(|rep| {
                let r = run_replication(&one_dead, rep, false, &[]).unwrap();
                assert_eq!(r.rows[0][2].1, Value::Bool(true));
                float(&r.rows[0], "slot_latency_s")
            })
            .sum();
        let clean: f64 = (0..20)
            .map(|rep| {
                let r = run_replication(&scenario(1, 11, 1, 1.0), rep, false, &[]).unwrap();
                float(&r.rows[0], "slot_latency_s")
            })
            .sum();
        assert!(retries > clean, "{retries} vs {clean}");
        if let MacSpec::Tsch(t) = &mut one_dead.mac {
            t.channel_pdr = vec![0.0; 16];
        }
        one_dead.max_time_us = 30_000_000;
        let r = run_replication(&one_dead, 0, false, &[]).unwrap();
        assert_eq!(r.rows[0][2].1, Value::Bool(false));
    }

    #[test]
    fn given_cells_are_the_only_times_data_goes_out() {
        use sim::scenario::GivenCell;
        // 0→1 in slot 10 (channel offset 2), 1→0 in slot 60 (offset 5), L = 101
        let mut s = scenario(1, 101, 1, 1.0);
        let cells = vec![
            GivenCell {
                from: 0,
                to: 1,
                slot: 10,
                channel_offset: 2,
            },
            GivenCell {
                from: 1,
                to: 0,
                slot: 60,
                channel_offset: 5,
            },
        ];
        if let MacSpec::Tsch(t) = &mut s.mac {
            t.schedule = TschSchedule::Given(cells.clone());
        }
        let r = run_replication(&s, 0, true, &[]).unwrap();
        assert_eq!(r.rows[0][2].1, Value::Bool(true));
        let t = Template::default();
        let frames = r.frames.unwrap();
        // 10 data frames, and the Enhanced ACKs of all but the last (the
        // replication ends when the last frame arrives)
        assert_eq!(frames.iter().filter(|f| f.frame.len() > 40).count(), 10);
        assert_eq!(frames.len(), 19);
        for f in &frames {
            let (asn, within) = (f.at / t.slot_us, f.at % t.slot_us);
            let slot = asn % 101;
            let data = f.frame.len() > 40;
            // data at TsTxOffset of the sender's cell, ACKs later in the same slot
            let expected = if (f.node == 0) == data { 10 } else { 60 };
            assert_eq!(slot, expected, "{f:?}");
            if data {
                assert_eq!(within, t.tx_offset_us);
            }
        }
        // a cell outside the slotframe, or two in one slot for one node, is refused
        let refuse = |cells: Vec<GivenCell>| {
            let mut bad = s.clone();
            if let MacSpec::Tsch(t) = &mut bad.mac {
                t.schedule = TschSchedule::Given(cells);
            }
            run_replication(&bad, 0, false, &[])
                .err()
                .unwrap()
                .to_string()
        };
        let far = GivenCell {
            slot: 101,
            ..cells[0]
        };
        assert!(refuse(vec![far]).contains("slot must be in [0, 100]"));
        let clash = GivenCell {
            slot: 10,
            ..cells[1]
        };
        assert!(refuse(vec![cells[0], clash]).contains("two cells in slot 10"));
    }

    /// The line 0 - 1 - 2 rooted at 0 under receiver-based Orchestra
    /// (unicast slotframe 17, common 31), with an EB slotframe of
    /// `eb_slotframe` slots (0: none) and an EB every `eb_period_us`.
    fn orchestra_line(eb_slotframe: u32, eb_period_us: u64) -> Scenario {
        let mut s = scenario(2, 101, 1, 1.0);
        if let MacSpec::Tsch(t) = &mut s.mac {
            t.schedule = TschSchedule::Orchestra {
                unicast_period: 17,
                common_period: 31,
                line_neighbours_up_to: 0,
                eb_slotframe,
                eb_period_us,
            };
        }
        if let Workload::Frames { max_wait_us, .. } = &mut s.workload {
            *max_wait_us = 10_000_000;
        }
        s
    }

    #[test]
    fn orchestra_sends_in_the_receivers_unicast_cell() {
        // A line 0 - 1 - 2 rooted at 0, frames 0 → 2. Receiver-based
        // Orchestra: a node listens at hash(address) mod 17, the hash being
        // the address's last byte (node + 1), so node 1 receives in slots
        // 2 mod 17 and node 2 in slots 3 mod 17; the slotframe is
        // lcm(17, 31) = 527 with the common shared cell every 31 slots.
        let s = orchestra_line(0, 16_000_000);
        let r = run_replication(&s, 0, true, &[]).unwrap();
        assert_eq!(r.rows[0][2].1, Value::Bool(true));
        let t = Template::default();
        let frames = r.frames.unwrap();
        let data: Vec<_> = frames.iter().filter(|f| f.frame.len() > 40).collect();
        // 10 frames (5 each way) over 2 hops, none sent twice
        assert_eq!(data.len(), 20);
        for f in data {
            let (asn, within) = (f.at / t.slot_us, f.at % t.slot_us);
            // 0 and 2 send only to 1 (slot 2); 1 to 2 (slot 3) or to 0 (slot 1)
            let expected: &[u64] = if f.node == 1 { &[1, 3] } else { &[2] };
            assert!(expected.contains(&(asn % 17)), "{f:?}");
            assert_eq!(within, t.tx_offset_us);
        }
    }

    #[test]
    fn orchestras_eb_slotframe_takes_its_slots() {
        // The line 0 - 1 - 2 of the test above with an EB slotframe of 7
        // slots (coprime with 17 and 31, so every unicast cell meets every
        // EB slot) and an EB queued every 75-100 ms: node n sends EBs in
        // slot (n + 1) mod 7 and listens for its time source's (node n - 1)
        // in slot n mod 7. So no node sends data in its own EB slot, and no
        // node acknowledges a frame in its time source's EB slot (it listens
        // on the EB link there); the frames still all arrive.
        let s = orchestra_line(7, 100_000);
        let slot_us = Template::default().slot_us;
        let (mut unacked_in_ts_slot, mut data_in_own_slot) = (0, 0);
        for rep in 0..10 {
            let r = run_replication(&s, rep, true, &[]).unwrap();
            assert_eq!(r.rows[0][2].1, Value::Bool(true), "replication {rep}");
            let frames = r.frames.unwrap();
            let acks: Vec<(u64, usize)> = (frames.iter())
                .filter(|f| f.frame.len() <= 40)
                .map(|f| (f.at / slot_us, f.node))
                .collect();
            for f in frames.iter().filter(|f| f.frame.len() > 40) {
                let asn = f.at / slot_us;
                data_in_own_slot += usize::from(asn % 7 == (f.node as u64 + 1) % 7);
                // the receiver: node 1 listens in slot 2 mod 17, node 2 in 3
                let Some(to) = (asn % 17).checked_sub(1).map(|t| t as usize) else {
                    continue;
                };
                if to > 0 && asn % 7 == to as u64 % 7 {
                    assert!(
                        !acks.contains(&(asn, to)),
                        "acked in its time source's EB slot: {f:?}"
                    );
                    unacked_in_ts_slot += 1;
                }
            }
        }
        assert_eq!(data_in_own_slot, 0);
        // sent into the time source's EB slot (by node 2 to node 1) and lost
        assert!(unacked_in_ts_slot > 0);
    }

    #[test]
    fn shared_cells_carry_what_has_no_dedicated_cell() {
        // A routing tree gives only child→parent cells; frames from the root
        // down go in the shared cell, with TSCH CSMA backoff.
        let mut s = scenario(2, 11, 1, 1.0);
        if let MacSpec::Tsch(t) = &mut s.mac {
            t.schedule = TschSchedule::Tree { shared: 1 };
        }
        for rep in 0..20 {
            let r = run_replication(&s, rep, false, &[]).unwrap();
            assert_eq!(r.rows[0][2].1, Value::Bool(true), "replication {rep}");
        }
    }

    #[test]
    fn extended_addresses_name_both_ends_of_data_frames_and_acks() {
        use sim::mac::address::LinkAddressing;
        use sim::mac::security::{extended_addr, LinkSecurity};
        use wpan::frame::{Address, Body, Repr};
        use wpan::security::SecurityLevel;

        let security = LinkSecurity {
            level: SecurityLevel::EncMic32,
            key_id_mode: 1,
            key: [5; 16],
            key_index: 1,
            frame_counter_suppressed: true,
            after_join: false,
            setup_us: 50.0,
            per_block_us: 10.0,
        };
        for secured in [false, true] {
            let run = |hops, addressing| {
                let mut s = scenario(hops, 11, 1, 1.0);
                if let MacSpec::Tsch(t) = &mut s.mac {
                    t.addressing = addressing;
                    t.security = secured.then_some(security);
                }
                let r = run_replication(&s, 0, true, &[]).unwrap();
                assert_eq!(
                    r.rows[0][2].1,
                    Value::Bool(true),
                    "{addressing:?} {secured}"
                );
                r.frames.unwrap()
            };
            let (short, extended) = (
                run(2, LinkAddressing::Short),
                run(2, LinkAddressing::Extended),
            );
            if !secured {
                // one hop: IPHC elides both IPv6 addresses under either
                // addressing, so a data frame grows by just its MAC header
                let (a, b) = (
                    run(1, LinkAddressing::Short),
                    run(1, LinkAddressing::Extended),
                );
                assert_eq!(a[0].frame.len() + 12, b[0].frame.len());
            }
            assert_eq!(short.len(), extended.len());
            let mut acks = 0;
            for (a, b) in short.iter().zip(&extended) {
                assert_eq!(a.node, b.node);
                let body_len = |f: &[u8]| match Repr::parse_with_fcs(f).map(|r| r.body) {
                    Ok(Body::Data(p)) => Some(p.len()),
                    _ => None,
                };
                if sim::mac::frame::Parsed::of(&a.frame).is_some_and(|p| p.is_ack()) {
                    // an Enhanced ACK: 6 bytes more of destination, 2 of PAN ID
                    acks += 1;
                    assert_eq!(b.frame.len(), a.frame.len() + 8, "ACK, secured {secured}");
                    if !secured {
                        let repr = Repr::parse_with_fcs(&b.frame).unwrap();
                        assert_eq!(repr.dst_pan, Some(sim::mac::address::PAN_ID));
                        assert!(matches!(repr.dst_addr, Address::Extended(_)));
                    }
                } else if !secured {
                    // the MAC header grows by 6 bytes per address; IPHC elides
                    // what the link addresses give and carries the rest
                    let header = |f: &[u8]| f.len() - body_len(f).unwrap();
                    assert_eq!(header(&b.frame), header(&a.frame) + 12);
                    let repr = Repr::parse_with_fcs(&b.frame).unwrap();
                    assert_eq!(repr.src_addr, Address::Extended(extended_addr(b.node)));
                    assert!(matches!(repr.dst_addr, Address::Extended(_)));
                } else {
                    assert!(b.frame.len() >= a.frame.len() + 6);
                }
            }
            assert!(acks >= 10, "{acks} ACKs, secured {secured}");
        }
    }

    #[test]
    fn radios_sleep_outside_their_cells() {
        let s = scenario(2, 101, 1, 1.0);
        let r = run_replication(&s, 0, false, &[]).unwrap();
        let row = &r.rows[0];
        // node 1 forwards both ways; its radio is on for a few ms per cell,
        // far below 5 % of the time (4 cells per 1.01 s slotframe)
        let rx = float(row, "node1_radio_rx_uj");
        let off = float(row, "node1_radio_off_uj");
        let rx_share = (rx / 20.0) / (rx / 20.0 + off / 0.0013);
        assert!(rx_share < 0.05, "{rx_share}");
    }
}

/// X-MAC as Cooja's native motes run it (scenarios/cooja-xmac.toml): CI
/// 250 ms, 6 ms on, strobes 6.736 ms apart, the first 10 ms after the
/// datagram; `ticks` says whether the mote runs as a Cooja mote
/// (`cooja_mote_ticks`: its duty cycle on 1 ms ticks counted from its last
/// radio event, its strobe loop step by step, 2 ms turnarounds, the
/// radio's CCA before each frame).
fn cooja_xmac(phase: u64, ticks: bool) -> XmacParams {
    XmacParams {
        phase_us: Some(phase),
        on_time_us: 6_000,
        strobe_period_us: 6_736,
        first_strobe_lead_us: Some(10_000),
        strobe_time_us: 268_000,
        data_wait_us: 12_000,
        encounter_optimization: false,
        listen_window_in_clock_ticks: false,
        backoff_in_clock_ticks: false,
        busy_send_cpu: false,
        cooja_mote_ticks: ticks,
        // the oracle firmware's 8-byte link addresses, with Cooja's airtime
        addressing: sim::mac::address::LinkAddressing::from_extended(ticks),
        ..XmacParams::contiki(250_000)
    }
}

/// A two-node world; with `cooja`, frames on the air as long as in Cooja
/// (a 25-byte strobe 736 µs, [`Airtime::Cooja`]), as the oracle's
/// scenario runs.
fn pair_world(cooja: bool) -> World {
    let mut world = World::new(Topology::line(2, 1.0).unwrap(), 3, 0);
    if cooja {
        world.channel.airtime = Airtime::Cooja;
    }
    world
}

/// When node 1 (waking at `wake` + k·250 ms) first sends a strobe ACK to a
/// train that node 0 starts at 11 ms (None: not in 2 s).
fn first_strobe_ack(wake: u64, ticks: bool) -> Option<u64> {
    let world = pair_world(ticks);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 10, 1, 1000)), Box::new(Idle)];
    let macs: Vec<NodeMac> = vec![
        Xmac::new(cooja_xmac(200_000, ticks)).into(),
        Xmac::new(cooja_xmac(wake, ticks)).into(),
    ];
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim.run(2_000_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    sent.iter().find(|s| s.node == 1).map(|s| s.at)
}

#[test]
fn a_cooja_mote_window_opens_whole_milliseconds_after_the_last_frame_end() {
    // Off Cooja: node 0's strobes (608 µs each) start at 11 000 + 6 736·k
    // µs; node 1's window [85 000, 91 000] hears strobe 11 (85 096-85 704)
    // and answers after the 192 µs turnaround.
    assert_eq!(first_strobe_ack(85_000, false), Some(85_704 + 192));
    // On Cooja's motes strobes take 736 µs and leave 6 ms after the last
    // one ended (the strobe loop's reads and turnaround): 11 000 + 6 736·k,
    // strobe 9 ending at 72 360, strobe 10 running 78 360-79 096, strobe 11
    // 85 096-85 832, strobe 12 91 832-92 568. A wake-up due at the 79 ms
    // tick runs 0.360 ms late (strobe 9's end was 0.360 ms past its tick),
    // unless a frame end wakes it first: strobe 10's at 79 096. That window
    // [79 096, 85 096] closes as strobe 11 begins, and the next (329 ms)
    // comes after the train: unanswered. (csma's later trains meet the
    // same fate: each window opens as a strobe of theirs ends.)
    assert!(first_strobe_ack(79_000, true).is_none_or(|at| at > 268_000));
    // Due at the 86 ms tick, the window opens at 86 832 (strobe 11's end
    // was the last) and hears strobe 12, answered 2 ms after its end
    // (cooja-radio.c's turnaround).
    assert_eq!(first_strobe_ack(86_000, true), Some(92_568 + 2_000));
}

/// Node 0 (waking at 200 ms) about to strobe node 1 from 11 ms as in
/// `first_strobe_ack`; node 1 wakes at `wake` + k·250 ms. Both re-base
/// their duty cycle after busy periods, as the oracle's scenario does.
fn rebasing_pair(wake: u64) -> Sim<Record> {
    let world = pair_world(true);
    let apps: Vec<Box<dyn App<Record>>> = vec![Box::new(ping(1, 10, 1, 1000)), Box::new(Idle)];
    let rebasing = |phase| XmacParams {
        rebase_after_send: true,
        rebase_after_ack: true,
        ..cooja_xmac(phase, true)
    };
    let macs: Vec<NodeMac> = vec![
        Xmac::new(rebasing(200_000)).into(),
        Xmac::new(rebasing(wake)).into(),
    ];
    let mut sim = Sim::new(world, stacks(macs, apps));
    sim.world.sent = Some(Vec::new());
    sim.start();
    sim
}

/// `rebasing_pair`, node 1 handed a datagram for node 0 at `send_at`, so
/// its csma sends while node 0's train is on the air. Returns the
/// simulation after 300 ms.
fn sends_into_a_train(wake: u64, send_at: u64) -> Sim<Record> {
    let mut sim = rebasing_pair(wake);
    sim.run(send_at, |_| false);
    let mut cx = sim.world.cx(1);
    sim.stacks[1].mac.send(&mut cx, 0, vec![0xAA; 10]);
    sim.run(300_000, |_| false);
    sim
}

#[test]
fn a_cooja_mote_reads_a_frame_heard_in_its_lead_only_at_the_loops_reads() {
    // Node 0's strobes run 11 000 + 6 736·k µs for 736 µs: strobe 10 ends
    // at 79 096. Node 1's send begins at 72.5 ms; its lead's wait loop
    // reads the radio 4 and 6 ms in (COOJA_LEAD_UNREAD_US): strobe 10,
    // ending 6.596 ms in, is read only after node 1's first strobe (82 500-
    // 83 236) has gone, which ends its train as a collision. Node 0 hears
    // that strobe past its loop's wait after strobe 10 (its last read was
    // at 81 096; it left the wait at 82 096, and the strobe's start and end
    // wake its two turnaround yields): its strobe 11 leaves at 83 236 + 1
    // ms = 84 236, 0.86 ms early, and the strobe waiting in its radio is
    // read after it, a collision: 12 strobes instead of all 39.
    let sim = sends_into_a_train(120_000, 72_500);
    assert_eq!(sim.stacks[1].mac.stats().strobes_sent, 1);
    assert_eq!(sim.stacks[0].mac.stats().strobes_sent, 12);
    let sent = sim.world.sent.as_ref().unwrap();
    let first = sent.iter().find(|s| s.node == 1).expect("node 1's strobe");
    assert_eq!(first.at, 82_500);
}

#[test]
fn after_a_collision_read_in_its_lead_a_cooja_mote_opens_the_window_due_when_its_send_began() {
    // Node 1's send and its wake-up are both due at 75 ms. csma's send runs
    // first; strobe 10 ends (79 096) within the lead's reads, so no strobe
    // goes out and the send returns at the lead's last read, 6 ms in: the
    // 81 ms tick, run 0.096 ms late (the last frame end heard was 0.096 ms
    // past its tick): 81 096. The wake-up due at 75 ms opens its window
    // then, [81 096, 87 096], which hears strobe 11 (85 096-85 832): node 1
    // answers it 2 ms after its end. Had the lead ended at once on hearing
    // strobe 10, the window would have closed at 81 ms, before strobe 11,
    // and node 0's train would have gone unanswered.
    let sim = sends_into_a_train(75_000, 75_000);
    assert_eq!(sim.stacks[1].mac.stats().strobes_sent, 0);
    let sent = sim.world.sent.as_ref().unwrap();
    let ack = sent
        .iter()
        .find(|s| s.node == 1)
        .expect("node 1's strobe ACK");
    assert_eq!(ack.at, 85_832 + 2_000);
}

/// `rebasing_pair`, node 1 handed a datagram for node 0 just after its
/// strobe ACK has left. Returns the data frames node 1 received and its
/// first ACK's start.
fn sends_while_waiting_for_data(wake: u64) -> (u64, u64) {
    let mut sim = rebasing_pair(wake);
    sim.run(300_000, |s| {
        s.world.sent.as_ref().unwrap().iter().any(|f| f.node == 1)
    });
    let ack = sim
        .world
        .sent
        .as_ref()
        .unwrap()
        .iter()
        .find(|f| f.node == 1)
        .unwrap()
        .at;
    // the ACK is a 25-byte frame without a 6LoWPAN payload
    sim.run(ack + Airtime::Cooja.of(&[0; 25]) + 1, |_| false);
    let mut cx = sim.world.cx(1);
    sim.stacks[1].mac.send(&mut cx, 0, vec![0xAA; 10]);
    sim.run(300_000, |_| false);
    (sim.stacks[1].mac.stats().data_frames_received, ack)
}

#[test]
fn a_cooja_mote_waiting_for_the_data_it_acknowledged_refuses_to_send() {
    // Node 1's window, due at the 84 ms tick, opens 0.096 ms late (the last
    // frame end heard, strobe 10's, was 79 096) and hears strobe 11 (85 096-
    // 85 832): it answers 2 ms after its end and waits for the data,
    // `someone_is_sending` at 1 (node 0 reads the ACK, whose strobe ended
    // in the millisecond it began, and sends the data 3 ms after it). A
    // datagram handed down now finds it set (cxmac.c `qsend_packet`): csma
    // backs off and node 0's data frame is received. No wake-up has run
    // since: the window re-based after the ACK is the same one, and must not
    // count as one that took `someone_is_sending` down (it did, and node 1
    // went into its lead, where the data frame was read as a collision).
    let (received, ack) = sends_while_waiting_for_data(84_000);
    assert_eq!(ack, 85_832 + 2_000);
    assert_eq!(received, 1);
}

/// `rebasing_pair(86 ms)` with two datagrams handed to node 0 at 1 ms, and
/// one to node 1 for node 0 at `reply_at` (None: none): every frame sent
/// in the first 700 ms, as (node, start, bytes).
fn two_queued_datagrams(reply_at: Option<u64>) -> Vec<(usize, u64, usize)> {
    let mut sim = rebasing_pair(86_000);
    sim.run(1_000, |_| false);
    for _ in 0..2 {
        let mut cx = sim.world.cx(0);
        sim.stacks[0].mac.send(&mut cx, 1, vec![0xAA; 10]);
    }
    if let Some(at) = reply_at {
        sim.run(at, |_| false);
        let mut cx = sim.world.cx(1);
        sim.stacks[1].mac.send(&mut cx, 0, vec![0xBB; 10]);
    }
    sim.run(700_000, |_| false);
    let sent = sim.world.sent.as_ref().unwrap();
    sent.iter().map(|s| (s.node, s.at, s.frame.len())).collect()
}

#[test]
fn a_cooja_motes_next_datagram_waits_for_its_tick() {
    // Node 0's first datagram: its data frame (42 bytes, 1 280 µs on
    // Cooja's air) runs 101 776-103 056. csma's ctimer for the next one is
    // set in the 103 ms clock tick and expires 250 ticks later, at the
    // 353 ms tick; the mote runs there as its 1 ms ticks fall, counted from
    // the last frame end it heard. Alone, that is its own data's end:
    // 353 056, and the train leaves 10 ms later.
    let alone = two_queued_datagrams(None);
    assert!(alone.contains(&(0, 101_776, 42)), "{alone:?}");
    assert!(alone.contains(&(0, 353_056 + 10_000, 25)), "{alone:?}");
    // Node 1's datagram for node 0 meanwhile: its data frame (33 bytes,
    // 992 µs) runs 210 360-211 352, the last frame end node 0 hears before
    // the 353 ms tick: the timer runs at 353 352, the train leaves at
    // 363 352 (not 103 056 + 260 000, as a timer of exact microseconds
    // would have it).
    let replied = two_queued_datagrams(Some(150_000));
    assert!(replied.contains(&(0, 101_776, 42)), "{replied:?}");
    assert!(replied.contains(&(1, 210_360, 33)), "{replied:?}");
    assert!(replied.contains(&(0, 353_352 + 10_000, 25)), "{replied:?}");
}
