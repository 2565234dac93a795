//! The `key=value,...` specifications of `rnic inject`: memory regions, the QP, receive WQEs.
//! Every malformed specification is one line of error naming the field.

use rnic_hdl::config::{DMA_ADDR_BITS, PD_BITS, QPS, STAG_BASE_TO_BITS, STAG_ENTRIES};
use rnic_proto::verbs::{access, stag_index};

/// A memory region: `--mr stag=..,addr=..,len=..,access=..,pd=..[,to=..][,qp=..][,inv]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MrSpec {
    /// STag = index << 8 | key; the index must be inside the STag table.
    pub stag: u32,
    /// Host (DMA) address of the region's first byte.
    pub addr: u32,
    /// Region length in bytes.
    pub len: u32,
    /// Access rights (`rnic_proto::verbs::access` bits).
    pub access: u8,
    /// Protection domain.
    pub pd: u8,
    /// Tagged Offset of the first byte (default: `addr`, as verbs registers a virtual address).
    pub base_to: u64,
    /// Bound to this QP only (a memory window); default: PD-wide.
    pub qp: Option<u8>,
    /// The peer may invalidate it with Send with Invalidate.
    pub remote_inv: bool,
}

/// The QP: `--qp pd=..,ird=..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpSpec {
    /// Protection domain.
    pub pd: u8,
    /// Inbound RDMA Read Requests it may queue (IRD).
    pub ird: u8,
}

/// A receive WQE: `--recv to=..,len=..,lkey=..`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvSpec {
    /// Tagged Offset of the buffer in the lkey's region.
    pub to: u64,
    /// Buffer length.
    pub len: u32,
    /// Local key (STag) of the region.
    pub lkey: u32,
}

fn fields(spec: &str) -> Vec<(&str, Option<&str>)> {
    spec.split(',')
        .filter(|f| !f.is_empty())
        .map(|f| match f.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (f.trim(), None),
        })
        .collect()
}

fn number(what: &str, key: &str, value: Option<&str>) -> Result<u64, String> {
    let v = value.ok_or_else(|| format!("{what}: '{key}' needs a value ({key}=N)"))?;
    let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
        None => v.replace('_', "").parse::<u64>(),
    };
    parsed.map_err(|_| format!("{what}: '{key}={v}' is not a number"))
}

fn bounded(what: &str, key: &str, value: Option<&str>, max: u64) -> Result<u64, String> {
    let n = number(what, key, value)?;
    if n > max {
        return Err(format!(
            "{what}: '{key}' must be at most {max:#x}, got {n:#x}"
        ));
    }
    Ok(n)
}

fn access_bits(v: Option<&str>) -> Result<u8, String> {
    let v = v.ok_or("--mr: 'access' needs a value (e.g. access=lw+rr+rw)")?;
    let mut bits = 0;
    for right in v.split('+') {
        bits |= match right {
            "lr" => access::LOCAL_READ,
            "lw" => access::LOCAL_WRITE,
            "rr" => access::REMOTE_READ,
            "rw" => access::REMOTE_WRITE,
            "all" => access::ALL,
            "none" => 0,
            other => {
                return Err(format!(
                    "--mr: unknown access right '{other}' (lr, lw, rr, rw, all, none; join with +)"
                ))
            }
        };
    }
    Ok(bits)
}

fn require<T>(what: &str, key: &str, v: Option<T>) -> Result<T, String> {
    v.ok_or_else(|| format!("{what}: missing '{key}='"))
}

/// Parses `--mr`.
pub fn parse_mr(spec: &str) -> Result<MrSpec, String> {
    const W: &str = "--mr";
    let (mut stag, mut addr, mut len, mut acc, mut pd) = (None, None, None, None, None);
    let (mut base_to, mut qp, mut remote_inv) = (None, None, false);
    for (k, v) in fields(spec) {
        match k {
            "stag" => stag = Some(bounded(W, k, v, u32::MAX as u64)? as u32),
            "addr" => addr = Some(bounded(W, k, v, u32::MAX as u64)? as u32),
            "len" => len = Some(bounded(W, k, v, u32::MAX as u64)? as u32),
            "access" => acc = Some(access_bits(v)?),
            "pd" => pd = Some(bounded(W, k, v, (1 << PD_BITS) - 1)? as u8),
            "to" => base_to = Some(number(W, k, v)?),
            "qp" => qp = Some(bounded(W, k, v, (QPS - 1) as u64)? as u8),
            "inv" if v.is_none() => remote_inv = true,
            _ => {
                return Err(format!(
                    "--mr: unknown field '{k}' (stag, addr, len, access, pd, to, qp, inv)"
                ))
            }
        }
    }
    let stag = require(W, "stag", stag)?;
    if stag_index(stag) as usize >= STAG_ENTRIES {
        return Err(format!(
            "--mr: stag {stag:#x} has index {} but the STag table has {STAG_ENTRIES} entries",
            stag_index(stag)
        ));
    }
    let addr = require(W, "addr", addr)?;
    let len = require(W, "len", len)?;
    if addr as u64 + len as u64 > 1 << DMA_ADDR_BITS {
        return Err(format!(
            "--mr: region {addr:#x}+{len:#x} runs past the {DMA_ADDR_BITS}-bit DMA address space"
        ));
    }
    let base_to = base_to.unwrap_or(addr as u64);
    if base_to >> STAG_BASE_TO_BITS != 0 {
        return Err(format!(
            "--mr: to={base_to:#x} is not below 2^{STAG_BASE_TO_BITS}, the base TOs the STag table keeps"
        ));
    }
    Ok(MrSpec {
        stag,
        addr,
        len,
        access: require(W, "access", acc)?,
        pd: require(W, "pd", pd)?,
        base_to,
        qp,
        remote_inv,
    })
}

