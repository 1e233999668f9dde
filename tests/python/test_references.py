"""Each experiment names the work it reproduces, and of a measured work the
figure, or says the figure number was not verified (never a guess)."""

from __future__ import annotations

from dtlsim.experiments.references import CITATIONS, FIGURES, NOT_VERIFIED, cite


def test_a_measured_work_without_a_verified_figure_says_so():
    text = cite("vucinic2015: handshake duration over X-MAC")
    assert text.startswith("handshake duration over X-MAC — ")
    assert CITATIONS["vucinic2015"] in text
    assert FIGURES["vucinic2015"] is None and f"({NOT_VERIFIED})" in text


def test_a_specification_is_cited_without_a_figure():
    text = cite("rfc6347+rfc6655: record sizes")
    assert CITATIONS["rfc6347"] in text and CITATIONS["rfc6655"] in text
    assert NOT_VERIFIED not in text


def test_every_work_with_a_figure_entry_is_cited():
    assert set(FIGURES) <= set(CITATIONS)


def test_a_verified_figure_is_named_beside_its_work():
    text = cite("wolfssl2022: handshake time with 100 ms latency")
    assert CITATIONS["wolfssl2022"] + ", its third and fourth graphs" in text
    assert NOT_VERIFIED not in text
