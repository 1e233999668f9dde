#!/usr/bin/env python3
"""Expected values of crates/dtls/tests/v13_key_schedule.rs, computed apart
from the Rust code: HKDF (RFC 5869) written out over Python's own `hmac` and
`hashlib`, HkdfLabel laid out by hand (RFC 8446 §7.1), the "dtls13" prefix of
RFC 9147 §5.9, and the record-number mask AES-ECB(sn_key, sample) of RFC 9147
§4.2.3 through `cryptography`'s AES. Run it to print the values the test
pastes: `python3 crates/dtls/tests/vectors/dtls13_key_schedule.py`.
"""

import hashlib
import hmac


def extract(h, salt, ikm):
    n = h().digest_size
    return hmac.new(salt or bytes(n), ikm or bytes(n), h).digest()


def expand(h, prk, info, length):
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), h).digest()
        out += t
        i += 1
    return out[:length]


def expand_label(h, prefix, secret, label, context, length):
    full = prefix + label
    info = length.to_bytes(2, "big") + bytes([len(full)]) + full + bytes([len(context)]) + context
    return expand(h, secret, info, length)


def schedule(h, prefix, psk, dhe, hash_ch_sh, key_len):
    n = h().digest_size
    empty = h(b"").digest()
    early = extract(h, b"", psk)
    binder = expand_label(h, prefix, early, b"ext binder", empty, n)
    hs = extract(h, expand_label(h, prefix, early, b"derived", empty, n), dhe)
    c_hs = expand_label(h, prefix, hs, b"c hs traffic", hash_ch_sh, n)
    s_hs = expand_label(h, prefix, hs, b"s hs traffic", hash_ch_sh, n)
    master = extract(h, expand_label(h, prefix, hs, b"derived", empty, n), b"")
    return {
        "early": early,
        "binder_key": binder,
        "handshake": hs,
        "c_hs_traffic": c_hs,
        "master": master,
        "s_hs_key": expand_label(h, prefix, s_hs, b"key", b"", key_len),
        "s_hs_iv": expand_label(h, prefix, s_hs, b"iv", b"", 12),
        "s_hs_sn_key": expand_label(h, prefix, s_hs, b"sn", b"", key_len),
        "c_finished_key": expand_label(h, prefix, c_hs, b"finished", b"", n),
    }


def main():
    psk = bytes(range(16))
    hash_ch_sh = hashlib.sha256(b"ClientHello...ServerHello").digest()
    print("# dtls13, SHA-256, psk_ke (PSK 000102..0f), context SHA-256(b'ClientHello...ServerHello')")
    for k, v in schedule(hashlib.sha256, b"dtls13", psk, b"", hash_ch_sh, 16).items():
        print(f"{k} = {v.hex()}")
    hash384 = hashlib.sha384(b"ClientHello...ServerHello").digest()
    dhe = bytes([0x42] * 32)
    print("# dtls13, SHA-384, psk_dhe_ke (PSK as above, DHE 42 x 32), context SHA-384(same)")
    for k, v in schedule(hashlib.sha384, b"dtls13", psk, dhe, hash384, 32).items():
        print(f"{k} = {v.hex()}")
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    except ImportError:
        return
    sn_key = schedule(hashlib.sha256, b"dtls13", psk, b"", hash_ch_sh, 16)["s_hs_sn_key"]
    sample = bytes(range(0xA0, 0xB0))
    enc = Cipher(algorithms.AES(sn_key), modes.ECB()).encryptor()
    print("# mask = AES-ECB(s_hs_sn_key above, a0a1..af)")
    print(f"mask = {(enc.update(sample) + enc.finalize()).hex()}")

    # Whole records (RFC 9147 §4, §4.2.3; RFC 8446 §5.2-5.3) under the
    # SHA-256 block's server handshake keys with AES-128-CCM-8 (TLS_AES_128_CCM_8_SHA256).
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM

    ks = schedule(hashlib.sha256, b"dtls13", psk, b"", hash_ch_sh, 16)
    ccm = AESCCM(ks["s_hs_key"], tag_length=8)

    def record(first, cid, seq, seq_len, with_length, content, ctype, pad):
        inner = content + bytes([ctype]) + bytes(pad)
        n = len(inner) + 8
        hdr = bytes([first]) + cid + (seq & (256**seq_len - 1)).to_bytes(seq_len, "big")
        if with_length:
            hdr += n.to_bytes(2, "big")
        nonce = bytes(a ^ b for a, b in zip(ks["s_hs_iv"], seq.to_bytes(12, "big")))
        ct = ccm.encrypt(nonce, inner, hdr)
        e = Cipher(algorithms.AES(ks["s_hs_sn_key"]), modes.ECB()).encryptor()
        mask = e.update(ct[:16]) + e.finalize()
        off = 1 + len(cid)
        enc_seq = bytes(a ^ b for a, b in zip(hdr[off : off + seq_len], mask))
        return hdr[:off] + enc_seq + hdr[off + seq_len :] + ct

    # epoch 2, seq 0x0105, S=1, L=1, no CID: 0b0010_1110 = 0x2e
    r1 = record(0x2E, b"", 0x0105, 2, True, b"hello, dtls 1.3", 22, 0)
    print("# epoch 2, seq 0x105, 16-bit seq, length, handshake 'hello, dtls 1.3'")
    print(f"record1 = {r1.hex()}")
    # epoch 2, seq 7, S=0, L=0, CID c0ffee: 0b0011_0010 = 0x32; 2 bytes of
    # content: 2 + 1 + 8 < 16, so 5 bytes of padding make 16 bytes of ciphertext
    r2 = record(0x32, bytes.fromhex("c0ffee"), 7, 1, False, b"ok", 23, 5)
    print("# epoch 2, seq 7, 8-bit seq, no length, CID c0ffee, application data 'ok', 5 zero bytes of padding")
    print(f"record2 = {r2.hex()}")


if __name__ == "__main__":
    main()
