//! CRC-32C (Castagnoli), the MPA FPDU CRC. Catalog: `mpa-peer-connect.md` §5.2.
//!
//! Reflected polynomial 0x82F63B78, init and xor-out 0xFFFFFFFF: the `crc` crate's
//! `CRC_32_ISCSI`. On the wire the value travels least significant byte first.

use crc::{Crc, CRC_32_ISCSI};

/// The CRC engine every software component uses (same parameters as iSCSI and SCTP).
pub const CRC32C: Crc<u32> = Crc::<u32>::new(&CRC_32_ISCSI);

/// Normal (MSB-first) form of the polynomial.
pub const POLYNOMIAL: u32 = 0x1EDC_6F41;
/// Reflected (LSB-first shift register) form of the polynomial, as the hardware uses it.
pub const POLYNOMIAL_REFLECTED: u32 = 0x82F6_3B78;
/// Initial value of the shift register.
pub const INIT: u32 = 0xFFFF_FFFF;
/// Value XORed into the register to give the CRC.
pub const XOR_OUT: u32 = 0xFFFF_FFFF;
/// CRC of "123456789".
pub const CHECK: u32 = 0xE306_9283;
/// `crc32c(msg ‖ wire_bytes(crc32c(msg)))` for any `msg` (after xor-out).
pub const RESIDUE: u32 = 0x4867_4BC7;

/// CRC-32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    CRC32C.checksum(data)
}

/// The four CRC octets as they travel on the wire: least significant byte first.
pub fn to_wire(crc: u32) -> [u8; 4] {
    crc.to_le_bytes()
}

/// The CRC value from its four wire octets.
pub fn from_wire(bytes: [u8; 4]) -> u32 {
    u32::from_le_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers, `mpa-peer-connect.md` §5.2 (RFC 3720 §B.4).
    #[test]
    fn iscsi_known_answers() {
        let inc: [u8; 32] = core::array::from_fn(|i| i as u8);
        let dec: [u8; 32] = core::array::from_fn(|i| 31 - i as u8);
        let read_pdu = [
            0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14,
            0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(to_wire(crc32c(&[0u8; 32])), [0xaa, 0x36, 0x91, 0x8a]);
        assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
        assert_eq!(crc32c(&inc), 0x46DD_794E);
        assert_eq!(crc32c(&dec), 0x113F_DB5C);
        assert_eq!(crc32c(&read_pdu), 0xD996_3A56);
        assert_eq!(crc32c(b"123456789"), CHECK);
        assert_eq!(crc32c(&[]), 0);
    }

    #[test]
    fn residue_holds() {
        for len in 0..64usize {
            let msg: std::vec::Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut all = msg.clone();
            all.extend_from_slice(&to_wire(crc32c(&msg)));
            assert_eq!(crc32c(&all), RESIDUE, "len {len}");
        }
    }

    #[test]
    fn reflected_polynomial_is_bit_reverse() {
        assert_eq!(POLYNOMIAL.reverse_bits(), POLYNOMIAL_REFLECTED);
    }
}
