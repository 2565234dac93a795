//! Receive side: deframing, the receive checks, placement, delivery, Terminates.
//!
//! # Checks, in order (the first failing one decides)
//!
//! Written from `rfc5040-rdmap.md` §5.4 (validation, suggested mapping), §5.1 (codes), §5.2
//! (HdrCt), `mpa-peer-connect.md` §4.2, §6.4 and the project's decisions (`docs/decisions.md`,
//! "DDP / RDMAP" and "Receive path"). Layer/EType/Code:
//!
//! | # | check | Terminate | headers |
//! |---|---|---|---|
//! | M | MPA: bad CRC, bad marker, ULPDU_Length over the maximum | 2/3/0x02, 0x03, 0x05 | none |
//! | 1 | ULPDU shorter than its DDP header | 0/2/0xFF | none (header incomplete) |
//! | 2 | DV != 1 | 1/1/0x04 (T) or 1/2/0x06 | none |
//! | 3 | untagged QN > 2 | 1/2/0x01 | M D |
//! | 4 | RV != 1 | 0/2/0x05 | none |
//! | 5 | opcode reserved (>= 8) | 0/2/0x06 | none |
//! | 6 | T or QN not the opcode's | 0/2/0x06 | none |
//! | 7 | Read Request or Terminate not one segment (L = 0 or MO != 0) | 1/2/0x04 (Terminate: not answered) | M D |
//! | 8 | Read Request header not 28 octets | 0/2/0xFF | M D |
//! | 9 | Terminate: surfaced, never answered; the stream ends | none sent | |
//! | 10 | Write, payload > 0: STag (REMOTE_WRITE) | invalid 1/1/0x00, PD 1/1/0x02, rights 0/1/0x02, wrap 1/1/0x03, bounds 1/1/0x01 | M D |
//! | 11 | Read Response with no Read outstanding | 0/2/0x06 | none |
//! | 12 | Read Response, payload > 0: STag (LOCAL_WRITE) | as 10 | M D |
//! | 13 | Send: MSN != expected | 1/2/0x03 | M D |
//! | 14 | Send: MO != expected | 1/2/0x04 | M D |
//! | 15 | Send: no receive buffer | 1/2/0x02 | M D |
//! | 16 | Send: MO + payload > buffer | 1/2/0x05; the buffer completes LocLenErr | M D |
//! | 17 | Read Request: MSN != expected | 1/2/0x03 | M D |
//! | 18 | Read Request: IRD requests already queued | 0/2/0x07 | M D |
//! | 19 | Read Request, size > 0: SrcSTag (REMOTE_READ) | invalid 0/1/0x00, PD 0/1/0x03, rights 0/1/0x02, wrap 0/1/0x04, bounds 0/1/0x01 | M D R |
//! | 20 | Send with Invalidate, last segment: invalidate | not found 0/2/0x09, PD or not invalidatable 0/1/0x09; the buffer completes GeneralErr | M D |
//!
//! Zero-length Writes, Read Responses and Read Requests are not checked against the STag
//! table (nothing is placed or read; `rfc5040-rdmap.md` §2.2). Tolerated deviations recorded
//! as violations in strict mode only: reserved DDP or RDMAP bits set, an Invalidate STag on a
//! Send without Invalidate, a Read Response whose STag, TO or total length differs from its
//! Read Request, a Terminate whose MSN is not 1, anything received after the peer's Terminate.

use rnic_proto::ddp::{self, TaggedBufferCode, UntaggedBufferCode};
use rnic_proto::mpa::{self, TERMINATE_ETYPE_LLP};
use rnic_proto::rdmap::{
    self, Body, DdpFields, Message, Opcode, ReadRequestRepr, RemoteOperationCode,
    RemoteProtectionCode, TerminateCode, TerminateRepr,
};
use rnic_proto::verbs::{access, WcOpcode, WcStatus};

use super::{Completion, Event, InvalidateError, Peer, Queue, StagError, State};

/// Terminate code of a failed STag check on a tagged segment (Write, Read Response).
fn tagged_code(e: StagError) -> TerminateCode {
    match e {
        StagError::Invalid => TerminateCode::DdpTaggedBuffer(TaggedBufferCode::InvalidStag),
        StagError::NotAssociated => {
            TerminateCode::DdpTaggedBuffer(TaggedBufferCode::StagNotAssociated)
        }
        StagError::Access => {
            TerminateCode::RdmapRemoteProtection(RemoteProtectionCode::AccessRights)
        }
        StagError::Wrap => TerminateCode::DdpTaggedBuffer(TaggedBufferCode::ToWrap),
        StagError::Bounds => TerminateCode::DdpTaggedBuffer(TaggedBufferCode::BaseOrBounds),
    }
}

