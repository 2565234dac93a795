//! RDMAP receive (RFC 5040): one handler per opcode over the DDP receive blocks of
//! [`crate::ddp`], one error path that builds the Terminate, per-QP state, completions.
//! Catalogs: `rfc5040-rdmap.md` §1 (headers), §2 (per-message rules), §5 (errors, Terminate),
//! §7.1 (per-QP state); `mpa-peer-connect.md` §6 (DDP codes). Golden model of the checks:
//! `rnic_proto::rdmap::Message::parse` (static checks, extensions off) and the receive model of
//! `rnic-sim` (stateful checks).
//!
//! - [`rx_control`]: jobs in, verdicts and events out; per-QP MSN / MO / IRD / ORD / error state.
//! - [`terminate_tx`]: the one Terminate per stream, built from the latched codes and the
//!   offending segment's header slot, as a ULPDU for MpaTx.
//! - [`rx_path`]: the receive path top: DdpRxParse + StagCheck + RxControl + RxPlace +
//!   TerminateTx behind an MpaRx.
//!
//! # Receive checks, in order (the first failing row decides; `rfc5040-rdmap.md` §5.4)
//!
//! `L` = ULPDU_Length (the DDP segment length), `H` = 14 if T else 18, `P = L - H` the payload
//! length. Triples are Layer/EType/Code; HdrCt "none" = M = D = R = 0 (Terminate of 22
//! octets), "MD" = M, D (the segment length `L` and the 14 / 18 header octets), "MDR" = M, D, R
//! (and the 28 Read Request header octets as received). T is octet 0 bit 7 (read as 0 when
//! `L = 0`).
//!
//! | # | check | Terminate |
//! |---|---|---|
//! | 0 | QP not enabled, or already in error | none sent; segment dropped silently |
//! | 1 | `L < H` | 0/2/0xFF, none (`docs/decisions.md`) |
//! | 2 | DV != 1 | 1/1/0x04 if T else 1/2/0x06, none |
//! | 3 | T = 0 and QN > 2 | 1/2/0x01, MD |
//! | 4 | RV != 1 | 0/2/0x05, none |
//! | 5 | opcode >= 8 | 0/2/0x06, none |
//! | 6 | T or QN not the opcode's (0, 2: T; 1: QN 1; 3-6: QN 0; 7: QN 2) | 0/2/0x06, none |
//! | 7 | opcode 1 and (L flag = 0 or MO != 0) | 1/2/0x04, MD |
//! | 8 | opcode 1 and `L != 46` | 0/2/0xFF, MD |
//! | 9 | opcode 7 (Terminate): never answered. `L < 22`, L flag 0 or MO != 0: async BadTerminateReceived; else async TerminateReceived with octet 18 (Layer << 4 \| EType) and octet 19 (Code) | none sent; QP to error |
//! | 10 | Write (0), `P > 0`: StagCheck(STag, TO, P, REMOTE_WRITE) | InvalidStag 1/1/0x00, NotAssociated 1/1/0x02, Access 0/1/0x02, Wrap 1/1/0x03, Bounds 1/1/0x01; MD |
//! | 11 | Read Response (2): no outstanding Read (ORQ count 0) | 0/2/0x06, none |
//! | 12 | Read Response, `P > 0`: StagCheck(STag, TO, P, LOCAL_WRITE) | as row 10; the oldest Read completes RdmaRead / LocProtErr |
//! | 13 | Send (3-6): MSN != expected QN 0 MSN | 1/2/0x03, MD |
//! | 14 | Send: MO != expected MO | 1/2/0x04, MD |
//! | 15 | Send: no receive WQE (RQ empty) | 1/2/0x02, MD |
//! | 16 | Send: MO + P > WQE length | 1/2/0x05, MD; the WQE completes Recv / LocLenErr |
//! | 17 | Send, `P > 0`: StagCheck(lkey, WQE TO + MO, P, LOCAL_WRITE) | 1/0/0x00, none; the WQE completes Recv / LocProtErr |
//! | 18 | Read Request (1): MSN != expected QN 1 MSN | 1/2/0x03, MD |
//! | 19 | Read Request: queued Read Requests = IRD | 0/2/0x07, MD |
//! | 20 | Read Request, size != 0: StagCheck(SrcSTag, SrcTO, size, REMOTE_READ) | InvalidStag 0/1/0x00, NotAssociated 0/1/0x03, Access 0/1/0x02, Wrap 0/1/0x04, Bounds 0/1/0x01; MDR |
//! | 21 | Send with Invalidate (4, 6), L = 1, rows 13-17 passed: StagCheck invalidate of the Invalidate STag (octets 2-5). It takes effect at the check, so every later segment sees the STag invalid (a later Write to it fails, `rfc5040-rdmap.md` §2.2 "Send types") | InvalidStag 0/2/0x09; NotAssociated or NotInvalidatable 0/1/0x09; MD; the WQE completes Recv / GeneralErr |
//!
//! MSNs start at 1 per QN and count every message (every segment of one message carries its
//! MSN); the expected MO starts at 0 and grows by `P` per Send segment, back to 0 after L = 1.
//! Expectations advance when a segment is checked (so the next segment of the same connection
//! can be checked before this one is placed); completions and queue pushes happen when the
//! segment's run is done (`done_*`) with `done_good`:
//!
//! - Write: nothing (placed only, `rfc5040-rdmap.md` §2.2).
//! - Send, L = 1: CQE Recv / Success, byte_len = MO + P, index = WQE index, `with_inv` and
//!   `inv_stag` for 4 and 6 (row 21 passed), `solicited` for 5 and 6. Its receive WQE is
//!   popped earlier, when the segment passes rows 13-17 and 21 (before its verdict), so that
//!   the RQ fetches the next head WQE while the segment is placed.
//!
//! Events of one QP leave in segment order (`cqe_*`, `aev_*`, `irq_*`, `term_*`); placements of a
//! segment (`dma_wr_*`) come before its completion.
//! - Read Response, L = 1: ORQ count - 1; CQE RdmaRead / Success.
//! - Read Request: IRQ count + 1 (counted at the check, row 19), push on `irq_*`.
//! - Terminate: the async event of row 9.
//!
//! A segment whose run ends with `done_good = 0` (CRC or marker error) has no effect (but for a
//! Send L = 1's WQE, popped at its check): no
//! completion, no Terminate of its own (MpaRx reports the LLP error on `llp_err_*`, which RxControl
//! turns into Terminate 2/`TERMINATE_ETYPE_LLP`/code, none, and the QP goes to error).
//!
//! **One error path.** The first error of a QP (a failed row, committed when the offending
//! segment's run is done and good; or an LLP error, committed when it arrives) latches: the QP
//! goes to error, one `term_*` request and one async event TerminateSent (with the triple) are
//! issued, and every later segment of that QP is dropped without events. Other QPs are not
//! touched. A QP configuration write clears the error.

