//! Write the fuzz targets' seed corpora from real traffic:
//! `cargo run -p dtlsim-fuzz --example write_seeds -- <corpus dir> [points.json]`.
//!
//! Seeds are the datagrams of the recorded handshakes (`recorded`), each
//! endpoint seed being "replay k datagrams, then the k-th real one"; the
//! handshake messages and certificates inside them; the standard's CCM*
//! frames; and, given `points.json` (a JSON array of settled scenario
//! points, as `scripts/fuzz.sh seed` writes from the shipped scenarios),
//! those points as TOML and the 802.15.4 frames and 6LoWPAN payloads their
//! simulated runs put on the air.

use std::fs;
use std::path::{Path, PathBuf};

use dtls::cert::p256_spki;
use dtls::crypto::ecc::self_signed_certificate;
use dtls::v13::ack::{Ack, RecordNumber};
use dtls::Secret;
use fuzz_harness::input::frame;
use fuzz_harness::recorded::{handshake12, handshake13, Handshake12, Recording};
use fuzz_harness::scenario::MAX_RUN_NODES;
use wpan::ccm_star::{secure_frame, Key, NonceSource};
use wpan::frame::{Body, Repr};

struct Out {
    dir: PathBuf,
}

impl Out {
    fn put(&self, target: &str, name: &str, bytes: &[u8]) {
        let d = self.dir.join(target);
        fs::create_dir_all(&d).expect("corpus directory");
        fs::write(d.join(name), bytes).expect("seed file");
    }
}

/// The plaintext (epoch 0) handshake records of a DTLS 1.2 datagram: each
/// record's fragment (12-byte header and body).
fn handshake_fragments12(datagram: &[u8]) -> Vec<Vec<u8>> {
    let (records, _) = dtls::v12::record::header::split_datagram(datagram);
    records
        .into_iter()
        .filter(|(h, _)| {
            h.epoch == 0 && h.content_type == dtls::v12::record::ContentType::Handshake
        })
        .map(|(_, f)| f.to_vec())
        .collect()
}

fn endpoint_seeds(out: &Out, target: &str, tag: &str, choice: u8, sent: &[(u64, Vec<u8>)]) {
    for k in 0..=sent.len() {
        let next: Vec<&[u8]> = sent.get(k).map(|(_, d)| d.as_slice()).into_iter().collect();
        let mut seed = vec![choice | k as u8];
        seed.extend(frame(&next));
        out.put(target, &format!("{tag}-after-{k:02}"), &seed);
    }
}

fn dtls12(out: &Out) {
    for (h, tag, high) in [
        (Handshake12::Psk, "psk", 0u8),
        (Handshake12::EcdheMutual, "ecdhe", 0x80),
    ] {
        let rec: &Recording = handshake12(h);
        endpoint_seeds(out, "dtls12_server", tag, high, &rec.c2s);
        endpoint_seeds(out, "dtls12_client", tag, high, &rec.s2c);
        let all = rec.c2s.iter().chain(&rec.s2c);
        for (i, (_, d)) in all.enumerate() {
            out.put("dtls12_record", &format!("{tag}-{i:02}"), d);
            for (j, f) in handshake_fragments12(d).into_iter().enumerate() {
                let name = format!("{tag}-{i:02}-{j}");
                out.put("dtls12_handshake_messages", &format!("{name}-fragment"), &f);
                out.put(
                    "dtls12_handshake_messages",
                    &format!("{name}-body"),
                    &f[12..],
                );
                if f[0] == 11 {
                    // Certificate: the message body is a chain
                    out.put("certificates", &format!("{name}-chain"), &f[12..]);
                }
            }
        }
    }
}

fn dtls13(out: &Out) {
    let rec = handshake13();
    endpoint_seeds(out, "dtls13_server", "psk", 0, &rec.c2s);
    for (i, (_, d)) in rec.c2s.iter().chain(&rec.s2c).enumerate() {
        out.put("dtls13_records", &format!("psk-{i:02}"), d);
        let (records, _) = dtls::v13::header::split_datagram(d, 0);
        for (j, r) in records.iter().enumerate() {
            if let dtls::v13::header::Header13::Plaintext(_) = r.header {
                // a plaintext handshake record: 12-byte header, then the body
                if r.body.len() > 12 {
                    out.put("dtls13_messages", &format!("psk-{i:02}-{j}"), &r.body[12..]);
                }
            }
        }
    }
    let mut ack = Ack::new();
    ack.insert(RecordNumber { epoch: 2, seq: 0 });
    ack.insert(RecordNumber { epoch: 2, seq: 1 });
    let mut a = Vec::new();
    ack.encode(&mut a);
    out.put("dtls13_messages", "ack", &a);
}

