//! The OpenAPI document (issue 20, point 16): served at `/api/openapi.json`, covering every
//! HTTP route the server has, and true to what the server sends: every field a schema requires
//! is in the real answers. (`.ci/schemathesis` checks a live server against it far more
//! thoroughly, with generated requests.)

use serde_json::Value;

use crate::support::spawn_app;

/// The schema a `$ref` or a schema points to.
fn resolve<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap();
            &document["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// Checks that `value` has every property `schema` requires, recursively through objects.
fn assert_required(document: &Value, schema: &Value, value: &Value, at: &str) {
    let schema = resolve(document, schema);
    if let Some(required) = schema["required"].as_array() {
        for name in required {
            let name = name.as_str().unwrap();
            assert!(
                value.get(name).is_some(),
                "{at}: `{name}` is required by the document but missing in {value}"
            );
            let property = &schema["properties"][name];
            if value[name].is_object() {
                assert_required(document, property, &value[name], &format!("{at}.{name}"));
            }
        }
    }
}

fn response_schema<'a>(document: &'a Value, path: &str, method: &str, status: &str) -> &'a Value {
    &document["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
}

#[tokio::test]
async fn the_openapi_document_covers_every_route_and_matches_real_answers() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(app.url("/api/openapi.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let document: Value = response.json().await.unwrap();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    for route in aeroplane_server::telemetry::ROUTES {
        let documented = document["paths"][route].is_object();
        let undocumented = ["/", "/{*path}", "/health", "/metrics"].contains(&route);
        assert!(
            documented || undocumented,
            "the route {route} is not in the document"
        );
    }

    let created = app
        .http
        .post(app.url("/api/rooms"))
        .json(&serde_json::json!({ "mode": "online" }))
        .send()
        .await
        .unwrap();
    let created: Value = created.json().await.unwrap();
    let schema = response_schema(&document, "/api/rooms", "post", "201");
    assert_required(&document, schema, &created, "RoomCreated");

    let id = created["id"].as_str().unwrap();
    let status: Value = app.get_json(&format!("/api/rooms/{id}")).await;
    let schema = response_schema(&document, "/api/rooms/{id}", "get", "200");
    assert_required(&document, schema, &status, "RoomStatus");

    let missing = app
        .http
        .get(app.url(&format!("/api/games/{}", uuid::Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let error: Value = missing.json().await.unwrap();
    let schema = response_schema(&document, "/api/games/{id}", "get", "404");
    assert_required(&document, schema, &error, "ApiError");
    let codes = &document["components"]["schemas"]["ErrorCode"]["enum"];
    assert!(
        codes.as_array().unwrap().contains(&error["code"]),
        "{error}"
    );
}

#[tokio::test]
async fn a_finished_games_record_list_and_replay_match_the_document() {
    let app = spawn_app().await;
    let document: Value = app.get_json("/api/openapi.json").await;
    let room = app.create_room().await;
    let (mut red, mut yellow) = app.start_game(&room).await;
    yellow.resign().await;
    red.recv_until(|m| matches!(m, aeroplane_protocol::server::ServerMessage::GameOver(_)))
        .await;
    app.stored_record(room.id).await;
    for (path, route, name) in [
        (
            format!("/api/games/{}", room.id),
            "/api/games/{id}",
            "GameRecord",
        ),
        (
            format!("/api/games/{}/replay", room.id),
            "/api/games/{id}/replay",
            "Replay",
        ),
        ("/api/games".to_owned(), "/api/games", "GameList"),
    ] {
        let response = app.http.get(app.url(&path)).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let value: Value = response.json().await.unwrap();
        let schema = response_schema(&document, route, "get", "200");
        assert_required(&document, schema, &value, name);
    }
}