/// Terminate code of a failed SrcSTag check of a Read Request.
fn read_code(e: StagError) -> TerminateCode {
    TerminateCode::RdmapRemoteProtection(match e {
        StagError::Invalid => RemoteProtectionCode::InvalidStag,
        StagError::NotAssociated => RemoteProtectionCode::StagNotAssociated,
        StagError::Access => RemoteProtectionCode::AccessRights,
        StagError::Wrap => RemoteProtectionCode::ToWrap,
        StagError::Bounds => RemoteProtectionCode::BaseOrBounds,
    })
}

fn untagged(code: UntaggedBufferCode) -> TerminateCode {
    TerminateCode::DdpUntaggedBuffer(code)
}

fn remote_op(code: RemoteOperationCode) -> TerminateCode {
    TerminateCode::RdmapRemoteOperation(code)
}

impl Peer {
    /// Takes stream octets from the wire, cut anywhere.
    pub fn feed(&mut self, mut input: &[u8]) {
        self.stats.bytes_rx += input.len() as u64;
        while !input.is_empty() {
            let was_failed = self.deframer.error().is_some();
            let (n, delivery) = self.deframer.feed(input);
            input = &input[n..];
            if was_failed {
                // In flight before our Terminate: not the sender's fault.
                self.stats.dropped += 1;
                continue;
            }
            let Some(d) = delivery else { continue };
            let status = d.status;
            let ulpdu = d.ulpdu.to_vec();
            self.stats.fpdus_rx += 1;
            match status.error() {
                None => self.on_ulpdu(&ulpdu),
                Some(e) => self.on_mpa_error(e),
            }
        }
    }

    fn on_mpa_error(&mut self, e: mpa::Error) {
        let code = e
            .llp_error_code()
            .map_or(mpa::LlpErrorCode::LocalCatastrophic.code(), |c| c.code());
        let code = TerminateCode::Llp {
            error_type: TERMINATE_ETYPE_LLP,
            error_code: code,
        };
        if self.state == State::Error {
            self.violation(Some(code), format!("MPA {e} after the stream ended"));
            return;
        }
        self.fail(code, &[], None, format!("MPA: {e}"));
    }

    /// Records the first error: the Terminate to send, the error state.
    fn fail(
        &mut self,
        code: TerminateCode,
        segment: &[u8],
        rrq: Option<ReadRequestRepr>,
        text: String,
    ) {
        self.violation(Some(code), text);
        if self.state == State::Error {
            return;
        }
        let h = code.header_control(rrq.is_some());
        let mut t = TerminateRepr::new(code);
        if h.m || h.d {
            if let Ok(with) = t.with_segment(segment) {
                t = with;
            }
        }
        if h.r {
            if let Some(r) = rrq {
                t = t.with_rdma_header(r);
            }
        }
        if !self.terminate_sent {
            self.pending_terminate = Some(t);
        }
        self.enter_error();
    }

