"""The published works the experiments reproduce, cited in full once.

A scenario's `[experiment] reference` starts with one of these keys, a
colon, and what of the work it reproduces: `vucinic2015: handshake duration
over preamble sampling`. The report expands the key to the full citation.
"""

from __future__ import annotations

CITATIONS = {
    "vucinic2015": (
        "M. Vučinić, B. Tourancheau, T. Watteyne, F. Rousseau, A. Duda, R. Guizzetti, "
        "L. Damon, “DTLS Performance in Duty-Cycled Networks”, IEEE International "
        "Symposium on Personal, Indoor and Mobile Radio Communications (PIMRC), 2015 "
        "(arXiv:1507.05810)"
    ),
    "sciancalepore2017": (
        "S. Sciancalepore, M. Vučinić, G. Piro, G. Boggia, T. Watteyne, “Link-layer "
        "security in TSCH networks: effect on slot duration”, Transactions on Emerging "
        "Telecommunications Technologies 28(1), 2017, doi:10.1002/ett.3089"
    ),
    "kothmayr2013": (
        "T. Kothmayr, C. Schmitt, W. Hu, M. Brünig, G. Carle, “DTLS based security and "
        "two-way authentication for the Internet of Things”, Ad Hoc Networks 11(8), "
        "pp. 2710–2723, 2013"
    ),
    "wolfssl2022": (
        "wolfSSL Inc., “DTLS 1.3 Benchmarks”, wolfSSL blog (vendor post), November 2022"
    ),
    "rfc6347": (
        "E. Rescorla, N. Modadugu, “Datagram Transport Layer Security Version 1.2”, RFC 6347, 2012"
    ),
    "rfc9147": (
        "E. Rescorla, H. Tschofenig, N. Modadugu, “The Datagram Transport Layer Security "
        "(DTLS) Protocol Version 1.3”, RFC 9147, 2022"
    ),
    "rfc9528": (
        "G. Selander, J. Preuß Mattsson, F. Palombini, “Ephemeral Diffie-Hellman Over COSE "
        "(EDHOC)”, RFC 9528, 2024"
    ),
    "rfc6550": (
        "T. Winter (ed.), P. Thubert (ed.), A. Brandt, J. Hui, R. Kelsey, P. Levis, K. Pister, "
        "R. Struik, JP. Vasseur, R. Alexander, “RPL: IPv6 Routing Protocol for Low-Power and "
        "Lossy Networks”, RFC 6550, 2012"
    ),
    "rfc8180": (
        "X. Vilajosana (ed.), K. Pister, T. Watteyne, “Minimal IPv6 over the TSCH Mode of "
        "IEEE 802.15.4e (6TiSCH) Configuration”, RFC 8180, 2017"
    ),
    # our own reference data: the Cooja oracle's logs, shipped with dtlsim
    "cooja-contiki3": (
        "Cooja (Contiki 3.0) running Contiki 3.0's csma and cxmac and tinyDTLS 0.8.2 "
        "on native motes under UDGM, per-handshake logs of 2026-11-28 shipped in "
        "reference/cooja"
    ),
    "cooja-contiki-ng": (
        "Cooja (the one Contiki-NG 4.9 pins) running Contiki-NG 4.9's csma and TSCH "
        "(6TiSCH minimal, Orchestra) and its tinyDTLS on native motes under UDGM, "
        "per-handshake logs of 2026-11-28 shipped in reference/cooja-ng"
    ),
    "ieee802154": (
        "IEEE Std 802.15.4-2015, “IEEE Standard for Low-Rate Wireless Networks”, IEEE, 2016"
    ),
    "rfc6655": (
        "D. McGrew, D. Bailey, “AES-CCM Cipher Suites for Transport Layer Security (TLS)”, "
        "RFC 6655, 2012"
    ),
}


# The figure or table of each measured work an experiment sets itself
# against, written only where it was read in the work itself; None: the
# number could not be read (only abstracts and first pages were at hand),
# and the report says so rather than guess. Specifications (the RFCs) are
# cited by section in the scenario's reference text instead.
FIGURES: dict[str, str | None] = {
    "vucinic2015": None,
    "sciancalepore2017": None,
    "kothmayr2013": None,
    # the post numbers no figures; its text names them in order: "The third
    # graph shows the same time to complete a handshake ... with a 100 ms
    # latency", "The fourth graph shows the total bandwidth used when a
    # packet is lost"
    "wolfssl2022": "its third and fourth graphs (handshake time with 100 ms latency; "
    "bandwidth used when a packet is lost)",
}

NOT_VERIFIED = "figure number not verified"


def cite(reference: str) -> str:
    """`key: what` → `what — full citation`, for every key before the colon
    (several joined by `+`), each measured work followed by the figure it
    reproduces or by "figure number not verified"; a reference without a
    known key is shown as is."""
    keys, sep, what = reference.partition(":")
    names = [k.strip() for k in keys.split("+")]
    if not sep or not all(n in CITATIONS for n in names):
        return reference
    works = "; ".join(CITATIONS[n] + figure(n) for n in names)
    return f"{what.strip()} — {works}"


def figure(key: str) -> str:
    """What of work `key` is reproduced, as appended to its citation."""
    if key not in FIGURES:
        return ""
    return f", {FIGURES[key]}" if FIGURES[key] else f" ({NOT_VERIFIED})"
