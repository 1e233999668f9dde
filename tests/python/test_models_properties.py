"""Property tests of the models through the Python binding."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dtlsim import _core


@given(st.integers(1, 50), st.integers(1, 200), st.floats(1e-3, 100))
def test_engset_is_a_distribution(r, n, rho):
    e = _core.engset(r, n, rho)
    assert abs(sum(e["busy_distribution"]) - 1) < 1e-9
    assert all(0 <= p <= 1 for p in e["busy_distribution"])
    assert 0 <= e["call_congestion"] <= e["time_congestion"] + 1e-12 <= 1 + 1e-12


@given(st.integers(1, 49), st.integers(1, 200), st.floats(1e-3, 100))
def test_engset_blocking_falls_with_slots(r, n, rho):
    a, b = _core.engset(r, n, rho), _core.engset(r + 1, n, rho)
    assert b["time_congestion"] <= a["time_congestion"] + 1e-12
    assert b["call_congestion"] <= a["call_congestion"] + 1e-12


@given(st.integers(2, 3000), st.integers(1, 30), st.floats(0.05, 1.0), st.integers(1, 5))
def test_tsch_monotone_in_slotframe_and_cells(slotframe, cells, pdr, hops):
    cells = min(cells, slotframe - 1)
    base = _core.tsch_handshake(slotframe, [cells] * hops, [pdr] * hops, 10, 10.0)
    longer = _core.tsch_handshake(slotframe + 1, [cells] * hops, [pdr] * hops, 10, 10.0)
    more = _core.tsch_handshake(slotframe, [cells + 1] * hops, [pdr] * hops, 10, 10.0)
    for key in ("closed_form_s", "exact_s"):
        assert longer[key] >= base[key] - 1e-9
        assert more[key] <= base[key] + 1e-9


@given(st.integers(0, 1500))
def test_frames_never_decrease_with_payload(n):
    frame = _core.FrameSpec(level="enc-mic-64")
    for suite in (None, "psk-aes128-ccm8", "psk-aes128-cbc-sha"):
        a = _core.datagram_cost(frame, "1.2", suite, n)
        b = _core.datagram_cost(frame, "1.2", suite, n + 1)
        assert b["frames"] >= a["frames"]
        assert b["udp_payload"] >= a["udp_payload"]  # CBC padding only fills the last block
