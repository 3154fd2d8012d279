//! The `colyseus` target: each room is two clients that match-make into one room of the
//! Colyseus peer (`bench/colyseus/server.js`) and take turns rolling and moving, speaking the
//! Colyseus 0.18 wire protocol as its SDK does (read from `@colyseus/core`'s source):
//!
//! 1. Match-making over HTTP: `POST /matchmake/create/dice` (the first player) and
//!    `POST /matchmake/joinById/{roomId}` (the second), JSON body `{}`, each answering a seat
//!    reservation `{name, sessionId, roomId, processId}`.
//! 2. A WebSocket to `/{processId}/{roomId}?sessionId={sessionId}`. The server sends a binary
//!    `JOIN_ROOM` frame (byte 10, then the reconnection token, serializer id and handshake); the
//!    client acknowledges it with the single byte 10, and only then is it in the room.
//! 3. Messages both ways are binary `ROOM_DATA` frames: byte 13, the message type as a msgpack
//!    string, then the payload as msgpack (absent for a `roll`). The room answers an action by
//!    broadcasting `rolled` or `moved` to both players (or `error` to the sender alone), and
//!    `game_over` after [`ACTIONS_PER_GAME`] actions; `game_started` once both have joined.
//! 4. Leaving: the byte 12 (`LEAVE_ROOM`), then the socket closes.
//!
//! A round trip ends when the acting client receives the broadcast answering its action; the
//! other client then reads its copy before acting, as a player would.

use std::io::Cursor;
use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use serde::{Deserialize, Serialize};
use tokio_tungstenite::tungstenite::Message;

use super::echo::ACTIONS_PER_GAME;
use super::pace::wait_until;
use super::socket::{self, Socket};
use super::{Ended, RoomSlot, within};

/// The room name the peer registers.
const ROOM_NAME: &str = "dice";
/// Protocol byte: the join handshake (and its acknowledgement).
const JOIN_ROOM: u8 = 10;
/// Protocol byte: an error before joining.
const ERROR: u8 = 11;
/// Protocol byte: leave the room.
const LEAVE_ROOM: u8 = 12;
/// Protocol byte: a user message with a msgpack payload.
const ROOM_DATA: u8 = 13;

/// Plays games in one room slot until the budget is spent.
pub(super) async fn run_room(slot: &mut RoomSlot<'_>) {
    let http = reqwest::Client::builder()
        .local_address(slot.source_addr(0))
        .build()
        .map_err(|_| "http".to_owned());
    while slot.budget.start_game() {
        let outcome = match &http {
            Ok(http) => game(slot, http).await,
            Err(code) => Err(code.clone()),
        };
        if !slot.settle(outcome) {
            break;
        }
    }
}

/// A seat reservation, the answer of a match-making request.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Reservation {
    session_id: String,
    room_id: String,
    process_id: String,
}

/// The fields of the peer's messages that the load generator reads.
#[derive(Debug, Default, Deserialize)]
struct Payload {
    /// The die value of a `rolled`.
    #[serde(default)]
    value: Option<u8>,
    /// The refusal code of an `error`.
    #[serde(default)]
    code: Option<String>,
}

/// The `move` message's payload.
#[derive(Debug, Serialize)]
struct MovePayload {
    plane: u8,
}

/// One decoded `ROOM_DATA` frame.
#[derive(Debug)]
struct RoomData {
    kind: String,
    payload: Payload,
}

/// Match-makes two clients into one room and plays one game.
async fn game(slot: &mut RoomSlot<'_>, http: &reqwest::Client) -> Result<Ended, String> {
    let timeout = slot.config.action_timeout;
    let base = slot.config.server.trim_end_matches('/');
    let first = within(
        timeout,
        reserve(http, &format!("{base}/matchmake/create/{ROOM_NAME}")),
    )
    .await
    .map_err(|_| "timeout_matchmake".to_owned())??;
    let second = within(
        timeout,
        reserve(
            http,
            &format!("{base}/matchmake/joinById/{}", first.room_id),
        ),
    )
    .await
    .map_err(|_| "timeout_matchmake".to_owned())??;
    let mut seats = Vec::with_capacity(2);
    for (connection, reservation) in [first, second].iter().enumerate() {
        let url = format!(
            "{}/{}/{}?sessionId={}",
            socket::ws_base(base),
            reservation.process_id,
            reservation.room_id,
            reservation.session_id
        );
        let bind = slot.source_addr(connection);
        let seat = within(timeout, async {
            let mut seat = socket::open(&url, bind).await?;
            handshake(&mut seat).await?;
            Ok::<_, String>(seat)
        })
        .await
        .map_err(|_| "timeout_join".to_owned())??;
        seats.push(seat);
    }
    for seat in &mut seats {
        within(timeout, expect(seat, "game_started"))
            .await
            .map_err(|_| "timeout_start".to_owned())??;
    }
    slot.start_game().await;
    let ended = play(slot, &mut seats, timeout).await;
    if matches!(ended, Ok(Ended::Cut)) {
        slot.budget.wait_to_close().await;
    }
    for mut seat in seats {
        let _ = seat.send(Message::binary(vec![LEAVE_ROOM])).await;
        let _ = seat.close(None).await;
    }
    ended
}

