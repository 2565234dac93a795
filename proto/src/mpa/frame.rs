//! MPA Request and Reply frames (RFC 5044 §7.1, RFC 6581 §6 and §9).
//! Catalog: `mpa-peer-connect.md` §1 (layout, §1.3 examples, §1.4 receive checks), §3.
//!
//! A frame is a 20-octet header and up to 512 octets of Private Data. With S=1 the first four
//! PD octets are the Enhanced Connection Data (IRD, ORD, peer-to-peer and RTR flags); the ULP's
//! private data follows them. Frames travel in TCP streaming mode: no CRC, no markers (§1.1).

use super::Error;

/// Length of the key field (§1.1).
pub const KEY_LEN: usize = 16;
/// Key of an MPA Request, "MPA ID Req Frame" (§1.1).
pub const REQUEST_KEY: [u8; KEY_LEN] = *b"MPA ID Req Frame";
/// Key of an MPA Reply, "MPA ID Rep Frame"; differs from the Request key only in octet 10 (§1.1).
pub const REPLY_KEY: [u8; KEY_LEN] = *b"MPA ID Rep Frame";
/// Length of the fixed frame header: key, flags, Rev, PD_Length (§1.1).
pub const HEADER_LEN: usize = 20;

/// Flags octet (offset 16), M: the sender of this frame wants to receive markers (§1.1, §3.2).
pub const FLAG_MARKERS: u8 = 0x80;
/// Flags octet, C: the sender wants CRCs (§1.1, §3.2).
pub const FLAG_CRC: u8 = 0x40;
/// Flags octet, R: reject; Reply only, MUST be 0 in a Request (§1.1, ENH-RX-R0).
pub const FLAG_REJECT: u8 = 0x20;
/// Flags octet, S: PD begins with the Enhanced Connection Data (§1.1, RFC 6581 §6).
pub const FLAG_ENHANCED: u8 = 0x10;
/// Flags octet, Res: 0 on TX, not checked on RX (§1.1, ENH-RX-RES).
pub const FLAGS_RESERVED: u8 = 0x0F;

/// Rev of RFC 5044 frames (§1.1).
pub const REVISION_1: u8 = 1;
/// Rev needed for any enhanced feature, RFC 6581 (§1.1, ENH-REV-1).
pub const REVISION_2: u8 = 2;
/// Highest Rev this model interprets; a higher one is [`Error::BadRevision`] (§3.1).
/// Rev 0 (RDMAC-era peers) has the Rev 1 layout and parses; whether to accept it is the
/// firmware's `accept_rev0` policy (§3.1).
pub const MAX_REVISION: u8 = REVISION_2;

/// Largest PD_Length, enhanced data included (§1.1, ENH-RX-PDLEN).
pub const MAX_PRIVATE_DATA: usize = 512;
/// Length of the Enhanced Connection Data at frame offset 20 (§1.2).
pub const ENHANCED_DATA_LEN: usize = 4;

/// IRD word (frame octets 20–21), A: peer-to-peer model, RTR needed (§1.2).
pub const ENH_PEER_TO_PEER: u16 = 0x8000;
/// IRD word, B: RTR option zero-length FPDU (§1.2).
pub const ENH_RTR_ZERO_LENGTH_FPDU: u16 = 0x4000;
/// ORD word (frame octets 22–23), C: RTR option zero-length RDMA Write (§1.2).
pub const ENH_RTR_ZERO_LENGTH_WRITE: u16 = 0x8000;
/// ORD word, D: RTR option zero-length RDMA Read (§1.2).
pub const ENH_RTR_ZERO_LENGTH_READ: u16 = 0x4000;
/// The 14-bit IRD / ORD value inside its word (§1.2).
pub const IRD_ORD_MASK: u16 = 0x3FFF;
/// IRD/ORD value meaning "no automatic negotiation, the ULP configures it" (§1.2, ENH-IRD-10).
pub const IRD_ORD_NO_VALUE: u16 = 0x3FFF;
/// Largest real IRD/ORD depth that can be advertised (§1.2).
pub const IRD_ORD_MAX: u16 = IRD_ORD_NO_VALUE - 1;

mod field {
    use core::ops::Range;
    pub const KEY: Range<usize> = 0..16;
    pub const FLAGS: usize = 16;
    pub const REV: usize = 17;
    pub const PD_LENGTH: Range<usize> = 18..20;
    pub const IRD: Range<usize> = 20..22;
    pub const ORD: Range<usize> = 22..24;
}

/// Which frame: the Initiator sends a Request, the Responder answers with a Reply (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// MPA Request, key "MPA ID Req Frame".
    Request,
    /// MPA Reply, key "MPA ID Rep Frame".
    Reply,
}