pub mod read_responder;
pub mod rx_control;
pub mod rx_path;
pub mod send_engine;
pub mod terminate_tx;
pub mod tx_arbiter;
pub mod tx_path;

// # Port lists (the contract between the blocks; names are exact)
//
// RxControl (rx_control.rs)
//   in : clock;
//        qp_cfg_write qp_cfg_qp[CONN_BITS] qp_cfg_enable qp_cfg_pd[PD_BITS] qp_cfg_ird[4]
//          (a write resets that QP: MSNs 1, MO 0, IRQ / ORQ counts 0, no error, no Terminate sent);
//        job_valid job_conn job_slot job_len[16];  hdr_a_data[32];
//        rsp_valid rsp_tag[CHK_TAG_BITS] rsp_status[3] rsp_host_addr[DMA_ADDR_BITS];
//        vd_ready; done_valid done_conn done_good;
//        rq_req_ready; rq_rsp_valid rq_rsp_present rq_rsp_to[64] rq_rsp_len_n[32] (the length inverted) rq_rsp_lkey[32]
//          rq_rsp_index[16];
//        orq_push orq_push_qp[CONN_BITS] (a Read Request went out: ORQ count + 1);
//        irq_done irq_done_qp[CONN_BITS] (the responder finished one Read Request: IRQ count - 1);
//        irq_ready; cqe_ready; aev_ready; term_ready; term_done term_done_conn term_done_slot;
//        llp_err_valid llp_err_conn[CONN_BITS] llp_err_code[8] (MpaRx err_*)
//   out: job_ready; hdr_a_addr[CONN_BITS+1+HDR_WORD_BITS];
//        chk_valid chk_tag chk_stag[32] chk_to[64] chk_len[32] chk_pd chk_qp chk_access[4]
//          chk_invalidate;
//        vd_valid vd_conn vd_place vd_addr[DMA_ADDR_BITS] vd_a10 vd_a20;  done_ready;
//        free_valid free_conn free_slot;
//        rq_req_valid rq_req_qp rq_req_pop (0: read the head WQE; 1: consume it);
//        irq_valid irq_qp irq_word[32] (a Read Request as five words, one per irq_valid:
//          source address, sink STag, sink TO high, sink TO low, size; started only after
//          irq_ready, a level; docs/core.md "ReadResponder");
//        cqe_valid cqe_qp cqe_opcode[8] cqe_status[8] cqe_byte_len[32] cqe_index[16]
//          cqe_inv_stag[32] cqe_with_inv cqe_solicited;
//        aev_valid aev_qp aev_kind[8] aev_layer[4] aev_etype[4] aev_code[8];
//        term_valid term_conn term_slot term_layer[4] term_etype[4] term_code[8] term_m term_d
//          term_r term_seglen[16]
//
// TerminateTx (terminate_tx.rs)
//   in : clock; term_valid term_conn term_slot term_layer term_etype term_code term_m term_d
//        term_r term_seglen; hdr_b_data[32]; tx_ready
//   out: term_ready; hdr_b_addr; tx_data[32] tx_keep[4] tx_last tx_valid tx_conn tx_len[16];
//        term_done term_done_conn term_done_slot (one-cycle strobe after the last beat left)
//   A request is taken at `term_valid && term_ready`; its source holds `term_valid` and every
//   `term_*` field until `term_done` (TerminateTx reads them in place: no copy), and
//   `term_done_conn` / `term_done_slot` are its `term_conn` / `term_slot`. With `term_d`,
//   `term_seglen` is the length of the segment in the slot: the copied octets at and past it
//   are sent as 0 (the slot's words there are unspecified, `crate::ddp` "Header slots").
//   `term_r` is honoured only with `term_d` on an untagged header (RxControl's row 20, MDR);
//   otherwise the Terminate is sent with R = 0 (`terminate_tx.rs`).
//
// RxPath (rx_path.rs): MpaRx + DdpRxParse + StagCheck + RxControl + RxPlace + TerminateTx
//   in : clock; llp_data[32] llp_keep[4] llp_last llp_valid llp_conn (LLP RX);
//        mpa_cfg_write mpa_cfg_conn mpa_cfg_fpdu_mode mpa_cfg_markers mpa_cfg_crc
//          mpa_cfg_max_ulpdu[16] (MpaRx cfg_*); raw_ready;
//        qp_cfg_* ; prog_* (StagCheck programming) ; dma_wr_ready; rq_req_ready; rq_rsp_* ;
//        orq_push orq_push_qp; irq_done irq_done_qp; irq_ready; cqe_ready; aev_ready; tx_ready
//   out: llp_ready; raw_data raw_keep raw_last raw_valid raw_conn; dma_wr_*; rq_req_valid
//        rq_req_qp rq_req_pop; irq_*; cqe_*; aev_*; tx_data tx_keep tx_last tx_valid tx_conn
//        tx_len (the Terminate ULPDUs, for MpaTx); rx_idle (nothing in flight anywhere in the
//        path: the firmware waits for it before a qp_cfg / mpa_cfg write of a connection that
//        has received traffic; MpaRx, DdpRxParse and RxControl each have an `idle` output for it)
//        fpdu_good_valid fpdu_good_conn (a strobe per FPDU that passed MPA's checks, for the
//        host interface's QP_STATUS_FPDU_RECEIVED)
//   and the send engine's local checks (`docs/core.md`, "RxPath additions"): in lchk_valid
//        lchk_stag lchk_to lchk_len lchk_pd lchk_qp lchk_access; out lchk_ready lrsp_valid
//        lrsp_status lrsp_host_addr
