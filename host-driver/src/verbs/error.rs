//! What can go wrong in a verbs call: typed, and each says what is wrong.

use std::fmt;

/// The error of a verbs call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerbsError {
    /// The device did not identify itself as this core (ID / VERSION registers).
    NotAnRnic { id: u32, version: u32 },
    /// Every object of this kind is in use (`what`: "PD", "STag", "CQ", "QP").
    NoResources { what: &'static str, max: usize },
    /// An argument is out of range; the text names it.
    InvalidArgument(String),
    /// A scatter / gather element is not inside the registered region its lkey names (an
    /// unknown, stale or foreign lkey, or bytes out of the region's bounds): the core would
    /// complete the work request with a local protection error (RFC 5040 §5.4).
    LocalProtection {
        qp: usize,
        lkey: u32,
        addr: u64,
        length: u32,
    },
    /// Host memory above what the core can address: below `1 << bits`, the host address bits
    /// the core reports in FEATURES (24 in the Alchitry Cu profile, 32 otherwise).
    AddressNotDmaable { addr: u64, len: u64, bits: u32 },
    /// A work request's element or a region longer than the core's lengths: below
    /// `1 << bits`, the local length bits the core reports in FEATURES (24 in the Alchitry Cu
    /// profile, 32 otherwise).
    LengthTooLong { len: u64, bits: u32 },
    /// The work queue is full (`depth` entries outstanding).
    QueueFull {
        qp: usize,
        queue: &'static str,
        depth: usize,
    },
    /// The QP is in error (or not connected): post and poll no longer move data.
    QpNotReady { qp: usize, state: &'static str },
    /// The object is still in use by the device or by another object; the text says by what.
    Busy(String),
    /// The handle is stale (the object was destroyed) or of another device.
    BadHandle(&'static str),
    /// The simulated device failed (a back-end error, or a time-out while waiting for it).
    Device(String),
}

impl fmt::Display for VerbsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerbsError::NotAnRnic { id, version } => write!(
                f,
                "not an RNIC of this register map (ID {id:#010x}, VERSION {version:#010x})"
            ),
            VerbsError::NoResources { what, max } => {
                write!(f, "no free {what}: all {max} are in use")
            }
            VerbsError::InvalidArgument(s) => write!(f, "invalid argument: {s}"),
            VerbsError::LocalProtection {
                qp,
                lkey,
                addr,
                length,
            } => write!(
                f,
                "QP {qp}: {length} bytes at {addr:#x} are not inside a registered region of lkey {lkey:#010x}"
            ),
            VerbsError::AddressNotDmaable { addr, len, bits } => write!(
                f,
                "{len} bytes at {addr:#x} are not addressable by the core ({bits}-bit DMA: \
                 host memory below {:#x})",
                1u64 << bits
            ),
            VerbsError::LengthTooLong { len, bits } => write!(
                f,
                "{len} bytes are longer than the core's {bits}-bit lengths allow (at most {})",
                (1u64 << bits) - 1
            ),
            VerbsError::QueueFull { qp, queue, depth } => {
                write!(
                    f,
                    "QP {qp}: {queue} is full ({depth} work requests outstanding)"
                )
            }
            VerbsError::QpNotReady { qp, state } => write!(f, "QP {qp} is {state}"),
            VerbsError::Busy(s) => write!(f, "in use: {s}"),
            VerbsError::BadHandle(what) => write!(f, "stale or foreign {what} handle"),
            VerbsError::Device(s) => write!(f, "device: {s}"),
        }
    }
}

impl std::error::Error for VerbsError {}

impl From<anyhow::Error> for VerbsError {
    fn from(e: anyhow::Error) -> Self {
        VerbsError::Device(format!("{e:#}"))
    }
}

/// The result of a verbs call.
pub type Result<T> = std::result::Result<T, VerbsError>;
