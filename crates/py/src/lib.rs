//! `dtlsim._core`: the Rust crates seen from Python. This module converts
//! arguments and results and maps errors; every decision lives in the crates.

use models::overhead::{
    self, AddrMode, Compression, DtlsVersion, FrameConfig, UdpPorts, UnifiedHeader,
};
use models::security::{AuxHeader, SecurityLevel};
use models::timeslot::{self, CcmCost, SlotSetup};
use models::{engset as engset_model, tsch, ModelError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

mod bench;
mod scenario;
mod simulate;
mod udp;
mod udp13;

fn err(e: ModelError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Build a dict from `key => value` pairs.
macro_rules! dict {
    ($py:expr, { $($k:literal => $v:expr),* $(,)? }) => {{
        let d = PyDict::new($py);
        $( d.set_item($k, $v)?; )*
        d
    }};
}

/// One 802.15.4 frame configuration (addressing, link security, 6LoWPAN).
#[pyclass(frozen, module = "dtlsim._core")]
#[derive(Clone)]
struct FrameSpec {
    inner: FrameConfig,
}

#[pymethods]
impl FrameSpec {
    #[new]
    #[pyo3(signature = (*, max_frame=127, dst="short", src="short", pan_id_compression=true,
        level="none", key_id_mode=1, frame_counter_suppressed=false, compression="link-local",
        udp_ports="inline", udp_checksum_elided=false, hop_limit_inline=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        max_frame: usize,
        dst: &str,
        src: &str,
        pan_id_compression: bool,
        level: &str,
        key_id_mode: u8,
        frame_counter_suppressed: bool,
        compression: &str,
        udp_ports: &str,
        udp_checksum_elided: bool,
        hop_limit_inline: bool,
    ) -> PyResult<Self> {
        let inner = FrameConfig {
            max_frame,
            dst: AddrMode::from_name(dst).map_err(err)?,
            src: AddrMode::from_name(src).map_err(err)?,
            pan_id_compression,
            level: models::security::level_named(level).map_err(err)?,
            aux: AuxHeader::new(key_id_mode, frame_counter_suppressed).map_err(err)?,
            compression: Compression::from_name(compression).map_err(err)?,
            udp_ports: UdpPorts::from_name(udp_ports).map_err(err)?,
            udp_checksum_elided,
            hop_limit_inline,
        };
        inner.budget().map_err(err)?;
        Ok(FrameSpec { inner })
    }

    /// Where the bytes of one frame go.
    fn budget<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.inner.budget().map_err(err)?;
        Ok(dict!(py, {
            "mac_header" => b.mac_header,
            "aux_security_header" => b.aux_security_header,
            "mic" => b.mic,
            "fcs" => b.fcs,
            "mac_payload" => b.mac_payload,
            "sixlowpan_ipv6" => b.sixlowpan_ipv6,
            "udp" => b.udp,
            "udp_payload" => b.udp_payload,
        }))
    }

    /// 802.15.4 frames needed for a UDP payload of `udp_payload` bytes.
    fn frames_for(&self, udp_payload: usize) -> PyResult<usize> {
        self.inner.frames_for(udp_payload).map_err(err)
    }
}

fn unified(cid_len: usize, seq_len: usize, length_present: bool, padding: usize) -> UnifiedHeader {
    UnifiedHeader {
        cid_len,
        seq_len,
        length_present,
        padding,
    }
}

fn find_suite(version: &str, suite: Option<&str>) -> PyResult<Option<&'static overhead::Suite>> {
    let v = DtlsVersion::from_name(version).map_err(err)?;
    suite
        .map(|s| overhead::suite(v, s).map_err(err))
        .transpose()
}

/// Every suite dtlsim knows, with its record protection.
#[pyfunction]
fn suites<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    overhead::SUITES
        .iter()
        .map(|s| {
            let (kind, tag) = match s.protection {
                overhead::Protection::Aead { tag } => ("aead", tag),
                overhead::Protection::Cbc { mac } => ("cbc", mac),
            };
            let version = match s.version {
                DtlsVersion::V1_2 => "1.2",
                DtlsVersion::V1_3 => "1.3",
            };
            Ok(
                dict!(py, {"name" => s.name, "iana" => s.iana, "version" => version,
                "protection" => kind, "tag_or_mac" => tag}),
            )
        })
        .collect()
}

