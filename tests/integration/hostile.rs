//! Hostile input against a live server: a corpus of bad frames, each answered with its error code,
//! while the game in the same room (and a game in another room) plays on unharmed.

use aeroplane_protocol::client::{Act, ClientMessage, MovePlane};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::{GameOver, ServerMessage};
use aeroplane_rules::{RuleError, Side};
use tokio_tungstenite::tungstenite::Message;

use crate::support::{Client, TestApp, TurnView, play_to_end, player_join, spawn_app};

/// One bad frame and the answer it must get.
struct Case {
    what: &'static str,
    frame: Message,
    code: ErrorCode,
    id: Option<u64>,
}

fn text(what: &'static str, frame: impl Into<String>, code: ErrorCode, id: Option<u64>) -> Case {
    Case {
        what,
        frame: Message::text(frame.into()),
        code,
        id,
    }
}

/// Frames no decoder should accept, sent by a seated player whose turn it is (`seen` is its
/// last event, so a frame refused for its shape is never refused for being stale instead).
fn decode_corpus(seen: u64) -> Vec<Case> {
    use ErrorCode::{BadField, Malformed, UnknownType};
    let deep_array = format!("{}{}", "[".repeat(1500), "]".repeat(1500));
    let deep_field = format!(
        r#"{{"type":"roll","id":20,"seen":{}0{}}}"#,
        "{\"a\":".repeat(300),
        "}".repeat(300)
    );
    vec![
        Case {
            what: "a binary frame",
            frame: Message::binary(format!(r#"{{"type":"roll","seen":{seen}}}"#).into_bytes()),
            code: Malformed,
            id: None,
        },
        text(
            "truncated JSON",
            r#"{"type":"roll","id":1,"se"#,
            Malformed,
            None,
        ),
        text("an empty frame", "", Malformed, None),
        text("a bare number", "12345", Malformed, None),
        text("null", "null", Malformed, None),
        text("control characters", "\u{0}\u{1}\u{7f}", Malformed, None),
        text("deeply nested arrays", deep_array, Malformed, None),
        text("deep nesting inside a field", deep_field, Malformed, None),
        text(
            "a number too large for any float",
            r#"{"type":"roll","id":2,"seen":1e999}"#,
            Malformed,
            None,
        ),
        text(
            "`seen` beyond u64",
            r#"{"type":"roll","id":3,"seen":18446744073709551616}"#,
            BadField,
            Some(3),
        ),
        text(
            "a request id beyond u64",
            r#"{"type":"ping","id":99999999999999999999999}"#,
            BadField,
            None,
        ),
        text(
            "a negative `seen`",
            r#"{"type":"roll","id":4,"seen":-1}"#,
            BadField,
            Some(4),
        ),
        text(
            "a fractional `seen`",
            r#"{"type":"roll","id":5,"seen":1.5}"#,
            BadField,
            Some(5),
        ),
        text(
            "`seen` as a string",
            r#"{"type":"roll","id":6,"seen":"3"}"#,
            BadField,
            Some(6),
        ),
        text(
            "a plane out of range",
            format!(r#"{{"type":"move","id":7,"seen":{seen},"plane":9}}"#),
            BadField,
            Some(7),
        ),
        text(
            "a plane beyond u32",
            format!(r#"{{"type":"move","id":8,"seen":{seen},"plane":4294967296}}"#),
            BadField,
            Some(8),
        ),
        text(
            "`type` not a string",
            r#"{"type":["roll"],"id":9}"#,
            Malformed,
            Some(9),
        ),
        text(
            "an unknown type",
            r#"{"type":"teleport","id":10}"#,
            UnknownType,
            Some(10),
        ),
        text(
            "an unknown field naming another seat",
            format!(r#"{{"type":"roll","id":11,"seen":{seen},"colour":"yellow"}}"#),
            BadField,
            Some(11),
        ),
        text(
            "an unknown field on join",
            r#"{"type":"join","id":12,"role":"player","name":"Ann","admin":true}"#,
            BadField,
            Some(12),
        ),
        text(
            "an unknown role",
            r#"{"type":"join","id":13,"role":"king","name":"Ann"}"#,
            BadField,
            Some(13),
        ),
        text(
            "duplicate keys (the last wins, and a move needs a plane)",
            format!(r#"{{"type":"roll","type":"move","id":14,"seen":{seen}}}"#),
            BadField,
            Some(14),
        ),
        text(
            "a name of the wrong type",
            r#"{"type":"join","id":15,"role":"spectator","name":{"first":"Eve"}}"#,
            BadField,
            Some(15),
        ),
    ]
}

/// Sends each case and checks its answer; a ping after each proves the socket is still open and
/// resets the count of bad frames in a row.
async fn send_corpus(client: &mut Client, corpus: Vec<Case>) {
    for (n, case) in corpus.into_iter().enumerate() {
        client.send_frame(case.frame).await;
        let ServerMessage::Error(error) = client.recv().await else {
            panic!("{}: no error", case.what);
        };
        assert_eq!(
            (error.code, error.id),
            (case.code, case.id),
            "{}: {error:?}",
            case.what
        );
        let ping = 1000 + n as u64;
        client
            .send_raw(format!(r#"{{"type":"ping","id":{ping}}}"#))
            .await;
        match client.recv().await {
            ServerMessage::Pong(pong) => assert_eq!(pong.id, Some(ping), "{}", case.what),
            other => panic!("{}: expected a pong, got {other:?}", case.what),
        }
    }
}

#[tokio::test]
async fn a_corpus_of_bad_frames_gets_its_codes_and_the_game_beside_it_plays_on() {
    let app = spawn_app().await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let mut watcher = app.connect(room.id).await;
    watcher.join_spectator("Eve").await;
    let mut stranger = app.connect(room.id).await;
    // Another room of the same server plays a whole game while the corpus is sent.
    let hostile = async {
        let before = red.sync().await;

        let corpus = decode_corpus(red.seen());
        send_corpus(&mut red, corpus).await;

        // Actions for another seat, from a spectator, and before joining are refused by the room.
        yellow.roll().await;
        yellow
            .expect_error(ErrorCode::Rule(RuleError::NotYourTurn))
            .await;
        yellow
            .move_plane(aeroplane_rules::Plane::new(0).unwrap())
            .await;
        yellow
            .expect_error(ErrorCode::Rule(RuleError::NotYourTurn))
            .await;
        // Resigning is allowed out of turn, so a resign that claims a future event shows the
        // stale rule instead.
        let id = Some(yellow.request_id());
        let future = yellow.seen() + 100;
        yellow
            .send(&ClientMessage::Resign(Act { id, seen: future }))
            .await;
        yellow.expect_error(ErrorCode::Stale).await;
        watcher.roll().await;
        watcher.expect_error(ErrorCode::SpectatorCannotAct).await;
        stranger.roll().await;
        stranger.expect_error(ErrorCode::NotJoined).await;
        // A guessed token, Red's token with one digit changed, and half of it take no seat.
        let red_token = red.token.clone().unwrap();
        let guessed = player_join("Mallory", None, Some("0".repeat(64)), None);
        expect_refused(&mut stranger, guessed, ErrorCode::BadToken).await;
        let mut near = red_token.clone();
        let last = if near.ends_with('0') { "1" } else { "0" };
        near.replace_range(63.., last);
        let near = player_join("Mallory", None, Some(near), None);
        expect_refused(&mut stranger, near, ErrorCode::BadToken).await;
        let half = player_join("Mallory", None, Some(red_token[..32].into()), None);
        expect_refused(&mut stranger, half, ErrorCode::BadToken).await;
        // A name no player may have takes no seat (issue 20): control characters, escapes,
        // bidi overrides, invisible characters.
        for (what, name) in crate::names::hostile_names() {
            let join = player_join(&name, None, None, None);
            let ServerMessage::Error(error) = stranger.join(join).await else {
                panic!("{what}: a hostile name was accepted");
            };
            assert_eq!(error.code, ErrorCode::BadField, "{what}");
        }

        // Nothing changed: the same position and event number.
        let after = red.sync().await;
        assert_eq!((after.game, after.event), (before.game, before.event));
    };
    tokio::join!(hostile, play_a_quiet_game(&app));

    let (over, accepted) = play_replaying_every_action(&mut red, &mut yellow).await;
    watcher.catch_up(over.event).await;
    let record = app.stored_record(room.id).await;
    assert_eq!(record.result, over.result);
    assert_eq!(
        record.actions.len(),
        accepted,
        "the record holds exactly the accepted actions"
    );
}

async fn expect_refused(
    client: &mut Client,
    join: aeroplane_protocol::client::Join,
    code: ErrorCode,
) {
    let ServerMessage::Error(error) = client.join(join).await else {
        panic!("a join that should fail succeeded");
    };
    assert_eq!(error.code, code);
}

/// Plays a whole game in a new room of `app` and checks its record.
async fn play_a_quiet_game(app: &TestApp) {
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    let over = play_to_end(&mut red, &mut yellow, |_| {}).await;
    assert_eq!(app.stored_record(room.id).await.result, over.result);
}

/// Plays both seats to the end like `play_to_end`, but after every accepted action its player
/// sends the very same frame again: each replay must be refused as `stale` and change nothing.
/// Returns the `game_over` and the number of accepted actions.
async fn play_replaying_every_action(red: &mut Client, yellow: &mut Client) -> (GameOver, usize) {
    let mut turn = TurnView::of(red);
    let mut accepted = 0;
    loop {
        let colour = turn.actor();
        let actor = if colour == Side::Red {
            &mut *red
        } else {
            &mut *yellow
        };
        let id = Some(actor.request_id());
        let seen = actor.seen();
        let message = match turn.pending() {
            None => ClientMessage::Roll(Act { id, seen }),
            Some(legal) => ClientMessage::Move(MovePlane {
                id,
                seen,
                plane: legal.iter().next().unwrap(),
            }),
        };
        let frame = message.to_json();
        actor.send_raw(frame.clone()).await;
        accepted += 1;
        turn.sent();
        while !turn.settled() {
            let message = red.recv().await;
            if let ServerMessage::Error(error) = &message {
                panic!("unexpected error: {error:?}");
            }
            if let ServerMessage::GameOver(over) = message {
                yellow.catch_up(over.event).await;
                return (over, accepted);
            }
            turn.follow(&message);
        }
        yellow.catch_up(red.seen()).await;
        let replayer = if colour == Side::Red {
            &mut *red
        } else {
            &mut *yellow
        };
        replayer.send_raw(frame).await;
        let error = replayer.expect_error(ErrorCode::Stale).await;
        assert_eq!(error.id, id);
    }
}
