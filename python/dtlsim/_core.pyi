"""Type stubs of the Rust extension module (crates/py)."""

import os
from typing import Any, TypedDict

__version__: str
# The most messages one DTLS client run sends (and echoes it awaits).
MAX_MESSAGES: int

class FrameBudget(TypedDict):
    """Bytes of one IEEE 802.15.4 frame, header to what is left for UDP's payload."""

    mac_header: int
    aux_security_header: int
    mic: int
    fcs: int
    mac_payload: int
    sixlowpan_ipv6: int
    udp: int
    udp_payload: int

class SuiteInfo(TypedDict):
    name: str
    iana: str  # the IANA name
    version: str
    protection: str  # "aead" or "cbc"
    tag_or_mac: int

class DatagramCost(TypedDict):
    """Bytes one DTLS record adds around the application's, and the frames it takes."""

    record_header: int
    nonce_or_iv: int
    tag_or_mac: int
    padding: int
    record_overhead: int
    udp_payload: int
    frames: int

class TschHandshake(TypedDict):
    """Expected handshake latency over TSCH: the closed form and the exact expectation."""

    per_hop_slots: list[tuple[float, float]]
    closed_form_slots_per_frame: float
    exact_slots_per_frame: float
    closed_form_s: float
    exact_s: float

class Engset(TypedDict):
    """M/M/R/R/N blocking."""

    busy_distribution: list[float]
    time_congestion: float
    call_congestion: float
    carried_erlang: float
    request_rate_per_holding_time: float

class MinimalTimeslot(TypedDict):
    """The shortest TSCH timeslot for one secured exchange (closed form):
    IEEE 802.15.4 timeslot template values, the CCM* time of each security
    step sec1..sec4 (sender secures, receiver unsecures, receiver secures
    the ACK, sender unsecures it) taken apart into key lookup, bus transfer
    and CCM* proper, all in µs."""

    data_blocks: int
    ack_blocks: int
    ack_bytes: int
    sec1_us: float
    sec2_us: float
    sec3_us: float
    sec4_us: float
    max_tx_us: float
    max_ack_us: float
    tx_offset_us: float
    tx_ack_delay_us: float
    slot_duration_us: float
    app_bits_per_frame: int
    tx_prepare_us: float
    ack_prepare_us: float
    sec1_lookup_us: float
    sec1_bus_us: float
    sec1_ccm_us: float
    sec2_lookup_us: float
    sec2_bus_us: float
    sec2_ccm_us: float
    sec3_lookup_us: float
    sec3_bus_us: float
    sec3_ccm_us: float
    sec4_lookup_us: float
    sec4_bus_us: float
    sec4_ccm_us: float

class SimulatedTimeslot(TypedDict):
    """The shortest TSCH timeslot found by simulating one secured exchange,
    with each end's energy per slot there and at the IEEE 10 ms template."""

    tx_offset_us: int
    tx_ack_delay_us: int
    slot_duration_us: int
    frame_bytes: int
    ack_bytes: int
    ack_airtime_us: int
    sec1_us: int
    sec2_us: int
    sec3_us: int
    sec4_us: int
    sec1_stack_us: int
    sec2_stack_us: int
    sec3_stack_us: int
    sec4_stack_us: int
    sender_uj_min_slot: float
    receiver_uj_min_slot: float
    fits_default_template: bool
    sender_uj_default_slot: float
    receiver_uj_default_slot: float

class FrameSpec:
    def __init__(
        self,
        *,
        max_frame: int = 127,
        dst: str = "short",
        src: str = "short",
        pan_id_compression: bool = True,
        level: str = "none",
        key_id_mode: int = 1,
        frame_counter_suppressed: bool = False,
        compression: str = "link-local",
        udp_ports: str = "inline",
        udp_checksum_elided: bool = False,
        hop_limit_inline: bool = False,
    ) -> None: ...
    def budget(self) -> FrameBudget: ...
    def frames_for(self, udp_payload: int) -> int: ...