    fn on_ulpdu(&mut self, seg: &[u8]) {
        let packet = ddp::Packet::new_unchecked(seg);
        let parsed = Message::parse(&packet, rdmap::Extensions::NONE);
        if self.state == State::Error {
            // Only a Terminate is still of interest.
            match parsed {
                Ok(Message {
                    body: Body::Terminate(t),
                    ..
                }) => {
                    if self.terminate_received {
                        self.violation(None, "a second Terminate".into());
                    }
                    self.terminate_received = true;
                    self.events.push(Event::TerminateReceived(t));
                }
                _ => {
                    self.stats.dropped += 1;
                    // Segments in flight when this side failed are legitimate; anything sent
                    // after the sender's own Terminate is not (`rfc5040-rdmap.md` §2.2).
                    if self.terminate_received {
                        self.violation(None, "segment after the peer's Terminate".into());
                    }
                }
            }
            return;
        }
        let msg = match parsed {
            Ok(m) => m,
            Err(e) => {
                match e.terminate_code() {
                    Some(code) => self.fail(code, seg, None, format!("{e}")),
                    None => {
                        // A malformed Terminate: surfaced, never answered.
                        self.violation(None, format!("malformed Terminate: {e}"));
                        self.terminate_received = true;
                        self.events.push(Event::BadTerminateReceived);
                        self.enter_error();
                    }
                }
                return;
            }
        };
        if packet.reserved() != 0 {
            self.violation(None, format!("DDP reserved bits {:#x}", packet.reserved()));
        }
        if packet.ulp_ctrl() & rdmap::opcode::RSV_MASK != 0 {
            self.violation(
                None,
                format!("RDMAP Rsv bits in {:#04x}", packet.ulp_ctrl()),
            );
        }
        let opcode = msg.opcode();
        if !packet.tagged() && !opcode.has_invalidate_stag() && packet.rsvd_ulp() != 0 {
            self.violation(
                None,
                format!("{opcode:?} with RsvdULP {:#x}", packet.rsvd_ulp()),
            );
        }
        match (msg.ddp, msg.body) {
            (DdpFields::Tagged { stag, to }, Body::RdmaWrite { payload }) => {
                self.on_write(seg, msg.last, stag, to, payload)
            }
            (DdpFields::Tagged { stag, to }, Body::RdmaReadResponse { payload }) => {
                self.on_read_response(seg, msg.last, stag, to, payload)
            }
            (DdpFields::Untagged { msn, mo }, Body::RdmaReadRequest(rrq)) => {
                let _ = mo;
                self.on_read_request(seg, msn, rrq)
            }
            (DdpFields::Untagged { msn, mo }, Body::Terminate(t)) => {
                if msn != ddp::MSN_INITIAL || mo != 0 {
                    self.violation(None, format!("Terminate with MSN {msn} MO {mo}"));
                }
                self.terminate_received = true;
                self.events.push(Event::TerminateReceived(t));
                self.enter_error();
            }
            (DdpFields::Untagged { msn, mo }, body) if opcode.queue_number() == Some(0) => {
                self.on_send(seg, msg.last, msn, mo, opcode, body)
            }
            _ => self.fail(
                remote_op(RemoteOperationCode::UnexpectedOpcode),
                seg,
                None,
                format!("{opcode:?} not handled"),
            ),
        }
    }

    fn place(&mut self, addr: u64, payload: &[u8]) {
        let ok = self.mem.write(addr, payload);
        debug_assert!(ok, "placement range was checked");
        self.stats.bytes_placed += payload.len() as u64;
    }

    fn on_write(&mut self, seg: &[u8], last: bool, stag: u32, to: u64, payload: &[u8]) {
        if !payload.is_empty() {
            let len = payload.len() as u64;
            if let Err(e) = self
                .mem
                .check(stag, to, len, access::REMOTE_WRITE, self.cfg.pd)
            {
                let text = format!("Write STag {stag:#x} TO {to:#x} len {len}: {e:?}");
                return self.fail(tagged_code(e), seg, None, text);
            }
            self.place(to, payload);
        }
        if last {
            self.stats.messages_rx += 1;
        }
    }

    fn on_read_response(&mut self, seg: &[u8], last: bool, stag: u32, to: u64, payload: &[u8]) {
        let Some(head) = self.orq.front().copied() else {
            return self.fail(
                remote_op(RemoteOperationCode::UnexpectedOpcode),
                seg,
                None,
                "Read Response with no Read outstanding".into(),
            );
        };
        if !payload.is_empty() {
            let len = payload.len() as u64;
            if let Err(e) = self
                .mem
                .check(stag, to, len, access::LOCAL_WRITE, self.cfg.pd)
            {
                let text = format!("Read Response STag {stag:#x} TO {to:#x} len {len}: {e:?}");
                self.mark_done(head.seq, WcStatus::LocProtErr);
                return self.fail(tagged_code(e), seg, None, text);
            }
            self.place(to, payload);
        }
        let req = head.request;
        let expect_to = req.sink_to.wrapping_add(head.got);
        if stag != req.sink_stag || to != expect_to {
            self.violation(
                None,
                format!(
                    "Read Response STag {stag:#x} TO {to:#x}, expected {:#x} {expect_to:#x}",
                    req.sink_stag
                ),
            );
        }
        let got = head.got + payload.len() as u64;
        if got > u64::from(req.read_size) || (last && got != u64::from(req.read_size)) {
            self.violation(
                None,
                format!("Read Response of {got} octets for {}", req.read_size),
            );
        }
        if let Some(h) = self.orq.front_mut() {
            h.got = got;
        }
        if last {
            self.orq.pop_front();
            self.stats.messages_rx += 1;
            self.mark_done(head.seq, WcStatus::Success);
            self.retire();
        }
    }

