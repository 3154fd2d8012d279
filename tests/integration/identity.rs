//! Guest identities: created without sign-up, known by their secret, renamed, and tied to the
//! seats they take, so any connection of the same player finds its live games.

use aeroplane_protocol::api::{ApiError, LiveRooms, PlayerCreated, PlayerProfile};
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::Side;
use uuid::Uuid;

use crate::support::{TestApp, player_join, spawn_app, welcome};

/// A player made with `POST /api/players`.
#[derive(Clone, Debug)]
pub(crate) struct Identity {
    pub(crate) id: Uuid,
    pub(crate) secret: String,
    pub(crate) name: String,
}

impl Identity {
    /// `<player id>.<secret>`, as `join`'s `player` and the bearer credential carry it.
    pub(crate) fn credentials(&self) -> String {
        format!("{}.{}", self.id, self.secret)
    }
}

/// Creates a player named `name` on the server at `base` (`http://host:port`).
pub(crate) async fn new_identity_at(http: &reqwest::Client, base: &str, name: &str) -> Identity {
    let response = http
        .post(format!("{base}/api/players"))
        .json(&serde_json::json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "creating a player");
    let created: PlayerCreated = response.json().await.unwrap();
    Identity {
        id: created.id,
        secret: created.secret,
        name: created.name,
    }
}

pub(crate) async fn new_identity(app: &TestApp, name: &str) -> Identity {
    new_identity_at(&app.http, &format!("http://{}", app.addr), name).await
}

/// A player's `join` of `colour` (or of the seat of `token`) as `identity`.
pub(crate) fn join_as(
    identity: &Identity,
    colour: Option<Side>,
    token: Option<String>,
) -> aeroplane_protocol::client::Join {
    let mut join = player_join(&identity.name, colour, token, None);
    join.player = Some(identity.credentials());
    join
}

/// `GET path` with `identity`'s credentials: the status and the body.
async fn get_as(app: &TestApp, path: &str, identity: Option<&str>) -> (u16, serde_json::Value) {
    let mut request = app.http.get(app.url(path));
    if let Some(credentials) = identity {
        request = request.bearer_auth(credentials);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

pub(crate) async fn profile(app: &TestApp, id: Uuid) -> PlayerProfile {
    let (status, body) = get_as(app, &format!("/api/players/{id}"), None).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).unwrap()
}

fn code(body: serde_json::Value) -> ErrorCode {
    serde_json::from_value::<ApiError>(body).unwrap().code
}

#[tokio::test]
async fn a_guest_identity_is_made_without_sign_up_and_known_by_its_secret() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    assert_eq!(ann.secret.len(), 43, "32 bytes of unpadded base64url");
    assert_eq!(ann.name, "Ann");

    let (status, body) = get_as(&app, "/api/players/me", Some(&ann.credentials())).await;
    assert_eq!(status, 200, "{body}");
    let me: PlayerProfile = serde_json::from_value(body).unwrap();
    assert_eq!((me.id, me.name.as_str()), (ann.id, "Ann"));
    assert_eq!((me.rating.rating, me.rating.deviation), (1500.0, 350.0));
    assert!(me.rating.provisional);
    assert_eq!((me.games, me.wins, me.losses, me.draws), (0, 0, 0, 0));
    assert_eq!(
        profile(&app, ann.id).await,
        me,
        "the public profile is the same"
    );

    // No name: a generated guest name.
    let response = app
        .http
        .post(app.url("/api/players"))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let guest: PlayerCreated = response.json().await.unwrap();
    assert!(guest.name.starts_with("Guest "), "{}", guest.name);
}

#[tokio::test]
async fn wrong_missing_or_unknown_credentials_are_bad_identity() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let other = new_identity(&app, "Other").await;
    let stolen = format!("{}.{}", ann.id, other.secret);
    let unknown = format!("{}.{}", Uuid::new_v4(), ann.secret);
    for credentials in [
        None,
        Some("garbage"),
        Some(stolen.as_str()),
        Some(unknown.as_str()),
    ] {
        let (status, body) = get_as(&app, "/api/players/me", credentials).await;
        assert_eq!(
            (status, code(body)),
            (401, ErrorCode::BadIdentity),
            "{credentials:?}"
        );
    }
    let (status, body) = get_as(&app, &format!("/api/players/{}", Uuid::new_v4()), None).await;
    assert_eq!((status, code(body)), (404, ErrorCode::PlayerNotFound));
    let response = app
        .http
        .post(app.url("/api/rooms"))
        .bearer_auth(&stolen)
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        401,
        "a room request with wrong credentials"
    );
}

