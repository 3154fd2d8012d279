//! The room's timeline: the game, the dice, the action log and the event numbers.
//!
//! The game is a [`Board`]: a two-player `plyyard` game keyed by dice scheme `v1`, or a table of
//! any other edition or player count keyed by scheme `v2` (`fairness.md`).
//!
//! This is the only place that changes the game. [`Timeline::apply`] takes an action, asks the
//! rules, logs it and returns the numbered wire events; [`Timeline::start`] keys the die and
//! numbers `game_started`; [`Timeline::undo_to`] goes back to an earlier position; and
//! [`Timeline::presence`] numbers an event that changes no game (a player connecting or
//! disconnecting). Journaling and broadcasting what it returns is the room's one `publish`
//! (`core.rs`), so the order "journal, then send" is written once.
//!
//! The stale rule lives here too, since it is about event numbers: an action carries `seen`, the
//! last event number its client saw. It is refused (`stale`) when `seen` is older than the last
//! event that changed the game, or newer than the last event sent. A duplicate of an accepted
//! action is therefore always stale, since the original produced a newer game event. Presence
//! events do not make actions stale.

use aeroplane_dice::{ClientSeed, Commitment, DieStream, GameKey, Scheme, ServerSeed};
use aeroplane_protocol::board::Board;
use aeroplane_protocol::error::ErrorCode;
use aeroplane_protocol::events::Reveal;
use aeroplane_protocol::record::LoggedAction;
use aeroplane_protocol::server::{GameStarted, ServerMessage};
use aeroplane_protocol::snapshot::RoomPhase;
use aeroplane_rules::{Die, RuleError, Side, TableAction};
use time::OffsetDateTime;

/// A refusal: the stable code and a message for people.
pub(in crate::room) type Refusal = (ErrorCode, String);

/// The game and everything numbered about it.
#[derive(Debug)]
pub(in crate::room) struct Timeline {
    game: Board,
    server_seed: ServerSeed,
    commitment: Commitment,
    /// The die, from the moment the game starts (the client seeds are fixed then).
    dice: Option<DieStream>,
    actions: Vec<LoggedAction>,
    /// The number of the last room event.
    event: u64,
    /// The number of the last event that changed the game; actions must have seen it.
    state_event: u64,
    /// How many undos were made since the timeline was built.
    undos: u64,
    created_at: OffsetDateTime,
    started_at: Option<OffsetDateTime>,
}

impl Timeline {
    /// A timeline of `board` (in its initial position) before its game starts.
    pub(in crate::room) fn new(
        board: Board,
        server_seed: ServerSeed,
        created_at: OffsetDateTime,
    ) -> Timeline {
        Timeline {
            game: board,
            commitment: server_seed.commitment(),
            server_seed,
            dice: None,
            actions: Vec::new(),
            event: 0,
            state_event: 0,
            undos: 0,
            created_at,
            started_at: None,
        }
    }

    /// The position.
    pub(in crate::room) fn game(&self) -> &Board {
        &self.game
    }

    /// The dice scheme of this game: `v1` for two-player `plyyard`, `v2` otherwise.
    pub(in crate::room) fn scheme(&self) -> Scheme {
        Scheme::for_game(self.game.rules().ruleset(), self.game.players())
    }

    /// The action log, undone actions marked.
    pub(in crate::room) fn actions(&self) -> &[LoggedAction] {
        &self.actions
    }

    /// The number of the last room event.
    pub(in crate::room) fn event(&self) -> u64 {
        self.event
    }

    /// How many undos were made since the timeline was built (the journal writes the undone
    /// actions when this changes).
    pub(in crate::room) fn undos(&self) -> u64 {
        self.undos
    }

    /// The secret server seed.
    pub(in crate::room) fn server_seed(&self) -> &ServerSeed {
        &self.server_seed
    }

    /// The public commitment to the server seed.
    pub(in crate::room) fn commitment(&self) -> &Commitment {
        &self.commitment
    }

