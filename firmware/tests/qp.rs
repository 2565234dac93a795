//! QP state machine: setup, graceful close, abortive termination with async events.

use rnic_firmware::conn::{ConnConfig, ConnError, ConnState, Connection, Role};
use rnic_firmware::qp::{AsyncEvent, Qp, QpError, QpEvent, QpState};
use rnic_proto::host::regs;
use rnic_proto::mpa::LlpErrorCode;
use rnic_proto::rdmap::{RemoteProtectionCode, TerminateCode};
use rnic_proto::verbs::AsyncEventKind;

fn params() -> rnic_firmware::ConnParams {
    let mut i = Connection::new(Role::Initiator, ConnConfig::default());
    let mut r = Connection::new(Role::Responder, ConnConfig::default());
    r.listen(0).unwrap();
    i.connect(0, b"").unwrap();
    r.on_raw_bytes(i.output()).unwrap();
    r.accept(b"").unwrap();
    i.on_raw_bytes(r.output()).unwrap();
    assert_eq!(i.state(), ConnState::Established);
    i.params().unwrap()
}

fn rts() -> Qp {
    let mut q = Qp::new();
    assert_eq!(q.handle(QpEvent::Connect), Ok(QpState::Connecting));
    assert_eq!(q.handle(QpEvent::Established(params())), Ok(QpState::Rts));
    q
}

#[test]
fn graceful_close() {
    let mut q = rts();
    assert!(q.params().is_some());
    assert_eq!(q.handle(QpEvent::Close), Ok(QpState::Closing));
    assert_eq!(q.handle(QpEvent::PeerClosed), Ok(QpState::Closing));
    assert_eq!(q.handle(QpEvent::LlpClosed), Ok(QpState::Closed));
    assert_eq!(q.take_event(), None);
    assert_eq!(q.handle(QpEvent::Reset), Ok(QpState::Idle));
    assert!(q.params().is_none());
    // Peer-initiated.
    let mut q = rts();
    assert_eq!(q.handle(QpEvent::PeerClosed), Ok(QpState::Closing));
}

#[test]
fn setup_failure() {
    let mut q = Qp::new();
    q.handle(QpEvent::Connect).unwrap();
    let e = ConnError::NoMatchingRtr;
    assert_eq!(q.handle(QpEvent::ConnFailed(e)), Ok(QpState::Error));
    assert_eq!(q.conn_error(), Some(e));
    let mut q = Qp::new();
    q.handle(QpEvent::Connect).unwrap();
    assert_eq!(q.handle(QpEvent::LlpReset), Ok(QpState::Error));
}

#[test]
fn terminate_sent_is_surfaced_once() {
    let mut q = rts();
    let code = TerminateCode::RdmapRemoteProtection(RemoteProtectionCode::InvalidStag);
    assert!(q.may_send_terminate());
    assert_eq!(
        q.handle(QpEvent::TerminateSent(code)),
        Ok(QpState::Terminate)
    );
    assert!(!q.may_send_terminate());
    // Never a second Terminate.
    assert!(matches!(
        q.handle(QpEvent::TerminateSent(code)),
        Err(QpError::InvalidTransition {
            from: QpState::Terminate,
            ..
        })
    ));
    let ev = q.take_event().unwrap();
    assert_eq!(ev.kind, AsyncEventKind::TerminateSent);
    assert_eq!((ev.layer, ev.error_type, ev.code), (0, 1, 0));
    assert_eq!(ev.terminate_code(), code);
    assert_eq!(q.take_event(), None);
    assert_eq!(q.handle(QpEvent::LlpClosed), Ok(QpState::Error));
    assert_eq!(q.handle(QpEvent::Reset), Ok(QpState::Idle));
}

#[test]
fn terminate_received() {
    let mut q = rts();
    let code = TerminateCode::Llp {
        error_type: 3,
        error_code: LlpErrorCode::CrcError.code(),
    };
    assert_eq!(
        q.handle(QpEvent::TerminateReceived(code)),
        Ok(QpState::Terminate)
    );
    let ev = q.take_event().unwrap();
    assert_eq!(ev.kind, AsyncEventKind::TerminateReceived);
    assert_eq!((ev.layer, ev.error_type, ev.code), (2, 3, 2));
    assert_eq!(q.handle(QpEvent::PeerClosed), Ok(QpState::Error));
}

#[test]
fn hardware_event_register() {
    let ev = AsyncEvent {
        kind: AsyncEventKind::TerminateReceived,
        layer: 1,
        error_type: 2,
        code: 5,
    };
    let v = ev.to_register();
    assert_eq!(v, regs::QP_AEV_VALID | 2 << 16 | 1 << 12 | 2 << 8 | 5);
    assert_eq!(AsyncEvent::from_register(v), Some(ev));
    assert_eq!(AsyncEvent::from_register(v & !regs::QP_AEV_VALID), None);
    assert_eq!(
        AsyncEvent::from_register(regs::QP_AEV_VALID | 9 << 16),
        None
    );
    let mut q = rts();
    assert_eq!(q.on_hw_event(0), Ok(None));
    assert_eq!(q.on_hw_event(v), Ok(Some(QpState::Terminate)));
    assert_eq!(q.take_event(), Some(ev));
    let mut q = rts();
    let cq = AsyncEvent {
        kind: AsyncEventKind::CqOverflow,
        layer: 0,
        error_type: 0,
        code: 0,
    };
    assert_eq!(q.on_hw_event(cq.to_register()), Ok(Some(QpState::Error)));
    assert_eq!(
        q.take_event().map(|e| e.kind),
        Some(AsyncEventKind::CqOverflow)
    );
}

#[test]
fn bad_terminate_and_reset() {
    let mut q = rts();
    assert_eq!(
        q.handle(QpEvent::BadTerminateReceived),
        Ok(QpState::Terminate)
    );
    assert_eq!(
        q.take_event().map(|e| e.kind),
        Some(AsyncEventKind::BadTerminateReceived)
    );
    let mut q = rts();
    assert_eq!(q.handle(QpEvent::LlpReset), Ok(QpState::Error));
    assert_eq!(q.take_event(), None);
}

#[test]
fn invalid_transitions_leave_the_state() {
    let mut q = Qp::new();
    for ev in [
        QpEvent::Close,
        QpEvent::LlpClosed,
        QpEvent::Reset,
        QpEvent::PeerClosed,
    ] {
        assert!(q.handle(ev).is_err());
        assert_eq!(q.state(), QpState::Idle);
    }
    let mut q = rts();
    assert!(q.handle(QpEvent::Connect).is_err());
    assert!(q.handle(QpEvent::Reset).is_err());
    assert_eq!(q.state(), QpState::Rts);
}
