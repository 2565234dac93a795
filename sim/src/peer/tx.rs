//! Send side: work request posting, DDP segmentation to the MULPDU, MSNs per queue, MPA
//! framing.
//!
//! Segmentation (RFC 5041 §5): every segment of a message but the last carries
//! `MULPDU - header` payload octets, so a ULPDU never exceeds the remote's MULPDU; a zero-length
//! message is one segment with L = 1. Tagged segments advance the TO, untagged ones the MO; all
//! segments of an untagged message carry the same MSN, which then advances on its QN.
//! With markers on, ULPDUs are kept at or under [`MARKERS_MAX_ULPDU`] so that no FPDUPTR can
//! exceed 0xFFFF (RFC 5044 §5.3).

use rnic_proto::ddp::{self, QN_READ_REQUEST, QN_SEND, QN_TERMINATE};
use rnic_proto::rdmap::{Body, DdpFields, Message, ReadRequestRepr, TerminateRepr};
use rnic_proto::verbs::{access, WcStatus};

use super::{Event, Peer, PostError, RecvWr, SendKind, SendWr, SqEntry, State};

/// Largest ULPDU written when markers are on: its FPDU holds at most 128 markers, the last one
/// at most 511 + 127 * 512 = 65535 octets after the header.
pub const MARKERS_MAX_ULPDU: u16 = 65000;

impl Peer {
    /// Posts a receive buffer `[addr, addr + len)` for one inbound Send.
    pub fn post_recv(&mut self, wr_id: u64, addr: u64, len: u32) -> Result<(), PostError> {
        if self.state != State::Rts {
            return Err(PostError::NotConnected);
        }
        if !self.mem.contains(addr, u64::from(len)) {
            return Err(PostError::LocalProtection);
        }
        self.rq.push_back(RecvWr { wr_id, addr, len });
        Ok(())
    }

    /// Posts an RDMA Write of `len` bytes at `local_addr` to `rkey` / `remote_to`.
    pub fn post_write(
        &mut self,
        wr_id: u64,
        local_addr: u64,
        len: u64,
        rkey: u32,
        remote_to: u64,
    ) -> Result<(), PostError> {
        let len = u32::try_from(len).map_err(|_| PostError::TooLong)?;
        if !self.mem.contains(local_addr, u64::from(len)) {
            return Err(PostError::LocalProtection);
        }
        self.post(
            wr_id,
            SendWr::Write {
                local_addr,
                len,
                rkey,
                remote_to,
            },
        )
    }

    /// Posts an RDMA Read of `len` bytes from `rkey` / `remote_to` into the local region
    /// `local_stag` at `local_to` (which must allow local writes).
    pub fn post_read(
        &mut self,
        wr_id: u64,
        local_stag: u32,
        local_to: u64,
        len: u64,
        rkey: u32,
        remote_to: u64,
    ) -> Result<(), PostError> {
        let len = u32::try_from(len).map_err(|_| PostError::TooLong)?;
        if len > 0
            && self
                .mem
                .check(
                    local_stag,
                    local_to,
                    u64::from(len),
                    access::LOCAL_WRITE,
                    self.cfg.pd,
                )
                .is_err()
        {
            return Err(PostError::LocalProtection);
        }
        self.post(
            wr_id,
            SendWr::Read {
                local_stag,
                local_to,
                len,
                rkey,
                remote_to,
            },
        )
    }

    /// Posts a Send of `kind` of `len` bytes at `addr`; `inv_stag` is sent for the Invalidate
    /// kinds (ignored otherwise).
    pub fn post_send(
        &mut self,
        wr_id: u64,
        kind: SendKind,
        addr: u64,
        len: u64,
        inv_stag: u32,
    ) -> Result<(), PostError> {
        let len = u32::try_from(len).map_err(|_| PostError::TooLong)?;
        if !self.mem.contains(addr, u64::from(len)) {
            return Err(PostError::LocalProtection);
        }
        let inv_stag = if kind.invalidates() { inv_stag } else { 0 };
        self.post(
            wr_id,
            SendWr::Send {
                kind,
                addr,
                len,
                inv_stag,
            },
        )
    }

