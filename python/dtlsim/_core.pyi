"""Type stubs of the Rust extension module (crates/py)."""

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
) -> dict[str, Any]: ...
def rate_bound_bps(
    owned_cells: int, app_bits_per_frame: int, slotframe: int, slot_duration_us: float
) -> float: ...
def security_levels() -> list[str]: ...
def scenario_point(point_json: str) -> tuple[str | None, list[tuple[str, str | None, str]]]: ...
def scenario_schema() -> str: ...
def plan_point(point_json: str, platform_json: str) -> str | None: ...
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
def simulate(
    point_json: str,
    platform_json: str,
    first: int,
    count: int,
    pcap: str | None = None,
    jammed: list[tuple[int, int]] = ...,
) -> list[tuple[str, str, bytes | list[str], bytes | None]]: ...
def dtls_client(
    connect: str,
    dtls_json: str,
    *,
    messages: list[bytes] = ...,
    expect_replies: int = 0,
    server_certificate: bytes | None = None,
    timeout_s: float = 10.0,
    seed: int | None = None,
) -> dict[str, Any]: ...

class UdpServer:
    def __init__(
        self,
        bind: str,
        dtls_json: str,
        *,
        certificate: bytes | None = None,
        private_key: bytes | None = None,
        echo: bool = True,
        seed: int | None = None,
        max_sessions: int | None = None,
        max_half_open: int | None = None,
        half_open_timeout_s: float | None = None,
        per_address: int | None = None,
        eviction: str | None = None,
    ) -> None: ...
    @property
    def local_addr(self) -> str: ...
    def stop(self) -> None: ...
    def run(
        self,
        *,
        max_seconds: float | None = None,
        after_handshakes: int | None = None,
        after_messages: int | None = None,
        after_sessions_ended: int | None = None,
    ) -> dict[str, Any]: ...

def bench_dtls_handshakes(n: int) -> float: ...
def tsch_minimal_timeslot(
    level: int,
    frame_bytes: int,
    cost: str,
    power: str,
    extended_addresses: bool = True,
    key_id_mode: int = 3,
    frame_counter_suppressed: bool = False,
) -> dict[str, Any]: ...