impl FrameKind {
    /// The key this kind of frame starts with (§1.1).
    pub const fn key(self) -> &'static [u8; KEY_LEN] {
        match self {
            FrameKind::Request => &REQUEST_KEY,
            FrameKind::Reply => &REPLY_KEY,
        }
    }

    /// The kind whose key is `key`, if any.
    pub fn from_key(key: &[u8]) -> Option<Self> {
        if key == REQUEST_KEY {
            Some(FrameKind::Request)
        } else if key == REPLY_KEY {
            Some(FrameKind::Reply)
        } else {
            None
        }
    }
}

/// A view of an MPA Request or Reply frame in a byte buffer.
///
/// Getters of header fields index the buffer directly: use [`Frame::new_checked`] (or
/// [`FrameRepr::parse`], which checks every length itself) on untrusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Frame<T> {
    /// Wraps a buffer without checking its length.
    pub const fn new_unchecked(buffer: T) -> Frame<T> {
        Frame { buffer }
    }

    /// Wraps a buffer, checking that it holds the header and the PD_Length octets of PD.
    pub fn new_checked(buffer: T) -> Result<Frame<T>, Error> {
        let frame = Self::new_unchecked(buffer);
        frame.check_len()?;
        Ok(frame)
    }

    /// Checks that the header and PD_Length octets of PD are present ([`Error::Truncated`]).
    /// Longer buffers pass; [`FrameRepr::parse`] rejects them (ENH-RX-EXTRA).
    pub fn check_len(&self) -> Result<(), Error> {
        let data = self.buffer.as_ref();
        match data.get(field::PD_LENGTH) {
            Some(pd) => {
                let pd_len = usize::from(u16::from_be_bytes([pd[0], pd[1]]));
                if data.len() < HEADER_LEN + pd_len {
                    Err(Error::Truncated)
                } else {
                    Ok(())
                }
            }
            None => Err(Error::Truncated),
        }
    }

    /// The underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The 16-octet key.
    pub fn key(&self) -> &[u8] {
        &self.buffer.as_ref()[field::KEY]
    }

    /// Request or Reply according to the key, `None` for any other key.
    pub fn kind(&self) -> Option<FrameKind> {
        FrameKind::from_key(self.key())
    }

    /// The raw flags octet (M, C, R, S, Res).
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// M: markers wanted by this frame's sender on what it receives.
    pub fn markers(&self) -> bool {
        self.flags() & FLAG_MARKERS != 0
    }

    /// C: CRC wanted.
    pub fn crc(&self) -> bool {
        self.flags() & FLAG_CRC != 0
    }

    /// R: reject.
    pub fn reject(&self) -> bool {
        self.flags() & FLAG_REJECT != 0
    }

    /// S: Enhanced Connection Data present.
    pub fn enhanced(&self) -> bool {
        self.flags() & FLAG_ENHANCED != 0
    }

    /// Res: the four reserved flag bits (not checked on RX).
    pub fn reserved(&self) -> u8 {
        self.flags() & FLAGS_RESERVED
    }

    /// Rev.
    pub fn revision(&self) -> u8 {
        self.buffer.as_ref()[field::REV]
    }

    /// PD_Length: PD octets after the header, enhanced data included.
    pub fn pd_length(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::PD_LENGTH];
        u16::from_be_bytes([d[0], d[1]])
    }

    /// Header plus PD_Length: how many octets this frame occupies in the stream.
    pub fn frame_len(&self) -> usize {
        HEADER_LEN + usize::from(self.pd_length())
    }

    /// The whole Private Data (PD_Length octets, enhanced data included when S=1).
    ///
    /// # Panics
    /// If the buffer is shorter than [`Frame::frame_len`]; [`Frame::check_len`] rules that out.
    pub fn private_data(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.frame_len()]
    }

    /// Octets 20–21 as a word: A, B, IRD (meaningful when S=1).
    pub fn ird_word(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::IRD];
        u16::from_be_bytes([d[0], d[1]])
    }

    /// Octets 22–23 as a word: C, D, ORD (meaningful when S=1).
    pub fn ord_word(&self) -> u16 {
        let d = &self.buffer.as_ref()[field::ORD];
        u16::from_be_bytes([d[0], d[1]])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Frame<T> {
    /// Writes the key of `kind`.
    pub fn set_key(&mut self, kind: FrameKind) {
        self.buffer.as_mut()[field::KEY].copy_from_slice(kind.key());
    }

    /// Writes the raw flags octet.
    pub fn set_flags(&mut self, flags: u8) {
        self.buffer.as_mut()[field::FLAGS] = flags;
    }

    /// Writes Rev.
    pub fn set_revision(&mut self, revision: u8) {
        self.buffer.as_mut()[field::REV] = revision;
    }

    /// Writes PD_Length.
    pub fn set_pd_length(&mut self, len: u16) {
        self.buffer.as_mut()[field::PD_LENGTH].copy_from_slice(&len.to_be_bytes());
    }

    /// Writes octets 20–21 (A, B, IRD).
    pub fn set_ird_word(&mut self, word: u16) {
        self.buffer.as_mut()[field::IRD].copy_from_slice(&word.to_be_bytes());
    }

    /// Writes octets 22–23 (C, D, ORD).
    pub fn set_ord_word(&mut self, word: u16) {
        self.buffer.as_mut()[field::ORD].copy_from_slice(&word.to_be_bytes());
    }

    /// The whole Private Data, mutable (PD_Length octets).
    pub fn private_data_mut(&mut self) -> &mut [u8] {
        let end = self.frame_len();
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

/// RTR options of the peer-to-peer model: flags B, C, D of the Enhanced Connection Data (§1.2,
/// §2.5). In a Request: the forms the Initiator can send; in a Reply: those the Responder accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RtrOptions {
    /// B: zero-length FPDU.
    pub zero_length_fpdu: bool,
    /// C: zero-length RDMA Write.
    pub zero_length_write: bool,
    /// D: zero-length RDMA Read.
    pub zero_length_read: bool,
}

/// The Enhanced Connection Data (§1.2), typed.
///
/// `peer_to_peer` is `None` for the client-server model (A=0). With A=0 the B/C/D bits MUST be
/// 0 on TX and MUST be ignored on RX (§1.2), so they have no representation then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EnhancedData {
    /// IRD (14 bits). Request: the most the Initiator supports; Reply: the Responder's (§1.2).
    pub ird: u16,
    /// ORD (14 bits). Request: the Initiator's ORD; Reply: the Responder's (§1.2).
    pub ord: u16,
    /// A=1 with the RTR options offered/accepted, or `None` for A=0.
    pub peer_to_peer: Option<RtrOptions>,
}

impl EnhancedData {
    /// Decodes the two words at frame offsets 20 and 22 (ignoring B/C/D when A=0).
    pub fn from_words(ird_word: u16, ord_word: u16) -> Self {
        let peer_to_peer = (ird_word & ENH_PEER_TO_PEER != 0).then_some(RtrOptions {
            zero_length_fpdu: ird_word & ENH_RTR_ZERO_LENGTH_FPDU != 0,
            zero_length_write: ord_word & ENH_RTR_ZERO_LENGTH_WRITE != 0,
            zero_length_read: ord_word & ENH_RTR_ZERO_LENGTH_READ != 0,
        });
        EnhancedData {
            ird: ird_word & IRD_ORD_MASK,
            ord: ord_word & IRD_ORD_MASK,
            peer_to_peer,
        }
    }

    /// Encodes the two words, or [`Error::IrdOrdOutOfRange`] if IRD or ORD needs over 14 bits.
    pub fn to_words(&self) -> Result<(u16, u16), Error> {
        if self.ird > IRD_ORD_MASK || self.ord > IRD_ORD_MASK {
            return Err(Error::IrdOrdOutOfRange);
        }
        let (mut ird_word, mut ord_word) = (self.ird, self.ord);
        if let Some(rtr) = self.peer_to_peer {
            ird_word |= ENH_PEER_TO_PEER;
            if rtr.zero_length_fpdu {
                ird_word |= ENH_RTR_ZERO_LENGTH_FPDU;
            }
            if rtr.zero_length_write {
                ord_word |= ENH_RTR_ZERO_LENGTH_WRITE;
            }
            if rtr.zero_length_read {
                ord_word |= ENH_RTR_ZERO_LENGTH_READ;
            }
        }
        Ok((ird_word, ord_word))
    }

    /// Whether automatic IRD/ORD negotiation applies: neither field is 0x3FFF (§1.2; §8 item 9,
    /// a 0x3FFF in *either* field skips negotiation, as deployed Intel drivers do).
    pub fn auto_negotiation(&self) -> bool {
        self.ird != IRD_ORD_NO_VALUE && self.ord != IRD_ORD_NO_VALUE
    }
}

/// An MPA Request or Reply, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameRepr<'a> {
    /// Request or Reply.
    pub kind: FrameKind,
    /// M.
    pub markers: bool,
    /// C.
    pub crc: bool,
    /// R (only valid in a Reply).
    pub reject: bool,
    /// Rev: 0..=2; 2 when `enhanced` is `Some`.
    pub revision: u8,
    /// S=1 and its four octets, or `None` for S=0.
    pub enhanced: Option<EnhancedData>,
    /// The ULP's private data: PD after the enhanced data when S=1, else all of the PD.
    pub private_data: &'a [u8],
}