    /// When the room was created.
    pub(in crate::room) fn created_at(&self) -> OffsetDateTime {
        self.created_at
    }

    /// When the game started, once it has.
    pub(in crate::room) fn started_at(&self) -> Option<OffsetDateTime> {
        self.started_at
    }

    /// Waiting, playing or over.
    pub(in crate::room) fn phase(&self) -> RoomPhase {
        if self.game.is_over() {
            RoomPhase::Over
        } else if self.dice.is_some() {
            RoomPhase::Playing
        } else {
            RoomPhase::Waiting
        }
    }

    /// Whether the game is being played now.
    pub(in crate::room) fn is_live(&self) -> bool {
        self.phase() == RoomPhase::Playing
    }

    /// Whether the die is keyed (the game started, and may be over).
    pub(in crate::room) fn has_started(&self) -> bool {
        self.dice.is_some()
    }

    /// Refuses unless the game is being played now.
    pub(in crate::room) fn check_live(&self) -> Result<(), Refusal> {
        if self.game.is_over() {
            return Err(rule(RuleError::GameOver));
        }
        if !self.is_live() {
            return Err((
                ErrorCode::NotStarted,
                "the game starts when every seat is taken".into(),
            ));
        }
        Ok(())
    }

    /// Refuses an action whose `seen` is not the current state (the stale rule).
    pub(in crate::room) fn check_seen(&self, seen: u64) -> Result<(), Refusal> {
        if seen < self.state_event || seen > self.event {
            let text = format!(
                "you saw event {seen}, but the game is at event {} (last change {})",
                self.event, self.state_event
            );
            return Err((ErrorCode::Stale, text));
        }
        Ok(())
    }

    /// The die's key from the client seeds of every seated colour: scheme `v1` (Red's and
    /// Yellow's seeds) or `v2` (every seat's, with the ruleset), as `fairness.md` says.
    fn key(&self, seeds: &[(Side, ClientSeed)]) -> GameKey {
        let seed = |side: Side| {
            seeds
                .iter()
                .find(|(seated, _)| *seated == side)
                .map(|(_, seed)| seed.clone())
                .unwrap_or_default()
        };
        match self.scheme() {
            Scheme::V1 => GameKey::derive(&self.server_seed, &seed(Side::Red), &seed(Side::Yellow)),
            Scheme::V2 => {
                let seats: Vec<(Side, &ClientSeed)> =
                    seeds.iter().map(|(side, seed)| (*side, seed)).collect();
                GameKey::derive_v2(&self.server_seed, self.game.rules().ruleset(), &seats)
                    .expect("a board seats two to four different colours")
            }
        }
    }

    /// Keys the die from the client seeds of every seated colour and numbers `game_started`.
    /// The caller checked that the game has not started.
    pub(in crate::room) fn start(&mut self, seeds: &[(Side, ClientSeed)]) -> ServerMessage {
        self.dice = Some(DieStream::new(self.key(seeds)));
        self.started_at = Some(OffsetDateTime::now_utc());
        self.event += 1;
        self.state_event = self.event;
        let seed = |side: Side| {
            seeds
                .iter()
                .find(|(seated, _)| *seated == side)
                .map(|(_, seed)| seed.as_str().to_owned())
        };
        ServerMessage::GameStarted(GameStarted {
            event: self.event,
            commitment: self.commitment.to_string(),
            red_seed: seed(Side::Red).unwrap_or_default(),
            yellow_seed: seed(Side::Yellow).unwrap_or_default(),
            blue_seed: seed(Side::Blue),
            green_seed: seed(Side::Green),
            deadline_ms: None,
        })
    }

    /// Draws the next die value for a roll of `colour`, after checking the roll would be
    /// accepted: a refused roll never consumes a value of the stream.
    pub(in crate::room) fn draw(&mut self, colour: Side) -> Result<Die, RuleError> {
        self.game.check_roll(colour)?;
        let dice = self.dice.as_mut().ok_or(RuleError::GameOver)?;
        Ok(dice.next_die())
    }

