//! The 802.15.4 frame check sequence: a 16-bit ITU-T CRC (polynomial
//! x^16 + x^12 + x^5 + 1, initial value 0, bits processed LSB first, no final
//! XOR) — the parameters catalogued as CRC-16/KERMIT — transmitted least
//! significant byte first (IEEE 802.15.4-2015 §7.2.10).

use crate::{Error, Result};

/// Length of the FCS field in bytes.
pub const FCS_LEN: usize = 2;

/// CRC-16/KERMIT (the `crc` crate's catalogue entry), sixteen bytes per
/// step (slice-by-16 tables): every frame a simulation sends or hears is
/// checksummed, and a byte at a time was a tenth of a simulated handshake's
/// cost.
const KERMIT: crc::Crc<u16, crc::Table<16>> =
    crc::Crc::<u16, crc::Table<16>>::new(&crc::CRC_16_KERMIT);

/// CRC-16/KERMIT over `data`.
pub fn crc16(data: &[u8]) -> u16 {
    KERMIT.checksum(data)
}

/// Append the FCS of `mpdu` to it.
pub fn append(mpdu: &mut Vec<u8>) {
    let crc = crc16(mpdu);
    mpdu.extend_from_slice(&crc.to_le_bytes());
}

/// Return `mpdu` with its FCS appended.
pub fn with_fcs(mpdu: &[u8]) -> Vec<u8> {
    let mut v = mpdu.to_vec();
    append(&mut v);
    v
}

/// Check the FCS at the end of `frame` and return the frame without it.
pub fn check(frame: &[u8]) -> Result<&[u8]> {
    crate::need(frame, FCS_LEN, "FCS")?;
    let (body, fcs) = frame.split_at(frame.len() - FCS_LEN);
    let found = u16::from_le_bytes([fcs[0], fcs[1]]);
    let computed = crc16(body);
    if found == computed {
        Ok(body)
    } else {
        Err(Error::BadFcs { computed, found })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FCS as IEEE 802.15.4 defines it, bit by bit.
    fn bitwise(data: &[u8]) -> u16 {
        let mut crc: u16 = 0;
        for &b in data {
            crc ^= u16::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0x8408
                } else {
                    crc >> 1
                };
            }
        }
        crc
    }

    #[test]
    fn the_table_driven_crc_is_the_standards_bitwise_one() {
        let data: Vec<u8> = (0..=255u8)
            .chain((0..300).map(|i| (i * 7 % 256) as u8))
            .collect();
        for n in 0..data.len() {
            assert_eq!(crc16(&data[..n]), bitwise(&data[..n]), "{n} bytes");
        }
    }

    #[test]
    fn kermit_check_value() {
        // The catalogued check value of CRC-16/KERMIT.
        assert_eq!(crc16(b"123456789"), 0x2189);
    }

    #[test]
    fn imm_ack_fcs() {
        // 2006 Imm-Ack, seq 0x56: 02 00 56 + FCS (as in 802.15.4 example captures)
        let f = with_fcs(&[0x02, 0x00, 0x56]);
        assert_eq!(check(&f).unwrap(), &[0x02, 0x00, 0x56]);
        let mut bad = f.clone();
        bad[2] ^= 1;
        assert!(matches!(check(&bad), Err(Error::BadFcs { .. })));
        assert!(check(&[0x01]).is_err());
    }
}
