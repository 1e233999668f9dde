//! Which tree RPL settles on in the storm's square, beside the computed
//! least-ETX tree: RPL's control traffic alone (rpl::control_plane, its
//! link layer reduced to the links' delivery ratios) over the topology
//! `tsch-storm-1000` draws (seed 1000, replication 0), or its 100-node
//! variant.
//!
//! `cargo run --release -p dtlsim-sim --example rpl_trunks -- NODES SIDE_M START HOURS VARIANT`
//! with `start` = `once` (every node starts RPL at 0) or `joins` (each at an
//! exponential time of mean 60 s, the storm's wait, not before its
//! computed parent: the order in which a pledge joins), HOURS simulated,
//! and VARIANT one of `contiki` (Contiki-NG 4.9's defaults), `no-probing`
//! (without its link probes) or `threshold-192` (RFC 6719 §5's
//! PARENT_SWITCH_THRESHOLD instead of Contiki-NG's 96).

use sim::rng::{stream, Purpose, NETWORK};
use sim::rpl::control_plane::{run, trunks, LinkLayer};
use sim::rpl::node::RplParams;
use sim::topology::Topology;
use sim::Time;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nodes: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let side: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(632.5);
    let joins = args.get(3).is_some_and(|s| s == "joins");
    let seed = 1000;
    let mut rng = stream(seed, 0, NETWORK - 1, Purpose::Topology);
    let t = Topology::random_disk(nodes, side, 40.0, &mut rng).expect("a connected square");
    let computed: Vec<Option<usize>> = (0..nodes).map(|v| t.next_hop(v, 0)).collect();
    let start: Vec<Time> = if joins {
        // the storm's wait, after the computed parent's start
        let mut r = stream(seed, 0, NETWORK - 2, Purpose::App);
        let mut own: Vec<Time> = (0..nodes)
            .map(|v| {
                if v == 0 {
                    return 0;
                }
                let u = (rand::RngExt::random::<f64>(&mut r)).max(1e-12);
                (-u.ln() * 60e6) as Time
            })
            .collect();
        // a node starts after its parent: by hop order
        let mut order: Vec<usize> = (0..nodes).collect();
        order.sort_by_key(|&v| t.hops(v, 0).unwrap_or(0));
        for v in order {
            if let Some(p) = computed[v] {
                own[v] = own[v].max(own[p]);
            }
        }
        own
    } else {
        vec![0; nodes]
    };
    let hours: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let hour: Time = 3_600_000_000 * hours;
    let wall = std::time::Instant::now();
    // mac.tsch.max_retries 3 as in the storm; a hop takes half the storm's
    // 101-slot slotframe of 10 ms slots on average (estimate: the wait for
    // a cell that comes once per slotframe, without queueing)
    let link = LinkLayer {
        max_retries: 3,
        latency_us: 505_000,
    };
    // docs/rpl.md's tables were measured before DIS was modelled: without
    // it, so that they stay what this example prints
    let mut params = RplParams {
        dis_interval_us: 0,
        ..RplParams::CONTIKI_NG
    };
    match args.get(5).map(String::as_str) {
        None | Some("contiki") => {}
        Some("no-probing") => params.probing_interval_us = 0,
        Some("threshold-192") => params.mrhof.parent_switch_threshold = 192,
        Some(other) => {
            eprintln!("variant {other:?}: one of contiki, no-probing, threshold-192");
            std::process::exit(2);
        }
    }
    let r = run(&t, 0, params, &start, hour, link, seed);
    let wall = wall.elapsed().as_secs_f64();
    let rpl: Vec<Option<usize>> = r.nodes.iter().map(|n| n.parent()).collect();
    let (ct, cd) = trunks(&computed, 0);
    let (rt, rd) = trunks(&rpl, 0);
    println!(
        "nodes {nodes}, side {side} m, start {}",
        if joins { "joins" } else { "once" }
    );
    println!(
        "computed tree: root children carrying {:?}, deepest {cd} hops",
        ct
    );
    println!(
        "RPL at the end: root children carrying {:?}, deepest {rd} hops",
        rt
    );
    let same = (1..nodes).filter(|&v| rpl[v] == computed[v]).count();
    println!("same parent as the computed tree: {same} of {}", nodes - 1);
    let s: Vec<_> = r.nodes.iter().map(|n| n.stats()).collect();
    let sum = |f: &dyn Fn(&sim::rpl::node::RplStats) -> u64| s.iter().map(f).sum::<u64>();
    let max = |f: &dyn Fn(&sim::rpl::node::RplStats) -> u64| s.iter().map(f).max().unwrap_or(0);
    println!(
        "DIO sent {} (max {} per node), suppressed {}, received {}",
        sum(&|x| x.dio_sent),
        max(&|x| x.dio_sent),
        sum(&|x| x.dio_suppressed),
        sum(&|x| x.dio_received)
    );
    println!(
        "DAO own {}, forwarded {} (max {} at one relay), No-Path {}, loops {}, at the root {}",
        sum(&|x| x.dao_sent),
        sum(&|x| x.dao_forwarded),
        max(&|x| x.dao_forwarded),
        sum(&|x| x.no_path_sent),
        sum(&|x| x.dao_loops),
        s[0].dao_received
    );
    println!(
        "parent switches {} (max {} at one node), parent losses {}, malformed {}",
        sum(&|x| x.parent_switches),
        max(&|x| x.parent_switches),
        sum(&|x| x.parent_losses),
        sum(&|x| x.malformed)
    );
    let mut routed: Vec<Time> = (1..nodes)
        .filter_map(|v| r.nodes[0].first_route_at(v))
        .collect();
    routed.sort_unstable();
    let pct = |q: f64| -> String {
        let k = ((nodes - 1) as f64 * q).ceil() as usize;
        routed
            .get(k.saturating_sub(1))
            .map_or("—".into(), |t| format!("{:.0}", *t as f64 / 1e6))
    };
    println!(
        "a route at the root: {} of {} at the end; t50 {} s, t90 {} s, t99 {} s",
        r.nodes[0].routes().len(),
        nodes - 1,
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );
    println!("frames on the air {}, wall {wall:.2} s", r.frames);
    println!(
        "the root: {} DIOs sent; its children's DAOs forwarded to it: {:?}",
        s[0].dio_sent,
        rt.iter()
            .map(|&(c, _)| (c, s[c].dao_forwarded + s[c].dao_sent + s[c].no_path_sent))
            .collect::<Vec<_>>()
    );
}