#[tokio::test]
async fn a_player_renames_themself_with_a_valid_name_only() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let rename = |name: &str| {
        app.http
            .patch(app.url("/api/players/me"))
            .bearer_auth(ann.credentials())
            .json(&serde_json::json!({ "name": name }))
            .send()
    };
    let response = rename("  Annie ").await.unwrap();
    assert_eq!(response.status(), 200);
    let renamed: PlayerProfile = response.json().await.unwrap();
    assert_eq!(renamed.name, "Annie");
    assert_eq!(profile(&app, ann.id).await.name, "Annie");
    let response = rename("A\u{202e}nn").await.unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(code(response.json().await.unwrap()), ErrorCode::BadField);
}

#[tokio::test]
async fn identities_hold_across_two_connections_and_a_reconnect() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let bob = new_identity(&app, "Bob").await;
    let room = app.create_room().await;
    let mut red = app.connect(room.id).await;
    let red_welcome = welcome(red.join(join_as(&ann, Some(Side::Red), None)).await);
    let mut yellow = app.connect(room.id).await;
    welcome(yellow.join(join_as(&bob, Some(Side::Yellow), None)).await);

    // Any tab of Ann's finds the game and its seat token.
    let (status, body) = get_as(&app, "/api/players/me/live", Some(&ann.credentials())).await;
    assert_eq!(status, 200, "{body}");
    let live: LiveRooms = serde_json::from_value(body).unwrap();
    assert_eq!(live.rooms.len(), 1);
    let seat = &live.rooms[0];
    assert_eq!((seat.room_id, seat.colour), (room.id, Side::Red));
    assert_eq!(Some(&seat.token), red_welcome.token.as_ref());
    assert_eq!(seat.ws_path, format!("/ws/rooms/{}", room.id));
    assert_eq!(seat.phase, RoomPhase::Playing);
    let (_, body) = get_as(&app, "/api/players/me/live", Some(&bob.credentials())).await;
    let bobs: LiveRooms = serde_json::from_value(body).unwrap();
    assert_eq!(bobs.rooms[0].colour, Side::Yellow);

    // Bob may not take Ann's seat with her token; Ann's second tab may.
    let mut intruder = app.connect(room.id).await;
    let refused = intruder
        .join(join_as(&bob, None, Some(seat.token.clone())))
        .await;
    assert!(
        matches!(&refused, ServerMessage::Error(error) if error.code == ErrorCode::BadIdentity),
        "{refused:?}"
    );
    let mut second_tab = app.connect(room.id).await;
    let again = welcome(
        second_tab
            .join(join_as(&ann, None, Some(seat.token.clone())))
            .await,
    );
    assert_eq!(again.colour, Some(Side::Red));
    let seats = &again.snapshot.seats;
    let tied = |seat: &Option<aeroplane_protocol::snapshot::SeatView>| {
        seat.as_ref().and_then(|seat| seat.player_id)
    };
    assert_eq!(
        (tied(&seats.red), tied(&seats.yellow)),
        (Some(ann.id), Some(bob.id))
    );
    assert!(red.closed().await.is_some(), "the first tab is replaced");

    // The game's record names both players.
    second_tab.resign().await;
    let record = app.stored_record(room.id).await;
    assert_eq!(record.players.red.player_id, Some(ann.id));
    assert_eq!(record.players.yellow.player_id, Some(bob.id));
    assert!(record.rated);
    // And both players' lists hold it.
    let (_, body) = get_as(&app, &format!("/api/games?player={}", ann.id), None).await;
    let games: aeroplane_protocol::api::GameList = serde_json::from_value(body).unwrap();
    assert_eq!(games.games.len(), 1);
    assert!(games.games[0].rated);
}

#[tokio::test]
async fn a_join_with_bad_credentials_is_refused_and_one_without_stays_anonymous() {
    let app = spawn_app().await;
    let ann = new_identity(&app, "Ann").await;
    let room = app.create_room().await;
    let mut client = app.connect(room.id).await;
    let mut join = join_as(&ann, Some(Side::Red), None);
    join.player = Some(format!("{}.{}", ann.id, "A".repeat(43)));
    let refused = client.join(join).await;
    assert!(
        matches!(&refused, ServerMessage::Error(error) if error.code == ErrorCode::BadIdentity),
        "{refused:?}"
    );
    // The same connection may still join, anonymously.
    welcome(
        client
            .join(player_join("Ann", Some(Side::Red), None, None))
            .await,
    );
    let mut yellow = app.connect(room.id).await;
    welcome(yellow.join(join_as(&ann, Some(Side::Yellow), None)).await);
    client
        .recv_until(|m| matches!(m, ServerMessage::GameStarted(_)))
        .await;
    client.resign().await;
    let record = app.stored_record(room.id).await;
    assert_eq!(record.players.red.player_id, None);
    assert_eq!(record.players.yellow.player_id, Some(ann.id));
    assert!(!record.rated, "one anonymous seat: unrated");
}
