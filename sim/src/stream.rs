//! Packets as stream beats (DESIGN.md "Interface conventions"): byte 0 in the most significant
//! lane, `keep` one bit per lane (the most significant bit for lane 0), only the last beat
//! partial; a packet of zero bytes is one `last` beat with no bytes kept.

/// One beat of a `width`-bit stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beat {
    pub data: u128,
    pub keep: u128,
    pub last: bool,
}

/// The beats of `packet` on a `width`-bit stream (width a multiple of 8, at most 128).
pub fn packet_beats(packet: &[u8], width: usize) -> Vec<Beat> {
    assert!(width.is_multiple_of(8) && (8..=128).contains(&width));
    let lanes = width / 8;
    if packet.is_empty() {
        return vec![Beat {
            data: 0,
            keep: 0,
            last: true,
        }];
    }
    let n = packet.len().div_ceil(lanes);
    packet
        .chunks(lanes)
        .enumerate()
        .map(|(i, chunk)| {
            let mut data = 0u128;
            let mut keep = 0u128;
            for (lane, &byte) in chunk.iter().enumerate() {
                data |= u128::from(byte) << (8 * (lanes - 1 - lane));
                keep |= 1 << (lanes - 1 - lane);
            }
            Beat {
                data,
                keep,
                last: i + 1 == n,
            }
        })
        .collect()
}

/// The bytes a beat carries.
pub fn beat_payload(beat: &Beat, width: usize) -> Vec<u8> {
    let lanes = width / 8;
    (0..lanes)
        .filter(|lane| beat.keep >> (lanes - 1 - lane) & 1 == 1)
        .map(|lane| (beat.data >> (8 * (lanes - 1 - lane))) as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beats_put_byte_zero_in_the_top_lane() {
        let b = packet_beats(&[1, 2, 3, 4, 5, 6], 32);
        assert_eq!(b.len(), 2);
        assert_eq!(
            b[0],
            Beat {
                data: 0x0102_0304,
                keep: 0b1111,
                last: false
            }
        );
        assert_eq!(
            b[1],
            Beat {
                data: 0x0506_0000,
                keep: 0b1100,
                last: true
            }
        );
        assert_eq!(
            packet_beats(&[], 64),
            vec![Beat {
                data: 0,
                keep: 0,
                last: true
            }]
        );
        let round: Vec<u8> = b.iter().flat_map(|x| beat_payload(x, 32)).collect();
        assert_eq!(round, [1, 2, 3, 4, 5, 6]);
    }
}