fn certificates(out: &Out) {
    for (b, name) in [(3u8, "server"), (5, "client")] {
        let key = Secret(vec![b; 32]);
        let cert = self_signed_certificate(&key, name).expect("a P-256 key");
        out.put("certificates", &format!("x509-{name}"), &cert);
        let point = dtls::crypto::ecc::public_of(&key).expect("a P-256 key");
        out.put("certificates", &format!("rpk-{name}"), &p256_spki(&point));
    }
}

/// IEEE 802.15.4-2015 Annex C.2 frames, secured with the Annex C key.
fn ccm_star(out: &Out) {
    // C.2.2 data frame (ENC) and C.2.3 command frame (ENC-MIC-64), unsecured
    let frames: [(&str, &[u8]); 2] = [
        (
            "annex-c-data",
            &[
                0x69, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x01,
                0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x04, 0x05, 0x00, 0x00, 0x00, 0x61, 0x62,
                0x63, 0x64,
            ],
        ),
        (
            "annex-c-command",
            &[
                0x2B, 0xDC, 0x84, 0x21, 0x43, 0x02, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0xFF,
                0xFF, 0x01, 0x00, 0x00, 0x00, 0x00, 0x48, 0xDE, 0xAC, 0x06, 0x05, 0x00, 0x00, 0x00,
                0x01, 0xCE,
            ],
        ),
    ];
    let key = Key::new(&fuzz_harness::wpan_frames::ANNEX_C_KEY);
    for (name, plain) in frames {
        out.put("wpan_frame", name, plain);
        let mut m = plain.to_vec();
        secure_frame(&mut m, &key, NonceSource::FROM_FRAME).expect("Annex C frames secure");
        let mut seed = vec![0];
        seed.extend(&m);
        out.put("wpan_ccm_star", name, &seed);
    }
}

/// Scenario points as TOML, and the frames of their runs.
fn scenarios(out: &Out, points: &Path) {
    let text = fs::read_to_string(points).expect("points file");
    let points: Vec<serde_json::Value> = serde_json::from_str(&text).expect("a JSON array");
    let platform: serde_json::Value =
        serde_json::from_str(include_str!("../src/platform-telosb.json")).expect("figures");
    for (i, p) in points.iter().enumerate() {
        let id = p["experiment"]["id"]
            .as_str()
            .unwrap_or("point")
            .to_string();
        let toml = toml::to_string(p).expect("a point is a TOML table");
        out.put("scenario", &format!("{id}-{i:02}.toml"), toml.as_bytes());
        let Ok(mut s) = schema::simulation(p, &platform) else {
            continue;
        };
        let nodes = s.topology.nodes();
        if nodes > MAX_RUN_NODES {
            continue;
        }
        s.max_time_us = s.max_time_us.min(s.start_us + 20_000_000);
        let Ok(r) = sim::run::run_replication(&s, 0, true, &[]) else {
            continue;
        };
        let mut kept = std::collections::BTreeSet::new();
        for f in r.frames.unwrap_or_default() {
            let Ok(mpdu) = wpan::fcs::check(&f.frame) else {
                continue;
            };
            // one frame of each length and first bytes: small, varied seeds
            if !kept.insert((mpdu.len(), mpdu[..mpdu.len().min(3)].to_vec())) || kept.len() > 40 {
                continue;
            }
            let name = format!("{id}-{i:02}-{}", kept.len());
            out.put("wpan_frame", &name, mpdu);
            if let Ok(Repr {
                body: Body::Data(payload),
                ..
            }) = Repr::parse(mpdu)
            {
                if !payload.is_empty() {
                    let mut seed = vec![0x0a];
                    seed.extend(frame(&[&payload]));
                    out.put("wpan_sixlowpan", &name, &seed);
                }
            }
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .expect("usage: write_seeds <corpus dir> [points.json]"),
    );
    let out = Out { dir };
    dtls12(&out);
    dtls13(&out);
    certificates(&out);
    ccm_star(&out);
    if let Some(points) = args.next() {
        scenarios(&out, Path::new(&points));
    }
}