/// Parses `--qp`.
pub fn parse_qp(spec: &str) -> Result<QpSpec, String> {
    const W: &str = "--qp";
    let (mut pd, mut ird) = (None, None);
    for (k, v) in fields(spec) {
        match k {
            "pd" => pd = Some(bounded(W, k, v, (1 << PD_BITS) - 1)? as u8),
            "ird" => ird = Some(bounded(W, k, v, 15)? as u8),
            _ => return Err(format!("--qp: unknown field '{k}' (pd, ird)")),
        }
    }
    Ok(QpSpec {
        pd: require(W, "pd", pd)?,
        ird: ird.unwrap_or(4),
    })
}

/// Parses `--recv`.
pub fn parse_recv(spec: &str) -> Result<RecvSpec, String> {
    const W: &str = "--recv";
    let (mut to, mut len, mut lkey) = (None, None, None);
    for (k, v) in fields(spec) {
        match k {
            "to" => to = Some(number(W, k, v)?),
            "len" => len = Some(bounded(W, k, v, u32::MAX as u64)? as u32),
            "lkey" => lkey = Some(bounded(W, k, v, u32::MAX as u64)? as u32),
            _ => return Err(format!("--recv: unknown field '{k}' (to, len, lkey)")),
        }
    }
    Ok(RecvSpec {
        to: require(W, "to", to)?,
        len: require(W, "len", len)?,
        lkey: require(W, "lkey", lkey)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mr_fields_parse() {
        let mr = parse_mr("stag=0x1234,addr=0x1000,len=4096,access=lw+rw,pd=1,inv").unwrap();
        assert_eq!(mr.stag, 0x1234);
        assert_eq!(mr.access, access::LOCAL_WRITE | access::REMOTE_WRITE);
        assert_eq!(mr.base_to, 0x1000);
        assert!(mr.remote_inv);
        assert_eq!(mr.qp, None);
        let mr = parse_mr("stag=0x100,addr=0,len=1,access=all,pd=0,to=0xffff0000,qp=0").unwrap();
        assert_eq!(mr.base_to, 0xffff_0000);
        assert_eq!(mr.qp, Some(0));
    }

    #[test]
    fn bad_specs_name_the_field() {
        for (spec, needle) in [
            ("addr=0,len=1,access=rw,pd=0", "missing 'stag='"),
            ("stag=0x4000,addr=0,len=1,access=rw,pd=0", "STag table"),
            (
                "stag=1,addr=0,len=1,access=xx,pd=0",
                "unknown access right 'xx'",
            ),
            (
                "stag=1,addr=0,len=1,access=rw,pd=99",
                "'pd' must be at most",
            ),
            (
                "stag=1,addr=0xffffffff,len=2,access=rw,pd=0",
                "-bit DMA address space",
            ),
            (
                "stag=1,addr=0,len=1,access=rw,pd=0,to=0x100000000",
                "not below 2^32",
            ),
            (
                "stag=1,addr=0,len=1,access=rw,pd=0,colour=red",
                "unknown field 'colour'",
            ),
            (
                "stag=zz,addr=0,len=1,access=rw,pd=0",
                "'stag=zz' is not a number",
            ),
        ] {
            let err = parse_mr(spec).unwrap_err();
            assert!(err.contains(needle), "{spec}: {err}");
            assert!(!err.contains('\n'));
        }
        assert!(parse_qp("ird=2").unwrap_err().contains("missing 'pd='"));
        assert!(parse_qp("pd=1,ird=16").unwrap_err().contains("at most"));
        assert!(parse_recv("to=0,len=8")
            .unwrap_err()
            .contains("missing 'lkey='"));
    }
}