    fn post(&mut self, wr_id: u64, wr: SendWr) -> Result<(), PostError> {
        if self.state != State::Rts {
            return Err(PostError::NotConnected);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.sq.push_back(SqEntry {
            seq,
            wr_id,
            wr,
            emitted: false,
            done: None,
        });
        Ok(())
    }

    /// Everything this peer has to send now, as stream octets: a pending Terminate (and then
    /// nothing ever again), else the Read Responses of queued Read Requests in arrival order,
    /// then the posted work requests in order (a Read waits while ORD Reads are outstanding,
    /// and everything posted after it waits with it).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.pump();
        std::mem::take(&mut self.out)
    }

    fn pump(&mut self) {
        if let Some(t) = self.pending_terminate.take() {
            self.emit_terminate(t);
            return;
        }
        if self.state != State::Rts {
            return;
        }
        while let Some(rrq) = self.irq.pop_front() {
            self.emit_read_response(rrq);
            if self.state != State::Rts {
                // A local failure while reading the source produced a Terminate.
                if let Some(t) = self.pending_terminate.take() {
                    self.emit_terminate(t);
                }
                return;
            }
        }
        let mut i = 0;
        while i < self.sq.len() {
            let e = self.sq[i];
            i += 1;
            if e.emitted {
                continue;
            }
            if let SendWr::Read { .. } = e.wr {
                if self.orq.len() >= self.cfg.ord as usize {
                    break;
                }
            }
            self.sq[i - 1].emitted = true;
            self.emit_wr(e);
        }
        self.retire();
    }

    fn emit_wr(&mut self, e: SqEntry) {
        match e.wr {
            SendWr::Write {
                local_addr,
                len,
                rkey,
                remote_to,
            } => {
                let data = self.local_bytes(local_addr, len);
                self.emit_tagged(rnic_proto::rdmap::Opcode::RdmaWrite, rkey, remote_to, &data);
                self.mark_done(e.seq, WcStatus::Success);
            }
            SendWr::Read {
                local_stag,
                local_to,
                len,
                rkey,
                remote_to,
            } => {
                let request = ReadRequestRepr {
                    sink_stag: local_stag,
                    sink_to: local_to,
                    read_size: len,
                    src_stag: rkey,
                    src_to: remote_to,
                };
                let msn = self.next_msn(QN_READ_REQUEST);
                self.emit_message(&Message {
                    last: true,
                    ddp: DdpFields::Untagged { msn, mo: 0 },
                    body: Body::RdmaReadRequest(request),
                });
                self.stats.messages_tx += 1;
                self.orq.push_back(super::OutstandingRead {
                    seq: e.seq,
                    request,
                    got: 0,
                });
            }
            SendWr::Send {
                kind,
                addr,
                len,
                inv_stag,
            } => {
                let data = self.local_bytes(addr, len);
                self.emit_send(kind, inv_stag, &data);
                self.mark_done(e.seq, WcStatus::Success);
            }
        }
    }

    pub(super) fn mark_done(&mut self, seq: u64, status: WcStatus) {
        if let Some(e) = self.sq.iter_mut().find(|e| e.seq == seq) {
            e.done.get_or_insert(status);
        }
    }

    fn local_bytes(&self, addr: u64, len: u32) -> Vec<u8> {
        self.mem
            .read(addr, u64::from(len))
            .expect("checked at post")
            .to_vec()
    }

    fn max_ulpdu(&self) -> usize {
        let m = if self.cfg.tx_markers {
            self.cfg.mulpdu.min(MARKERS_MAX_ULPDU)
        } else {
            self.cfg.mulpdu
        };
        usize::from(m)
    }

    /// Payload octets per segment for a header of `header` octets.
    fn chunk(&self, header: usize) -> usize {
        let c = self.max_ulpdu().saturating_sub(header);
        assert!(
            c > 0,
            "MULPDU {} leaves no room for payload",
            self.cfg.mulpdu
        );
        c
    }

