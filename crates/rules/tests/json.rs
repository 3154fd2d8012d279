//! The stable JSON form of games, events and actions (feature `serde`, `docs/state-json.md`):
//! the shape asserted literally, and inconsistent positions refused on the way in.
//!
//! The package enables its own `serde` feature for tests (a dev-dependency on itself), so plain
//! `cargo test` runs these.

mod common;

use aeroplane_rules::{Action, Event, Events, Forfeit, Game, RULESET};
use common::*;
use serde_json::{Value, json};

fn to_json(game: &Game) -> Value {
    serde_json::to_value(game).unwrap()
}

fn events_json(events: &Events) -> Value {
    serde_json::to_value(events.as_slice()).unwrap()
}

/// Asserts that `value` is refused as a game, with a message containing `reason`.
fn assert_refused_json(value: Value, reason: &str) {
    let error = serde_json::from_value::<Game>(value.clone()).expect_err(&value.to_string());
    assert!(
        error.to_string().contains(reason),
        "{value}: `{error}` does not say `{reason}`"
    );
}

#[test]
fn the_initial_position_has_this_exact_shape() {
    let expected = json!({
        "ruleset": "plyyard",
        "planes": {
            "red": ["base", "base", "base", "base"],
            "yellow": ["base", "base", "base", "base"]
        },
        "to_act": "red",
        "phase": { "kind": "awaiting_roll" },
        "sixes": 0,
        "draw": { "offer": null, "may_offer": { "red": true, "yellow": true } }
    });
    assert_eq!(to_json(&Game::new()), expected);
    assert_eq!(RULESET, "plyyard");
    assert_eq!(
        serde_json::from_value::<Game>(expected).unwrap(),
        Game::new()
    );
}

#[test]
fn a_position_awaiting_a_move_lists_the_roll_and_the_legal_planes() {
    let game = position("b,b,12,f b,30,52,b yellow 4 0");
    assert_eq!(
        serde_json::to_string(&game).unwrap(),
        r#"{"ruleset":"plyyard","planes":{"red":["base","base",12,"finished"],"yellow":["base",30,52,"base"]},"to_act":"yellow","phase":{"kind":"awaiting_move","roll":4,"legal":[1,2]},"sixes":0,"draw":{"offer":null,"may_offer":{"red":true,"yellow":true}}}"#
    );
}

#[test]
fn a_standing_offer_and_the_offerers_wait_are_part_of_the_state() {
    let mut game = Game::new();
    game.offer_draw(YELLOW).unwrap();
    let value = to_json(&game);
    assert_eq!(
        value["draw"],
        json!({ "offer": "yellow", "may_offer": { "red": true, "yellow": false } })
    );
    assert_eq!(serde_json::from_value::<Game>(value).unwrap(), game);
}

#[test]
fn a_finished_game_records_the_outcome() {
    let mut game = position("55,f,f,f 10,b,b,b red 1 0");
    let events = move_plane(&mut game, 0);
    assert_eq!(
        to_json(&game),
        json!({
            "ruleset": "plyyard",
            "planes": {
                "red": ["finished", "finished", "finished", "finished"],
                "yellow": [10, "base", "base", "base"]
            },
            "to_act": "red",
            "phase": { "kind": "over", "winner": "red", "reason": "finished" },
            "sixes": 0,
            "draw": { "offer": null, "may_offer": { "red": true, "yellow": true } }
        })
    );
    assert_eq!(
        serde_json::from_value::<Game>(to_json(&game)).unwrap(),
        game
    );
    assert_eq!(
        events_json(&events),
        json!([
            {
                "event": "moved", "colour": "red", "plane": 0, "from": 55, "to": "finished",
                "capture": null, "finished": true, "extra_roll": false
            },
            { "event": "game_over", "outcome": { "winner": "red", "reason": "finished" } }
        ])
    );
}

#[test]
fn a_drawn_game_has_no_winner() {
    let mut game = Game::new();
    game.offer_draw(RED).unwrap();
    game.accept_draw(YELLOW).unwrap();
    assert_eq!(
        to_json(&game)["phase"],
        json!({ "kind": "over", "winner": null, "reason": "agreed" })
    );
}