/// Bytes one DTLS record adds around `app_len` bytes, and what that costs in frames.
#[pyfunction]
#[pyo3(signature = (frame, version, suite, app_len, *, cid_len=0, seq_len=1, length_present=false, padding=0))]
#[allow(clippy::too_many_arguments)]
fn datagram_cost<'py>(
    py: Python<'py>,
    frame: &FrameSpec,
    version: &str,
    suite: Option<&str>,
    app_len: usize,
    cid_len: usize,
    seq_len: usize,
    length_present: bool,
    padding: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let s = find_suite(version, suite)?;
    let u = unified(cid_len, seq_len, length_present, padding);
    let c = overhead::datagram_cost(&frame.inner, s, u, app_len).map_err(err)?;
    Ok(dict!(py, {
        "record_header" => c.record.header,
        "nonce_or_iv" => c.record.nonce_or_iv,
        "tag_or_mac" => c.record.tag_or_mac,
        "padding" => c.record.padding,
        "record_overhead" => c.record.total(),
        "udp_payload" => c.udp_payload,
        "frames" => c.frames,
    }))
}

/// Bytes OSCORE (RFC 8613) adds to a CoAP message of `payload` bytes: a
/// Confirmable POST request carrying a Partial IV for `sequence` and a kid
/// of `kid_len` bytes, or (`request=False`) its piggybacked 2.04 response,
/// which carries neither (RFC 8613 section 8.3).
#[pyfunction]
#[pyo3(signature = (payload, *, request=true, kid_len=1, sequence=0))]
fn oscore_overhead(payload: usize, request: bool, kid_len: usize, sequence: u64) -> usize {
    use coap::message::{code, option, Message, Type};
    use coap::oscore::{overhead, Sender};
    let kid = vec![0u8; kid_len];
    let (m, s) = if request {
        let m = Message::new(Type::Confirmable, code::POST, 1, &[0])
            .with_option(option::URI_PATH, b"r".to_vec());
        let s = Sender {
            partial_iv: Some(sequence),
            kid: Some(&kid),
        };
        (m, s)
    } else {
        let m = Message::new(Type::Acknowledgement, code::CHANGED, 1, &[0]);
        let s = Sender {
            partial_iv: None,
            kid: None,
        };
        (m, s)
    };
    overhead(&m.with_payload(vec![0; payload]), &s)
}

/// Largest application payload in one frame (None if not even an empty record fits).
#[pyfunction]
#[pyo3(signature = (frame, version, suite, *, cid_len=0, seq_len=1, length_present=false, padding=0))]
fn max_unfragmented_app_payload(
    frame: &FrameSpec,
    version: &str,
    suite: Option<&str>,
    cid_len: usize,
    seq_len: usize,
    length_present: bool,
    padding: usize,
) -> PyResult<Option<usize>> {
    let s = find_suite(version, suite)?;
    let u = unified(cid_len, seq_len, length_present, padding);
    overhead::max_unfragmented_app_payload(&frame.inner, s, u).map_err(err)
}

/// Expected TSCH handshake latency: the closed form (1 + L/(C+1))/P and the exact expectation.
#[pyfunction]
fn tsch_handshake<'py>(
    py: Python<'py>,
    slotframe: u32,
    cells: Vec<u32>,
    pdr: Vec<f64>,
    frames: u32,
    timeslot_ms: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if cells.len() != pdr.len() {
        return Err(PyValueError::new_err(format!(
            "cells per hop ({}) and pdr per hop ({}) must have the same length",
            cells.len(),
            pdr.len()
        )));
    }
    let hops: Vec<tsch::Hop> = cells
        .iter()
        .zip(&pdr)
        .map(|(&cells, &pdr)| tsch::Hop { cells, pdr })
        .collect();
    let r = tsch::handshake_latency(slotframe, &hops, frames, timeslot_ms).map_err(err)?;
    let per_hop: Vec<(f64, f64)> = r
        .hops
        .iter()
        .map(|h| (h.closed_form_slots, h.exact_slots))
        .collect();
    Ok(dict!(py, {
        "per_hop_slots" => per_hop,
        "closed_form_slots_per_frame" => r.closed_form_slots_per_frame,
        "exact_slots_per_frame" => r.exact_slots_per_frame,
        "closed_form_s" => r.closed_form_s,
        "exact_s" => r.exact_s,
    }))
}