def suites() -> list[SuiteInfo]: ...
def datagram_cost(
    frame: FrameSpec,
    version: str,
    suite: str | None,
    app_len: int,
    *,
    cid_len: int = 0,
    seq_len: int = 1,
    length_present: bool = False,
    padding: int = 0,
) -> DatagramCost: ...
def max_unfragmented_app_payload(
    frame: FrameSpec,
    version: str,
    suite: str | None,
    *,
    cid_len: int = 0,
    seq_len: int = 1,
    length_present: bool = False,
    padding: int = 0,
) -> int | None: ...
def tsch_handshake(
    slotframe: int, cells: list[int], pdr: list[float], frames: int, timeslot_ms: float
) -> TschHandshake: ...
def engset(slots: int, clients: int, erlang: float) -> Engset: ...
def minimal_timeslot(
    level: str,
    *,
    setup_us: float,
    aes_block_us: float,
    per_block_overhead_us: float,
    bus_bytes_per_block: float,
    bus_us_per_byte: float,
    frame_bytes: int = 127,
    key_id_mode: int = 3,
    frame_counter_suppressed: bool = False,
    max_ack_us: float = 2400.0,
    min_turnaround_us: float = 192.0,
    data_dst: str = "extended",
    data_src: str = "extended",
    ack_dst: str = "extended",
    ack_dst_pan: bool = True,
    key_lookup_us: float = 0.0,
    bus_bytes_per_op: float = 0.0,
    frame_over_bus: bool = False,
    tx_prepare_us: float = 0.0,
    ack_prepare_us: float = 0.0,
) -> MinimalTimeslot: ...
def rate_bound_bps(
    owned_cells: int, app_bits_per_frame: int, slotframe: int, slot_duration_us: float
) -> float: ...
def security_levels() -> list[str]: ...

class SettledPoint:
    """A scenario point as the core read it, settled and checked; `simulate`,
    `trace` and `plan_point` take it as it is. Pickles exactly (CBOR)."""

    def json(self) -> str: ...
    def unused(self, given: list[tuple[str, str]]) -> list[tuple[str, str | None, str]]: ...
    def __eq__(self, other: object) -> bool: ...

def scenario_point(
    point_json: str,
) -> tuple[SettledPoint | None, list[tuple[str, str | None, str]]]: ...
def scenario_schema() -> str: ...
def platform_file(
    kind: str, data_json: str
) -> tuple[str | None, list[tuple[str, str | None, str]]]: ...
def platform_file_schema(kind: str) -> str: ...
def plan_point(point: SettledPoint, platform_json: str) -> str | None: ...
def ccm_star_blocks(level: str, header_len: int, payload_len: int) -> int: ...
def ccm_star_duration_us(
    level: str,
    header_len: int,
    payload_len: int,
    *,
    setup_us: float,
    aes_block_us: float,
    per_block_overhead_us: float,
    bus_bytes_per_block: float,
    bus_us_per_byte: float,
) -> float: ...

# A core column: (name, kind, data, validity or None); kind f64, i64 or
# bool with little-endian bytes, str with a list, null with its row count.
Column = tuple[str, str, bytes | list[str] | int, bytes | None]

def simulate(
    point: SettledPoint,
    platform_json: str,
    first: int,
    count: int,
    battery_mah: float,
    params: list[tuple[str, object]] = ...,
    files: tuple[str | os.PathLike[str], str | os.PathLike[str]] | None = None,
    pcap: str | None = None,
    jammed: list[tuple[int, int]] = ...,
    pcap_node: int | None = None,
) -> tuple[list[Column], list[Column]] | None: ...
def param_columns(params: list[tuple[str, object]], have: list[str], n: int) -> list[Column]: ...
def write_unit(columns: list[Column], path: str | os.PathLike[str]) -> None: ...
def write_results(
    points: list[tuple[list[os.PathLike[str]], list[os.PathLike[str]]]],
    files: tuple[os.PathLike[str], os.PathLike[str], os.PathLike[str]],
    axes: list[str],
    by: list[str],
    wanted: list[str],
) -> list[tuple[list[Any], int, dict[str, list[float]]]]: ...
def tidy_columns(columns: list[Column], axes: list[str]) -> tuple[list[Column], list[str]]: ...
def unit_damage(path: str | os.PathLike[str]) -> str | None: ...
def trace(
    point: SettledPoint,
    platform_json: str,
    replication: int,
    limit: int,
    pcap: str | None = None,
    pcap_node: int | None = None,
) -> tuple[list[Column], int]: ...
def dtls_client(
    connect: str,
    dtls_json: str,
    *,
    messages: list[bytes] = ...,
    expect_replies: int = 0,
    server_certificate: bytes | None = None,
    rpk: bool = False,
    cid: int | None = None,
    certificate: bytes | None = None,
    private_key: bytes | None = None,
    resume: tuple[bytes, bytes, str, bool] | None = None,
    timeout_s: float = 10.0,
    seed: int | None = None,
) -> dict[str, Any]: ...