#[test]
fn events_have_this_exact_shape() {
    let mut game = position("10,b,b,b 40,40,b,b red 4 0");
    assert_eq!(
        events_json(&move_plane(&mut game, 0)),
        json!([
            {
                "event": "moved", "colour": "red", "plane": 0, "from": 10, "to": 14,
                "capture": { "colour": "yellow", "planes": [0, 1], "square": 14 },
                "finished": false, "extra_roll": true
            }
        ])
    );
    let mut game = position("10,b,b,b 40,b,b,b red - 2");
    game.offer_draw(YELLOW).unwrap();
    assert_eq!(
        events_json(&roll(&mut game, 6)),
        json!([
            { "event": "rolled", "colour": "red", "value": 6, "legal": [] },
            { "event": "draw_declined", "by": "red", "implicit": true },
            { "event": "turn_passed", "from": "red", "to": "yellow", "reason": "void_third_six" }
        ])
    );
    let mut game = Game::new();
    assert_eq!(
        events_json(&roll(&mut game, 6))[0]["legal"],
        json!([0, 1, 2, 3])
    );
    assert_eq!(
        events_json(&move_plane(&mut game, 3)),
        json!([
            {
                "event": "moved", "colour": "red", "plane": 3, "from": "base", "to": 0,
                "capture": null, "finished": false, "extra_roll": true
            }
        ])
    );
    assert_eq!(
        events_json(&game.offer_draw(RED).unwrap()),
        json!([{ "event": "draw_offered", "by": "red" }])
    );
    assert_eq!(
        events_json(&game.withdraw_draw(RED).unwrap()),
        json!([{ "event": "draw_withdrawn", "by": "red" }])
    );
    assert_eq!(
        events_json(&game.resign(YELLOW).unwrap()),
        json!([
            { "event": "resigned", "colour": "yellow" },
            { "event": "game_over", "outcome": { "winner": "red", "reason": "resigned" } }
        ])
    );
}

#[test]
fn actions_have_this_exact_shape() {
    let actions = [
        Action::Roll {
            colour: RED,
            value: die(6),
        },
        Action::Move {
            colour: YELLOW,
            plane: plane(2),
        },
        Action::Resign { colour: RED },
        Action::OfferDraw { colour: RED },
        Action::AcceptDraw { colour: YELLOW },
        Action::DeclineDraw { colour: YELLOW },
        Action::WithdrawDraw { colour: RED },
        Action::Forfeit {
            colour: RED,
            reason: Forfeit::Abandoned,
        },
        Action::Forfeit {
            colour: YELLOW,
            reason: Forfeit::Timeout,
        },
    ];
    let expected = json!([
        { "action": "roll", "colour": "red", "value": 6 },
        { "action": "move", "colour": "yellow", "plane": 2 },
        { "action": "resign", "colour": "red" },
        { "action": "offer_draw", "colour": "red" },
        { "action": "accept_draw", "colour": "yellow" },
        { "action": "decline_draw", "colour": "yellow" },
        { "action": "withdraw_draw", "colour": "red" },
        { "action": "forfeit", "colour": "red", "reason": "abandoned" },
        { "action": "forfeit", "colour": "yellow", "reason": "timeout" }
    ]);
    assert_eq!(serde_json::to_value(actions).unwrap(), expected);
    assert_eq!(
        serde_json::from_value::<[Action; 9]>(expected).unwrap(),
        actions
    );
}

#[test]
fn out_of_range_values_are_refused_in_events_and_actions() {
    for bad in [
        json!({ "action": "roll", "colour": "red", "value": 7 }),
        json!({ "action": "roll", "colour": "red", "value": 0 }),
        json!({ "action": "move", "colour": "red", "plane": 4 }),
        json!({ "action": "move", "colour": "green", "plane": 0 }),
        json!({ "action": "fly", "colour": "red" }),
    ] {
        assert!(
            serde_json::from_value::<Action>(bad.clone()).is_err(),
            "{bad}"
        );
    }
    let mut moved = json!({
        "event": "moved", "colour": "yellow", "plane": 0, "from": 10, "to": 14,
        "capture": { "colour": "red", "planes": [0], "square": 36 },
        "finished": false, "extra_roll": true
    });
    let event = serde_json::from_value::<Event>(moved.clone()).unwrap();
    assert_eq!(serde_json::to_value(event).unwrap(), moved);
    moved["capture"]["square"] = json!(52);
    assert!(serde_json::from_value::<Event>(moved).is_err());
}