    /// Applies an action through the rules, logs it and returns its numbered wire events.
    /// `seeds` (the client seeds of the seated colours) are asked only when the action ends the
    /// game, whose `game_over` reveals them with the server seed.
    pub(in crate::room) fn apply(
        &mut self,
        action: TableAction,
        seeds: impl FnOnce() -> Vec<(Side, String)>,
    ) -> Result<Vec<ServerMessage>, RuleError> {
        let events = self.game.apply(action)?;
        let first = self.event + 1;
        self.actions.push(LoggedAction {
            event: first,
            action,
            undone: false,
        });
        let reveal = || {
            let seeds = seeds();
            let seed = |side: Side| {
                seeds
                    .iter()
                    .find(|(seated, _)| *seated == side)
                    .map(|(_, seed)| seed.clone())
            };
            Reveal {
                server_seed: self.server_seed.to_hex(),
                commitment: self.commitment.to_string(),
                red_seed: seed(Side::Red).unwrap_or_default(),
                yellow_seed: seed(Side::Yellow).unwrap_or_default(),
                blue_seed: seed(Side::Blue),
                green_seed: seed(Side::Green),
            }
        };
        let messages = self.game.wire_events(action, &events, first, reveal);
        self.event += messages.len() as u64;
        self.state_event = self.event;
        Ok(messages)
    }

    /// Numbers one event that changes no game (presence, the rematch's room): it never makes an
    /// action stale.
    pub(in crate::room) fn presence(&mut self) -> u64 {
        self.event += 1;
        self.event
    }

    /// Goes back to `game`, the position before the action logged at `index`, marking that
    /// action and every later one undone; answers how many were, and the event number of the
    /// `undone` event that tells it. The die stream is never rewound.
    pub(in crate::room) fn undo_to(&mut self, game: Board, index: usize) -> (u32, u64) {
        self.game = game;
        self.undos += 1;
        let mut taken = 0u32;
        for logged in &mut self.actions[index..] {
            if !logged.undone {
                logged.undone = true;
                taken += 1;
            }
        }
        self.event += 1;
        self.state_event = self.event;
        (taken, self.event)
    }

    /// Puts back a journaled game: the start time, the die stream resumed after as many rolls
    /// as the log holds (undone ones included), and the actions replayed (undone ones skipped).
    /// `replayed` is told of every replayed action with the position before it, so the room can
    /// rebuild its undo points. Event numbers continue from the last journaled game event.
    pub(in crate::room) fn put_back(
        &mut self,
        started_at: OffsetDateTime,
        seeds: &[(Side, ClientSeed)],
        actions: Vec<LoggedAction>,
        mut replayed: impl FnMut(Board, TableAction, usize),
    ) -> Result<(), (usize, RuleError)> {
        let key = self.key(seeds);
        let rolls = actions
            .iter()
            .filter(|logged| matches!(logged.action, TableAction::Roll { .. }))
            .count() as u64;
        self.dice = Some(DieStream::resume(key, rolls));
        self.started_at = Some(started_at);
        let mut event = self.event;
        for (index, logged) in actions.iter().enumerate() {
            if logged.undone {
                continue;
            }
            let before = self.game;
            let action = logged.action;
            let events = self.game.apply(action).map_err(|error| (index, error))?;
            replayed(before, action, index);
            let produced = events.wire_event_count();
            event = event.max(logged.event + produced.saturating_sub(1));
        }
        if let Some(last) = actions.last() {
            event = event.max(last.event);
        }
        self.actions = actions;
        self.event = event;
        self.state_event = event;
        Ok(())
    }
}

/// A rules refusal as a wire refusal.
pub(in crate::room) fn rule(error: RuleError) -> Refusal {
    (error.into(), error.to_string())
}
