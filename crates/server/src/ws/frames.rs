//! The control frames the server itself sends, as they go on the wire.

use aeroplane_protocol::error::CloseCode;
use bytes::Bytes;
use tungstenite::protocol::CloseFrame;
use tungstenite::protocol::frame::Frame;

/// A ping with no payload.
pub(super) fn ping() -> Bytes {
    encode(Frame::ping(Bytes::new()))
}

/// The close frame for `code`, with its reason.
pub(super) fn close(code: CloseCode) -> Bytes {
    encode(Frame::close(Some(CloseFrame {
        code: code.code().into(),
        reason: code.reason().into(),
    })))
}

fn encode(frame: Frame) -> Bytes {
    let mut bytes = Vec::with_capacity(frame.len());
    frame
        .format(&mut bytes)
        .expect("a frame formats into a vector");
    Bytes::from(bytes)
}