#[test]
fn inconsistent_or_malformed_positions_are_refused() {
    let good = to_json(&position("10,b,b,b 40,b,b,b red - 0"));
    let with = |pointer: &str, value: Value| {
        let mut changed = good.clone();
        *changed.pointer_mut(pointer).unwrap() = value;
        changed
    };
    assert_refused_json(
        with("/ruleset", json!("classic")),
        "unknown ruleset `classic`",
    );
    assert_refused_json(with("/planes/red/0", json!(56)), "from 0 to 55");
    assert_refused_json(with("/planes/red/0", json!(-1)), "");
    assert_refused_json(with("/planes/red/0", json!("home")), "");
    assert_refused_json(with("/planes/red", json!(["base", "base", "base"])), "");
    assert_refused_json(with("/planes/red/0", json!(14)), "unsafe ring square 14");
    assert_refused_json(with("/to_act", json!("green")), "");
    assert_refused_json(with("/sixes", json!(3)), "six counter");
    assert_refused_json(
        with(
            "/planes/yellow",
            json!(["finished", "finished", "finished", "finished"]),
        ),
        "all four of Yellow's planes are finished",
    );
    assert_refused_json(
        with(
            "/phase",
            json!({ "kind": "awaiting_move", "roll": 6, "legal": [0, 1, 2, 3] }),
        ),
        "must be 1 or 2",
    );
    assert_refused_json(
        with(
            "/phase",
            json!({ "kind": "awaiting_move", "roll": 2, "legal": [0, 1] }),
        ),
        "not the ones the rules allow",
    );
    assert_refused_json(with("/phase", json!({ "kind": "thinking" })), "");
    let mut missing_field = good.clone();
    missing_field.as_object_mut().unwrap().remove("sixes");
    assert_refused_json(missing_field, "missing field `sixes`");
    let mut unknown_field = good.clone();
    unknown_field["clock"] = json!(30);
    assert_refused_json(unknown_field, "unknown field `clock`");
    let over = to_json(&{
        let mut game = position("10,b,b,b 40,b,b,b red - 0");
        game.resign(RED).unwrap();
        game
    });
    let mut over_with_offer = over.clone();
    over_with_offer["draw"]["offer"] = json!("red");
    assert_refused_json(over_with_offer, "no standing draw offer");
    // An absent `draw.offer` reads as no offer.
    let mut no_offer_field = good.clone();
    no_offer_field["draw"]
        .as_object_mut()
        .unwrap()
        .remove("offer");
    let read = serde_json::from_value::<Game>(no_offer_field).unwrap();
    assert_eq!(read.draw().standing_offer(), None);
    // The accepted baseline really is accepted.
    serde_json::from_value::<Game>(good).unwrap();
    serde_json::from_value::<Game>(over).unwrap();
}

#[test]
fn a_finished_game_whose_outcome_does_not_fit_its_planes_is_refused() {
    let resigned = to_json(&{
        let mut game = position("10,b,b,b 40,b,b,b red - 0");
        game.resign(RED).unwrap();
        game
    });
    let with_phase = |phase: Value| {
        let mut changed = resigned.clone();
        changed["phase"] = phase;
        changed
    };
    assert_refused_json(
        with_phase(json!({ "kind": "over", "winner": "red", "reason": "finished" })),
        "cannot have won by finishing",
    );
    assert_refused_json(
        with_phase(json!({ "kind": "over", "winner": null, "reason": "resigned" })),
        "a draw is only ever agreed",
    );
    assert_refused_json(
        with_phase(json!({ "kind": "over", "winner": "yellow", "reason": "agreed" })),
        "an agreed end is a draw",
    );
    let mut yellow_all_home = resigned.clone();
    yellow_all_home["planes"]["yellow"] = json!(["finished", "finished", "finished", "finished"]);
    assert_refused_json(yellow_all_home, "ended by finishing");
    serde_json::from_value::<Game>(with_phase(
        json!({ "kind": "over", "winner": null, "reason": "agreed" }),
    ))
    .unwrap();
}
