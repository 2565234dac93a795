//! The verbs-level values shared by the hardware, the firmware and the host driver: STag layout,
//! memory access rights, work-completion opcodes and statuses, asynchronous event kinds.
//!
//! Work-completion opcode and status values are those of rdma-core's `enum ibv_wc_opcode` and
//! `enum ibv_wc_status`, so a driver maps them one to one. The STag split is DESIGN.md's
//! ("STag = 24-bit index << 8 | 8-bit key"); RFC 5040 §8.1 item 8 asks only for sparse,
//! unpredictable values (`rfc5040-rdmap.md` §6.1, §7.2).

/// Bits of the STag key (the low octet). DESIGN.md "Decisions already taken".
pub const STAG_KEY_BITS: u32 = 8;

/// The table index of an STag: its upper 24 bits.
pub const fn stag_index(stag: u32) -> u32 {
    stag >> STAG_KEY_BITS
}

/// The key of an STag: its low 8 bits, chosen unpredictably at each registration.
pub const fn stag_key(stag: u32) -> u8 {
    (stag & 0xFF) as u8
}

/// The STag of table entry `index` with `key`.
pub const fn make_stag(index: u32, key: u8) -> u32 {
    (index << STAG_KEY_BITS) | key as u32
}

/// Memory access rights of an STag, as a 4-bit mask (`rfc5040-rdmap.md` §7.2).
pub mod access {
    /// The local RNIC may read the region (gather for Send / Write, Read Response source).
    pub const LOCAL_READ: u8 = 0x1;
    /// The local RNIC may write the region (Send receive buffers, Read Response sinks).
    pub const LOCAL_WRITE: u8 = 0x2;
    /// A remote peer may read the region (RDMA Read Request source).
    pub const REMOTE_READ: u8 = 0x4;
    /// A remote peer may write the region (RDMA Write sink).
    pub const REMOTE_WRITE: u8 = 0x8;
    /// Every right.
    pub const ALL: u8 = LOCAL_READ | LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;
}

wire_enum! {
    /// Work-completion opcode (rdma-core `enum ibv_wc_opcode`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum WcOpcode {
        /// A Send of any variant completed at the requester.
        Send = 0,
        /// An RDMA Write completed at the requester.
        RdmaWrite = 1,
        /// An RDMA Read completed: its Read Response was delivered.
        RdmaRead = 2,
        /// A received Send of any variant consumed a receive WQE.
        Recv = 128,
    }

    impl WcOpcode {
        /// Every opcode.
        pub const ALL: [WcOpcode; 4];
        /// The opcode of a value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

wire_enum! {
    /// Work-completion status (rdma-core `enum ibv_wc_status`); the subset the RNIC reports.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum WcStatus {
        /// Completed without error.
        Success = 0,
        /// A received Send was longer than the receive WQE's buffer (DDP 1/2/0x05).
        LocLenErr = 1,
        /// The work request cannot be carried out on this QP (unknown or unsupported opcode).
        LocQpOpErr = 2,
        /// A local key of the WQE failed its check (invalid, wrong PD, rights, bounds).
        LocProtErr = 4,
        /// Flushed: the QP went to error before the WQE was processed.
        WrFlushErr = 5,
        /// The remote peer reported a protection error in a Terminate.
        RemAccessErr = 10,
        /// The remote peer reported an operation error in a Terminate.
        RemOpErr = 11,
        /// A fatal error of the RNIC.
        FatalErr = 19,
        /// Any other error (the asynchronous event says which).
        GeneralErr = 21,
    }

    impl WcStatus {
        /// Every status.
        pub const ALL: [WcStatus; 9];
        /// The status of a value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

wire_enum! {
    /// Kinds of asynchronous event the RNIC raises for a QP (the verbs "QP fatal" family).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    #[repr(u8)]
    pub enum AsyncEventKind {
        /// The receive path found an error and sent (queued) this Terminate; the QP is in error.
        TerminateSent = 1,
        /// A Terminate arrived from the peer; the QP is in error. Codes are the Terminate's.
        TerminateReceived = 2,
        /// A malformed Terminate arrived (never answered); the QP is in error.
        BadTerminateReceived = 3,
        /// A completion queue overflowed (RFC 5040 §8.1 item 10): the CQ is in error and
        /// drops its completions; QPs on other CQs are not affected.
        CqOverflow = 4,
    }

    impl AsyncEventKind {
        /// Every kind.
        pub const ALL: [AsyncEventKind; 4];
        /// The kind of a value, if any.
        pub const fn from_u8(value: u8) -> Option<Self>;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stag_split_is_index_and_key() {
        let stag = make_stag(0x12_3456, 0x78);
        assert_eq!(stag, 0x1234_5678);
        assert_eq!(stag_index(stag), 0x12_3456);
        assert_eq!(stag_key(stag), 0x78);
    }

    #[test]
    fn wc_values_are_rdma_core_s() {
        assert_eq!(WcOpcode::Recv as u8, 128);
        assert_eq!(WcStatus::RemAccessErr as u8, 10);
        assert_eq!(WcStatus::from_u8(5), Some(WcStatus::WrFlushErr));
        assert_eq!(WcStatus::from_u8(3), None);
    }
}