class UdpServerBase:
    """What both versions' UDP servers share: bound once, run once."""

    @property
    def local_addr(self) -> str: ...
    @property
    def receive_buffer_bytes(self) -> int | None: ...
    def stop(self) -> None: ...
    def take_log(self) -> list[tuple[str, str, str]]: ...
    def run(
        self,
        *,
        max_seconds: float | None = None,
        after_handshakes: int | None = None,
        after_messages: int | None = None,
        after_sessions_ended: int | None = None,
    ) -> dict[str, Any]: ...

class UdpServer(UdpServerBase):
    def __init__(
        self,
        bind: str,
        dtls_json: str,
        *,
        certificate: bytes | None = None,
        private_key: bytes | None = None,
        rpk: bool = False,
        cid: int | None = None,
        session_cache: int = 0,
        echo: bool = True,
        seed: int | None = None,
        receive_buffer_bytes: int | None = None,
        max_sessions: int | None = None,
        max_half_open: int | None = None,
        half_open_timeout_s: float | None = None,
        idle_timeout_s: float | None = None,
        per_address: int | None = None,
        eviction: str | None = None,
    ) -> None: ...

class DtlsStats(TypedDict):
    """A connection's counters: cryptographic operations (AES-256 blocks and
    SHA-512 compressions of TLS_AES_256_GCM_SHA384 apart from AES-128 and
    SHA-256), datagrams and bytes, and per message kind (bytes, records)."""

    aes_blocks: int
    aes256_blocks: int
    sha256_compressions: int
    sha1_compressions: int
    sha512_compressions: int
    ecdh_ops: int
    ecdsa_signs: int
    ecdsa_verifies: int
    datagrams_sent: int
    datagrams_received: int
    bytes_sent: int
    bytes_received: int
    retransmissions: int
    records_dropped: int
    sent_bytes_records_per_message: dict[str, tuple[int, int]]

class Client13Report(TypedDict):
    server: str
    version: str
    cipher_suite: str | None
    cid_negotiated: bool
    handshake_time_s: float
    handshake_datagrams_sent: int
    handshake_datagrams_received: int
    handshake_bytes_sent: int
    handshake_bytes_received: int
    retransmissions: int
    session_state_bytes: int
    messages_sent: int
    received: list[bytes]
    alert_received: str | None
    closed_by_peer: bool
    resumed: bool
    resumable_session: tuple[bytes, bytes, str, int, int, int] | None
    stats: DtlsStats

class Handshake13(TypedDict):
    peer: str
    cipher_suite: str | None
    cid_negotiated: bool
    resumed: bool
    duration_s: float
    session_state_bytes: int
    stats: DtlsStats

def dtls_client13(
    connect: str,
    dtls_json: str,
    *,
    suite: str = "TLS_AES_128_CCM_8_SHA256",
    group: str = "secp256r1",
    psk_dhe: bool = False,
    cid: int | None = None,
    rpk: bool = False,
    messages: list[bytes] = ...,
    expect_replies: int = 0,
    server_certificate: bytes | None = None,
    certificate: bytes | None = None,
    private_key: bytes | None = None,
    resume: tuple[bytes, bytes, str, int, int, int] | None = None,
    keep_session: bool = False,
    timeout_s: float = 10.0,
    seed: int | None = None,
    seq_len: int = 1,
) -> Client13Report: ...

class UdpServer13(UdpServerBase):
    def __init__(
        self,
        bind: str,
        dtls_json: str,
        *,
        suite: str = "TLS_AES_128_CCM_8_SHA256",
        group: str = "secp256r1",
        psk_dhe: bool = False,
        cid: int | None = None,
        rpk: bool = False,
        certificate: bytes | None = None,
        private_key: bytes | None = None,
        echo: bool = True,
        seed: int | None = None,
        receive_buffer_bytes: int | None = None,
        max_sessions: int | None = None,
        max_half_open: int | None = None,
        half_open_timeout_s: float | None = None,
        idle_timeout_s: float | None = None,
        per_address: int | None = None,
        eviction: str | None = None,
        session_cache: int = 0,
    ) -> None: ...

def bench_dtls_handshakes(n: int) -> float: ...
def bench_event_loop_floor(events: int, pending: int) -> float: ...
def oscore_overhead(
    payload: int, *, request: bool = True, kid_len: int = 1, sequence: int = 0
) -> int: ...
def tsch_minimal_timeslot(
    level: int,
    frame_bytes: int,
    cost: str,
    power: str,
    extended_addresses: bool = True,
    key_id_mode: int = 3,
    frame_counter_suppressed: bool = False,
    stack: str | None = None,
) -> SimulatedTimeslot: ...