impl<'a> FrameRepr<'a> {
    /// Parses and checks a frame that the receiver expects to be of kind `expected` (the
    /// Responder expects a Request, the Initiator a Reply). Applies every check of §1.4:
    /// ENH-RX-KEY, -REV, -PDLEN, -EXTRA (the buffer must end right after the PD), -R0, -S;
    /// Res bits are ignored (ENH-RX-RES). Never panics, whatever the buffer holds.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(
        frame: &Frame<&'a T>,
        expected: FrameKind,
    ) -> Result<FrameRepr<'a>, Error> {
        let data: &'a [u8] = frame.buffer.as_ref();
        let header = data.get(..HEADER_LEN).ok_or(Error::Truncated)?;
        let key = &header[field::KEY];
        if key != expected.key() {
            return Err(match FrameKind::from_key(key) {
                Some(_) => Error::WrongKey,
                None => Error::BadKey,
            });
        }
        let flags = header[field::FLAGS];
        let revision = header[field::REV];
        let pd_len = usize::from(u16::from_be_bytes([
            header[field::PD_LENGTH.start],
            header[field::PD_LENGTH.start + 1],
        ]));
        if revision > MAX_REVISION {
            return Err(Error::BadRevision);
        }
        if pd_len > MAX_PRIVATE_DATA {
            return Err(Error::PrivateDataTooLong);
        }
        let pd = data
            .get(HEADER_LEN..HEADER_LEN + pd_len)
            .ok_or(Error::Truncated)?;
        if data.len() > HEADER_LEN + pd_len {
            return Err(Error::TrailingBytes);
        }
        let reject = flags & FLAG_REJECT != 0;
        if reject && expected == FrameKind::Request {
            return Err(Error::RejectInRequest);
        }
        let (enhanced, private_data) = if flags & FLAG_ENHANCED != 0 {
            if revision < REVISION_2 {
                return Err(Error::EnhancedNeedsRev2);
            }
            match (pd.get(..ENHANCED_DATA_LEN), pd.get(ENHANCED_DATA_LEN..)) {
                (Some(enh), Some(ulp)) => {
                    let ird_word = u16::from_be_bytes([enh[0], enh[1]]);
                    let ord_word = u16::from_be_bytes([enh[2], enh[3]]);
                    (Some(EnhancedData::from_words(ird_word, ord_word)), ulp)
                }
                _ => return Err(Error::EnhancedDataMissing),
            }
        } else {
            (None, pd)
        };
        Ok(FrameRepr {
            kind: expected,
            markers: flags & FLAG_MARKERS != 0,
            crc: flags & FLAG_CRC != 0,
            reject,
            revision,
            enhanced,
            private_data,
        })
    }

    /// PD_Length this frame carries: enhanced data plus ULP private data.
    pub fn pd_length(&self) -> usize {
        let enh = if self.enhanced.is_some() {
            ENHANCED_DATA_LEN
        } else {
            0
        };
        enh + self.private_data.len()
    }

    /// Octets needed to emit this frame.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.pd_length()
    }

    /// Writes the frame into the start of `frame`'s buffer (Res = 0). Refuses, writing nothing,
    /// anything [`FrameRepr::parse`] would reject, so emit-then-parse is the identity.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut Frame<T>) -> Result<(), Error> {
        let pd_len = self.pd_length();
        if pd_len > MAX_PRIVATE_DATA {
            return Err(Error::PrivateDataTooLong);
        }
        if self.revision > MAX_REVISION {
            return Err(Error::BadRevision);
        }
        if self.reject && self.kind == FrameKind::Request {
            return Err(Error::RejectInRequest);
        }
        let words = match self.enhanced {
            Some(_) if self.revision < REVISION_2 => return Err(Error::EnhancedNeedsRev2),
            Some(enh) => Some(enh.to_words()?),
            None => None,
        };
        let out = frame
            .buffer
            .as_mut()
            .get_mut(..HEADER_LEN + pd_len)
            .ok_or(Error::BufferTooSmall)?;
        let mut flags = 0;
        for (set, bit) in [
            (self.markers, FLAG_MARKERS),
            (self.crc, FLAG_CRC),
            (self.reject, FLAG_REJECT),
            (words.is_some(), FLAG_ENHANCED),
        ] {
            if set {
                flags |= bit;
            }
        }
        let mut view = Frame::new_unchecked(out);
        view.set_key(self.kind);
        view.set_flags(flags);
        view.set_revision(self.revision);
        // pd_len <= 512 was checked above.
        view.set_pd_length(pd_len as u16);
        let ulp_start = match words {
            Some((ird_word, ord_word)) => {
                view.set_ird_word(ird_word);
                view.set_ord_word(ord_word);
                ENHANCED_DATA_LEN
            }
            None => 0,
        };
        view.private_data_mut()[ulp_start..].copy_from_slice(self.private_data);
        Ok(())
    }
}