/// Takes turns until the room says the game is over.
async fn play(
    slot: &mut RoomSlot<'_>,
    seats: &mut [Socket],
    timeout: Duration,
) -> Result<Ended, String> {
    let mut roll = 0u8;
    for action in 0..ACTIONS_PER_GAME {
        if slot.cut() {
            return Ok(Ended::Cut);
        }
        // Red rolls and moves, then Yellow: the room passes the turn after every move.
        let actor = (action / 2 % 2) as usize;
        let (frame, answer) = if action.is_multiple_of(2) {
            (room_data("roll", None::<&()>), "rolled")
        } else {
            let plane = MovePayload { plane: roll % 4 };
            (room_data("move", Some(&plane)), "moved")
        };
        let due = wait_until(slot.pacer.next_due()).await;
        if slot.cut() {
            return Ok(Ended::Cut);
        }
        let seat = &mut seats[actor];
        let answered = within(timeout, async {
            seat.send(Message::binary(frame))
                .await
                .map_err(|_| "closed".to_owned())?;
            next_room_data(seat).await
        })
        .await??;
        if answered.kind == "error" {
            let code = answered.payload.code.unwrap_or_else(|| "error".to_owned());
            return Err(code);
        }
        if answered.kind != answer {
            return Err("unexpected".to_owned());
        }
        slot.tally.answered(due);
        if let Some(value) = answered.payload.value {
            roll = value;
        }
        within(timeout, expect(&mut seats[1 - actor], answer)).await??;
    }
    for seat in seats {
        within(timeout, expect(seat, "game_over")).await??;
    }
    Ok(Ended::Finished)
}

/// Asks the match-maker for a seat.
async fn reserve(http: &reqwest::Client, url: &str) -> Result<Reservation, String> {
    let response = http
        .post(url)
        .json(&serde_json::json!({}))
        .send()
        .await
        .map_err(|_| "http".to_owned())?;
    if !response.status().is_success() {
        return Err(format!("http_{}", response.status().as_u16()));
    }
    response.json().await.map_err(|_| "http".to_owned())
}

/// Waits for the room's `JOIN_ROOM` frame and acknowledges it.
async fn handshake(seat: &mut Socket) -> Result<(), String> {
    loop {
        let bytes = match seat.next().await {
            Some(Ok(Message::Binary(bytes))) => bytes,
            Some(Ok(_)) => continue,
            Some(Err(_)) | None => return Err("closed".to_owned()),
        };
        match bytes.first() {
            Some(&JOIN_ROOM) => break,
            Some(&ERROR) => return Err("join_refused".to_owned()),
            _ => return Err("unexpected".to_owned()),
        }
    }
    seat.send(Message::binary(vec![JOIN_ROOM]))
        .await
        .map_err(|_| "closed".to_owned())
}

/// Reads `ROOM_DATA` frames until one of type `kind` arrives.
async fn expect(seat: &mut Socket, kind: &str) -> Result<RoomData, String> {
    loop {
        let data = next_room_data(seat).await?;
        if data.kind == kind {
            return Ok(data);
        }
        if data.kind == "error" {
            return Err(data.payload.code.unwrap_or_else(|| "error".to_owned()));
        }
    }
}

/// The next `ROOM_DATA` frame (other frames, such as pings, are skipped).
async fn next_room_data(seat: &mut Socket) -> Result<RoomData, String> {
    loop {
        match seat.next().await {
            Some(Ok(Message::Binary(bytes))) if bytes.first() == Some(&ROOM_DATA) => {
                return decode_room_data(&bytes[1..]).ok_or_else(|| "malformed".to_owned());
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Err("closed".to_owned()),
        }
    }
}

/// A `ROOM_DATA` frame: the protocol byte, the type as a msgpack string, the payload.
fn room_data<T: Serialize>(kind: &str, payload: Option<&T>) -> Vec<u8> {
    let mut frame = vec![ROOM_DATA];
    rmp_serde::encode::write(&mut frame, kind).expect("a string encodes");
    if let Some(payload) = payload {
        rmp_serde::encode::write_named(&mut frame, payload).expect("the payload encodes");
    }
    frame
}

/// Decodes what follows the protocol byte of a `ROOM_DATA` frame.
fn decode_room_data(bytes: &[u8]) -> Option<RoomData> {
    let mut reader = Cursor::new(bytes);
    let kind: String = rmp_serde::decode::from_read(&mut reader).ok()?;
    let payload = if (reader.position() as usize) < bytes.len() {
        rmp_serde::decode::from_read(&mut reader).ok()?
    } else {
        Payload::default()
    };
    Some(RoomData { kind, payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_frame_is_the_protocol_byte_a_msgpack_type_and_a_msgpack_map() {
        let frame = room_data("move", Some(&MovePayload { plane: 2 }));
        // 13, fixstr "move", fixmap of one entry: fixstr "plane" → 2.
        let mut expected = vec![ROOM_DATA, 0xa4];
        expected.extend_from_slice(b"move");
        expected.extend_from_slice(&[0x81, 0xa5]);
        expected.extend_from_slice(b"plane");
        expected.push(2);
        assert_eq!(frame, expected);
        assert_eq!(
            room_data("roll", None::<&()>),
            [ROOM_DATA, 0xa4, b'r', b'o', b'l', b'l']
        );
    }

    #[test]
    fn a_rolled_broadcast_decodes_with_its_die_value() {
        // What msgpackr (useRecords: false) makes of {colour: "red", value: 5, event: 4}.
        let mut bytes = vec![0xa6];
        bytes.extend_from_slice(b"rolled");
        bytes.push(0x83);
        bytes.push(0xa6);
        bytes.extend_from_slice(b"colour");
        bytes.push(0xa3);
        bytes.extend_from_slice(b"red");
        bytes.push(0xa5);
        bytes.extend_from_slice(b"value");
        bytes.push(5);
        bytes.push(0xa5);
        bytes.extend_from_slice(b"event");
        bytes.push(4);
        let data = decode_room_data(&bytes).unwrap();
        assert_eq!(data.kind, "rolled");
        assert_eq!(data.payload.value, Some(5));
        assert_eq!(decode_room_data(&bytes[..7]).unwrap().payload.value, None);
    }
}
