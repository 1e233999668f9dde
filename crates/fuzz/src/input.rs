//! How a fuzz input is cut into a replay choice and datagrams.

/// The datagrams of an input: each a 2-byte big-endian length and that many
/// bytes (the last one takes what is left). A length prefix, not a
/// separator byte, so a datagram may hold any byte.
pub fn datagrams(mut data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while data.len() >= 2 {
        let len = usize::from(u16::from_be_bytes([data[0], data[1]]));
        let rest = &data[2..];
        let n = len.min(rest.len());
        out.push(&rest[..n]);
        data = &rest[n..];
    }
    out
}

/// The inverse of [`datagrams`], for writing seeds.
pub fn frame(datagrams: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for d in datagrams {
        let len = u16::try_from(d.len()).expect("a datagram fits 64 KiB");
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_and_datagrams_are_inverse() {
        let ds: [&[u8]; 3] = [b"abc", b"", &[0xff; 300]];
        assert_eq!(datagrams(&frame(&ds)), ds);
        // a short last datagram takes what is left
        assert_eq!(datagrams(&[0, 9, 1, 2]), [&[1u8, 2][..]]);
    }
}