/// M/M/R/R/N blocking: time and call congestion and the busy-slot distribution.
#[pyfunction]
fn engset<'py>(
    py: Python<'py>,
    slots: u32,
    clients: u32,
    erlang: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let r = engset_model::engset(slots, clients, erlang).map_err(err)?;
    Ok(dict!(py, {
        "busy_distribution" => r.busy_distribution,
        "time_congestion" => r.time_congestion,
        "call_congestion" => r.call_congestion,
        "carried_erlang" => r.carried_erlang,
        "request_rate_per_holding_time" => r.request_rate_per_holding_time,
    }))
}

/// Minimal TSCH timeslot for one platform strategy (numbers from its file).
#[pyfunction]
#[pyo3(signature = (level, *, setup_us, aes_block_us, per_block_overhead_us, bus_bytes_per_block,
    bus_us_per_byte, frame_bytes=127, key_id_mode=3, frame_counter_suppressed=false,
    max_ack_us=timeslot::DEFAULT_MAX_ACK_US, min_turnaround_us=timeslot::TURNAROUND_US,
    data_dst="extended", data_src="extended", ack_dst="extended", ack_dst_pan=true,
    key_lookup_us=0.0, bus_bytes_per_op=0.0, frame_over_bus=false, tx_prepare_us=0.0,
    ack_prepare_us=0.0))]
#[allow(clippy::too_many_arguments)]
fn minimal_timeslot<'py>(
    py: Python<'py>,
    level: &str,
    setup_us: f64,
    aes_block_us: f64,
    per_block_overhead_us: f64,
    bus_bytes_per_block: f64,
    bus_us_per_byte: f64,
    frame_bytes: usize,
    key_id_mode: u8,
    frame_counter_suppressed: bool,
    max_ack_us: f64,
    min_turnaround_us: f64,
    data_dst: &str,
    data_src: &str,
    ack_dst: &str,
    ack_dst_pan: bool,
    key_lookup_us: f64,
    bus_bytes_per_op: f64,
    frame_over_bus: bool,
    tx_prepare_us: f64,
    ack_prepare_us: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let cost = CcmCost {
        setup_us,
        aes_block_us,
        per_block_overhead_us,
        bus_bytes_per_block,
        bus_us_per_byte,
    };
    let setup = SlotSetup {
        frame_bytes,
        aux: AuxHeader::new(key_id_mode, frame_counter_suppressed).map_err(err)?,
        max_ack_us,
        min_turnaround_us,
        data_dst: AddrMode::from_name(data_dst).map_err(err)?,
        data_src: AddrMode::from_name(data_src).map_err(err)?,
        ack_dst: AddrMode::from_name(ack_dst).map_err(err)?,
        ack_dst_pan,
        stack: timeslot::StackCost {
            key_lookup_us,
            bus_bytes_per_op,
            frame_over_bus,
            tx_prepare_us,
            ack_prepare_us,
        },
        ..SlotSetup::largest(models::security::level_named(level).map_err(err)?)
    };
    let t = timeslot::minimal_timeslot(&cost, &setup).map_err(err)?;
    let d = dict!(py, {
        "data_blocks" => t.data_blocks,
        "ack_blocks" => t.ack_blocks,
        "ack_bytes" => setup.ack_bytes(),
        "sec1_us" => t.sec1_us,
        "sec2_us" => t.sec2_us,
        "sec3_us" => t.sec3_us,
        "sec4_us" => t.sec4_us,
        "max_tx_us" => t.max_tx_us,
        "max_ack_us" => t.max_ack_us,
        "tx_offset_us" => t.tx_offset_us,
        "tx_ack_delay_us" => t.tx_ack_delay_us,
        "slot_duration_us" => t.slot_duration_us,
        "app_bits_per_frame" => t.app_bits_per_frame,
        "tx_prepare_us" => t.tx_prepare_us,
        "ack_prepare_us" => t.ack_prepare_us,
    });
    for (n, p) in (1..).zip(t.parts) {
        d.set_item(format!("sec{n}_lookup_us"), p.lookup_us)?;
        d.set_item(format!("sec{n}_bus_us"), p.bus_us)?;
        d.set_item(format!("sec{n}_ccm_us"), p.ccm_us)?;
    }
    Ok(d)
}