    fn emit_tagged(&mut self, opcode: rnic_proto::rdmap::Opcode, stag: u32, to: u64, data: &[u8]) {
        let chunk = self.chunk(ddp::TAGGED_HEADER_LEN);
        let mut off = 0;
        loop {
            let end = (off + chunk).min(data.len());
            let payload = &data[off..end];
            let last = end == data.len();
            let body = match opcode {
                rnic_proto::rdmap::Opcode::RdmaWrite => Body::RdmaWrite { payload },
                _ => Body::RdmaReadResponse { payload },
            };
            self.emit_message(&Message {
                last,
                ddp: DdpFields::Tagged {
                    stag,
                    to: to.wrapping_add(off as u64),
                },
                body,
            });
            off = end;
            if last {
                break;
            }
        }
        self.stats.messages_tx += 1;
    }

    fn emit_send(&mut self, kind: SendKind, inv_stag: u32, data: &[u8]) {
        let chunk = self.chunk(ddp::UNTAGGED_HEADER_LEN);
        let msn = self.next_msn(QN_SEND);
        let mut off = 0;
        loop {
            let end = (off + chunk).min(data.len());
            let payload = &data[off..end];
            let last = end == data.len();
            let body = match kind {
                SendKind::Send => Body::Send { payload },
                SendKind::SendSe => Body::SendSe { payload },
                SendKind::SendInv => Body::SendInvalidate {
                    invalidate_stag: inv_stag,
                    payload,
                },
                SendKind::SendSeInv => Body::SendSeInvalidate {
                    invalidate_stag: inv_stag,
                    payload,
                },
            };
            self.emit_message(&Message {
                last,
                ddp: DdpFields::Untagged {
                    msn,
                    mo: off as u32,
                },
                body,
            });
            off = end;
            if last {
                break;
            }
        }
        self.stats.messages_tx += 1;
    }

    fn emit_read_response(&mut self, rrq: ReadRequestRepr) {
        let data = if rrq.read_size == 0 {
            Vec::new()
        } else {
            match self.mem.read(rrq.src_to, u64::from(rrq.read_size)) {
                Some(d) => d.to_vec(),
                None => {
                    // Unreachable: the source range was checked on arrival.
                    self.pending_terminate = Some(TerminateRepr::new(
                        rnic_proto::rdmap::TerminateCode::RdmapLocalCatastrophic(
                            rnic_proto::rdmap::terminate::LOCAL_CATASTROPHIC_TX_CODE,
                        ),
                    ));
                    self.enter_error();
                    return;
                }
            }
        };
        self.emit_tagged(
            rnic_proto::rdmap::Opcode::RdmaReadResponse,
            rrq.sink_stag,
            rrq.sink_to,
            &data,
        );
        self.stats.read_responses_tx += 1;
    }

    fn emit_terminate(&mut self, t: TerminateRepr) {
        if self.terminate_sent {
            return;
        }
        let msn = self.next_msn(QN_TERMINATE);
        self.emit_message(&Message {
            last: true,
            ddp: DdpFields::Untagged { msn, mo: 0 },
            body: Body::Terminate(t),
        });
        self.terminate_sent = true;
        self.events.push(Event::TerminateSent(t));
    }

    fn next_msn(&mut self, qn: u32) -> u32 {
        let slot = &mut self.tx_msn[qn as usize];
        let msn = *slot;
        *slot = slot.wrapping_add(1);
        msn
    }

    fn emit_message(&mut self, msg: &Message) {
        let mut buf = vec![0u8; msg.buffer_len()];
        msg.emit(&mut ddp::Packet::new_unchecked(&mut buf[..]))
            .expect("buffer sized by buffer_len");
        self.emit_ulpdu(&buf);
    }

    /// Frames one ULPDU onto the output stream.
    pub fn emit_ulpdu(&mut self, ulpdu: &[u8]) {
        let len = u16::try_from(ulpdu.len()).expect("ULPDU within MULPDU");
        let n = self.framer.wire_len(len);
        let start = self.out.len();
        self.out.resize(start + n, 0);
        let written = self
            .framer
            .write_fpdu(ulpdu, &mut self.out[start..])
            .expect("FPDU fits");
        debug_assert_eq!(written, n);
        self.stats.fpdus_tx += 1;
        self.stats.bytes_tx += n as u64;
    }
}