    fn on_read_request(&mut self, seg: &[u8], msn: u32, rrq: ReadRequestRepr) {
        let expect = self.rx_msn[1];
        if msn != expect {
            let text = format!("Read Request MSN {msn}, expected {expect}");
            return self.fail(untagged(UntaggedBufferCode::MsnRange), seg, None, text);
        }
        if self.irq.len() >= self.cfg.ird as usize {
            let text = format!("Read Request beyond IRD {}", self.cfg.ird);
            return self.fail(
                remote_op(RemoteOperationCode::CatastrophicStream),
                seg,
                Some(rrq),
                text,
            );
        }
        if rrq.read_size != 0 {
            let len = u64::from(rrq.read_size);
            if let Err(e) = self.mem.check(
                rrq.src_stag,
                rrq.src_to,
                len,
                access::REMOTE_READ,
                self.cfg.pd,
            ) {
                let text = format!(
                    "Read Request SrcSTag {:#x} SrcTO {:#x} len {len}: {e:?}",
                    rrq.src_stag, rrq.src_to
                );
                return self.fail(read_code(e), seg, Some(rrq), text);
            }
        }
        self.rx_msn[1] = expect.wrapping_add(1);
        self.stats.messages_rx += 1;
        self.irq.push_back(rrq);
    }

    fn on_send(&mut self, seg: &[u8], last: bool, msn: u32, mo: u32, op: Opcode, body: Body) {
        let payload = body.payload();
        let expect = self.rx_msn[0];
        if msn != expect {
            let text = format!("{op:?} MSN {msn}, expected {expect}");
            return self.fail(untagged(UntaggedBufferCode::MsnRange), seg, None, text);
        }
        if mo != self.rx_mo {
            let text = format!("{op:?} MO {mo}, expected {}", self.rx_mo);
            return self.fail(untagged(UntaggedBufferCode::InvalidMo), seg, None, text);
        }
        let Some(wqe) = self.rq.front().copied() else {
            let text = format!("{op:?} MSN {msn} with no receive buffer");
            return self.fail(untagged(UntaggedBufferCode::MsnNoBuffer), seg, None, text);
        };
        let end = u64::from(mo) + payload.len() as u64;
        if end > u64::from(wqe.len) {
            self.rq.pop_front();
            self.complete_recv(wqe.wr_id, WcStatus::LocLenErr, 0, None, false);
            let text = format!("{op:?} of {end}+ octets for a buffer of {}", wqe.len);
            return self.fail(
                untagged(UntaggedBufferCode::MessageTooLong),
                seg,
                None,
                text,
            );
        }
        self.place(wqe.addr + u64::from(mo), payload);
        self.rx_mo = end as u32;
        if !last {
            return;
        }
        self.rq.pop_front();
        self.rx_mo = 0;
        self.rx_msn[0] = expect.wrapping_add(1);
        let mut invalidated = None;
        if op.has_invalidate_stag() {
            let stag = body.invalidate_stag();
            if let Err(e) = self.mem.remote_invalidate(stag, self.cfg.pd) {
                self.complete_recv(wqe.wr_id, WcStatus::GeneralErr, 0, None, false);
                let code = match e {
                    InvalidateError::NotFound => {
                        remote_op(RemoteOperationCode::StagCannotBeInvalidated)
                    }
                    InvalidateError::NotAllowed => TerminateCode::RdmapRemoteProtection(
                        RemoteProtectionCode::StagCannotBeInvalidated,
                    ),
                };
                let text = format!("{op:?} invalidating {stag:#x}: {e:?}");
                return self.fail(code, seg, None, text);
            }
            invalidated = Some(stag);
        }
        self.stats.messages_rx += 1;
        self.complete_recv(
            wqe.wr_id,
            WcStatus::Success,
            end as u32,
            invalidated,
            op.solicited_event(),
        );
    }

    fn complete_recv(
        &mut self,
        wr_id: u64,
        status: WcStatus,
        byte_len: u32,
        invalidated_stag: Option<u32>,
        solicited: bool,
    ) {
        self.cq.push(Completion {
            wr_id,
            queue: Queue::Recv,
            opcode: WcOpcode::Recv,
            status,
            byte_len,
            invalidated_stag,
            solicited,
        });
    }
}