/// Application rate bound N_i · A_j / (N_ts · TsSlotDuration) in bit/s.
#[pyfunction]
fn rate_bound_bps(
    owned_cells: u32,
    app_bits_per_frame: usize,
    slotframe: u32,
    slot_duration_us: f64,
) -> PyResult<f64> {
    timeslot::rate_bound_bps(owned_cells, app_bits_per_frame, slotframe, slot_duration_us)
        .map_err(err)
}

/// AES block operations of one CCM* operation (authenticated header, private payload).
#[pyfunction]
fn ccm_star_blocks(level: &str, header_len: usize, payload_len: usize) -> PyResult<usize> {
    let level = models::security::level_named(level).map_err(err)?;
    Ok(models::security::ccm_star_blocks(
        level,
        header_len,
        payload_len,
    ))
}

/// Duration of one CCM* operation with one platform strategy's cost model.
#[pyfunction]
#[pyo3(signature = (level, header_len, payload_len, *, setup_us, aes_block_us,
    per_block_overhead_us, bus_bytes_per_block, bus_us_per_byte))]
#[allow(clippy::too_many_arguments)]
fn ccm_star_duration_us(
    level: &str,
    header_len: usize,
    payload_len: usize,
    setup_us: f64,
    aes_block_us: f64,
    per_block_overhead_us: f64,
    bus_bytes_per_block: f64,
    bus_us_per_byte: f64,
) -> PyResult<f64> {
    let level = models::security::level_named(level).map_err(err)?;
    let cost = CcmCost {
        setup_us,
        aes_block_us,
        per_block_overhead_us,
        bus_bytes_per_block,
        bus_us_per_byte,
    };
    let blocks = models::security::ccm_star_blocks(level, header_len, payload_len);
    Ok(cost.duration_us(level, blocks))
}

/// Names of the eight IEEE 802.15.4 security levels, in level order.
#[pyfunction]
fn security_levels() -> Vec<&'static str> {
    SecurityLevel::ALL.iter().map(|l| l.name()).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_MESSAGES", udp::MAX_MESSAGES)?;
    m.add_class::<FrameSpec>()?;
    m.add_function(wrap_pyfunction!(suites, m)?)?;
    m.add_function(wrap_pyfunction!(datagram_cost, m)?)?;
    m.add_function(wrap_pyfunction!(max_unfragmented_app_payload, m)?)?;
    m.add_function(wrap_pyfunction!(tsch_handshake, m)?)?;
    m.add_function(wrap_pyfunction!(engset, m)?)?;
    m.add_function(wrap_pyfunction!(minimal_timeslot, m)?)?;
    m.add_function(wrap_pyfunction!(rate_bound_bps, m)?)?;
    m.add_function(wrap_pyfunction!(security_levels, m)?)?;
    m.add_function(wrap_pyfunction!(ccm_star_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(ccm_star_duration_us, m)?)?;
    m.add_class::<scenario::SettledPoint>()?;
    m.add_function(wrap_pyfunction!(scenario::scenario_point, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::platform_file, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::platform_file_schema, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::trace, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::param_columns, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::write_unit, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::write_results, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::tidy_columns, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::unit_damage, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::plan_point, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::tsch_minimal_timeslot, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_dtls_handshakes, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_event_loop_floor, m)?)?;
    m.add_function(wrap_pyfunction!(oscore_overhead, m)?)?;
    m.add_function(wrap_pyfunction!(udp::dtls_client, m)?)?;
    m.add_class::<udp::UdpServerBase>()?;
    m.add_class::<udp::UdpServer>()?;
    m.add_function(wrap_pyfunction!(udp13::dtls_client13, m)?)?;
    m.add_class::<udp13::UdpServer13>()?;
    m.add_class::<udp13::UdpRelay>()?;
    Ok(())
}
