//! The record of a finished game: what the store keeps, the API serves and verifiers check.
//!
//! A record holds everything needed to replay the game through the rules crate and to re-derive
//! every roll from the revealed seeds (`fairness.md`), so it can be trusted without the server.
//!
//! A record is served, written to the outbox and stored, so it carries its format: `format`. A
//! record without the field (every record written before it existed) is of format 1. A reader
//! refuses a record of a format newer than it knows with an error naming both versions, rather
//! than misread it.
//!
//! Format 2 is the record of every edition and of games of three or four: it may seat Blue and
//! Green, names the edition's house rules, ranks every seat and carries the seeds of scheme `v2`.
//! A two-player `plyyard` game is still written as format 1, exactly as before, so a reader that
//! knows only format 1 keeps reading every game it can play.
//!
//! Over 500 lines on purpose (the tests are in `record/tests.rs`): the record, its parts, its
//! checks and the text of its action log (`LoggedAction::write_json`, `GameRecord::to_json_vec`,
//! which must stay byte for byte the `Serialize` forms beside them) read together.

use aeroplane_rules::{
    Action, Colour, Die, EndReason, Forfeit, Game, Plane, ReplayError, Rules, Ruleset, Side, Table,
    TableAction, TableReplayError,
};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::text;

/// The kind of room a game was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Two people on two connections.
    Online,
    /// A person against a bot.
    Computer,
    /// Two people on one device, one connection controlling both colours.
    Local,
}

impl Mode {
    /// The stable lower-case name, e.g. `online`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Online => "online",
            Mode::Computer => "computer",
            Mode::Local => "local",
        }
    }
}

/// Whether a seat was played by a person or a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlayerKind {
    /// A person.
    Human,
    /// The server's bot.
    Computer,
}

/// One seat of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlayerRecord {
    /// The display name the player gave.
    pub name: String,
    /// Person or bot.
    pub kind: PlayerKind,
    /// The bot's level (`easy`, `normal`, `hard`, `random`) for a computer seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// The identified player (`POST /api/players`) who held the seat; absent for an anonymous
    /// or computer seat, and in records written before identities existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<Uuid>,
}

/// The seats of a game: Red and Yellow always, Blue with three players or more, Green with four.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Players {
    /// The Red seat (Red rolls first).
    pub red: PlayerRecord,
    /// The Yellow seat.
    pub yellow: PlayerRecord,
    /// The Blue seat, in games of three or four (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue: Option<PlayerRecord>,
    /// The Green seat, in games of four (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green: Option<PlayerRecord>,
}

impl Players {
    /// The seat of `colour`.
    pub fn get(&self, colour: Colour) -> &PlayerRecord {
        match colour {
            Colour::Red => &self.red,
            Colour::Yellow => &self.yellow,
        }
    }

    /// The seat of `side`, if it is seated.
    pub fn seat(&self, side: Side) -> Option<&PlayerRecord> {
        match side {
            Side::Red => Some(&self.red),
            Side::Yellow => Some(&self.yellow),
            Side::Blue => self.blue.as_ref(),
            Side::Green => self.green.as_ref(),
        }
    }

    /// How many seats there are (2 to 4).
    pub fn count(&self) -> usize {
        2 + usize::from(self.blue.is_some()) + usize::from(self.green.is_some())
    }
}

/// How the game ended: the winner (none for a draw), the reason and, for a table of any edition,
/// every seat's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ResultRecord {
    /// The winner (first place), or `null` for a draw.
    #[schema(value_type = Option<crate::openapi::ColourName>)]
    pub winner: Option<Side>,
    /// Why the game ended (for a table: why its last step ended it).
    #[schema(value_type = crate::openapi::EndReasonName)]
    pub reason: EndReason,
    /// Format 2 only: each seat's final place from 1, `null` for the players still in play when
    /// a draw was agreed (they share the best place left). Absent in a two-player `plyyard`
    /// result, where the winner says it all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub places: Option<Places>,
}

impl ResultRecord {
    /// A two-player `plyyard` result: its winner and reason, no places.
    pub fn plyyard(winner: Option<Colour>, reason: EndReason) -> ResultRecord {
        ResultRecord {
            winner: winner.map(Side::from),
            reason,
            places: None,
        }
    }

    /// The winner as a two-player `plyyard` colour (`None` for a draw, or a Blue or Green one).
    pub fn plyyard_winner(&self) -> Option<Colour> {
        self.winner.and_then(Side::colour)
    }

    /// The result of a finished table: winner, reason and every seat's place.
    pub fn of_table(table: &Table) -> Option<ResultRecord> {
        let outcome = table.outcome()?;
        let mut places = Places::default();
        for side in table.sides() {
            *places.get_mut(side) = table.place(side);
        }
        Some(ResultRecord {
            winner: outcome.winner,
            reason: outcome.reason,
            places: Some(places),
        })
    }
}

/// A place (from 1) per seated colour; `null` or absent for a colour with none.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
pub struct Places {
    /// Red's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<u8>,
    /// Green's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green: Option<u8>,
    /// Yellow's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yellow: Option<u8>,
    /// Blue's place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue: Option<u8>,
}

impl Places {
    /// The place of `side`, if it has one.
    pub const fn get(&self, side: Side) -> Option<u8> {
        match side {
            Side::Red => self.red,
            Side::Green => self.green,
            Side::Yellow => self.yellow,
            Side::Blue => self.blue,
        }
    }

    /// The place of `side`, to set it.
    pub fn get_mut(&mut self, side: Side) -> &mut Option<u8> {
        match side {
            Side::Red => &mut self.red,
            Side::Green => &mut self.green,
            Side::Yellow => &mut self.yellow,
            Side::Blue => &mut self.blue,
        }
    }
}

/// One action of the log, with the room event number it produced.
///
/// Written by hand as the flat object its derived form wrote (the event, the action's fields,
/// `undone` when set): serde's `flatten` went through a map serializer for every action, the
/// largest part of writing a journal line (issue 18). Read with the derived form; a test holds
/// both to the same JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct LoggedAction {
    /// The room event number of the first event this action produced.
    pub event: u64,
    /// The action, as the rules crate applies it (a `plyyard` game's actions are of Red and
    /// Yellow only, and read the same as [`Action`]s).
    #[serde(flatten)]
    pub action: TableAction,
    /// Whether a later undo took the action back (computer and local games only). Undone
    /// actions stay in the log; a replay skips them, except undone rolls, which still consumed a
    /// value of the die stream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undone: bool,
}

impl Serialize for LoggedAction {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The flat object, field by field in the derived form's order.
        #[derive(Serialize)]
        struct Flat {
            event: u64,
            action: &'static str,
            colour: Side,
            #[serde(skip_serializing_if = "Option::is_none")]
            value: Option<Die>,
            #[serde(skip_serializing_if = "Option::is_none")]
            plane: Option<Plane>,
            #[serde(skip_serializing_if = "Option::is_none")]
            reason: Option<Forfeit>,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            undone: bool,
        }
        let mut flat = Flat {
            event: self.event,
            action: self.action.name(),
            colour: self.action.side(),
            value: None,
            plane: None,
            reason: None,
            undone: self.undone,
        };
        match self.action {
            TableAction::Roll { value, .. } => flat.value = Some(value),
            TableAction::Move { plane, .. } => flat.plane = Some(plane),
            TableAction::Forfeit { reason, .. } => flat.reason = Some(reason),
            TableAction::Resign { .. }
            | TableAction::OfferDraw { .. }
            | TableAction::AcceptDraw { .. }
            | TableAction::DeclineDraw { .. }
            | TableAction::WithdrawDraw { .. } => {}
        }
        flat.serialize(serializer)
    }
}

impl LoggedAction {
    /// Appends the action's JSON to `out`: the very text its [`Serialize`] form gives through
    /// `serde_json` (a test holds the two to every action), for the paths that write every
    /// action of every game: the journal's lines, the outbox's record
    /// ([`GameRecord::to_json_vec`]) and the store's row ([`actions_json`]).
    ///
    /// Written out (`text.rs`) because `serde_json` copies every key and name byte by byte
    /// through its escape table, and these are a few fixed ASCII words: its serializer took
    /// about 1,000 instructions an action, and every action was written three times (the
    /// journal's line, the outbox's record, the store's row; issue 18).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        self.write_to(out);
    }

    /// [`LoggedAction::write_json`] to any [`text::Out`].
    fn write_to(&self, out: &mut impl text::Out) {
        out.put("{\"event\":");
        text::number(out, self.event);
        out.put(",\"action\":");
        // `TableAction::NAMES` quoted, one constant per arm (see `text::quoted`); the tests hold
        // each to its name.
        match self.action {
            TableAction::Roll { .. } => text::quoted(out, "\"roll\""),
            TableAction::Move { .. } => text::quoted(out, "\"move\""),
            TableAction::Resign { .. } => text::quoted(out, "\"resign\""),
            TableAction::OfferDraw { .. } => text::quoted(out, "\"offer_draw\""),
            TableAction::AcceptDraw { .. } => text::quoted(out, "\"accept_draw\""),
            TableAction::DeclineDraw { .. } => text::quoted(out, "\"decline_draw\""),
            TableAction::WithdrawDraw { .. } => text::quoted(out, "\"withdraw_draw\""),
            TableAction::Forfeit { .. } => text::quoted(out, "\"forfeit\""),
        }
        out.put(",\"colour\":");
        text::side(out, self.action.side());
        match self.action {
            TableAction::Roll { value, .. } => {
                out.put(",\"value\":");
                text::digit(out, value.value());
            }
            TableAction::Move { plane, .. } => {
                out.put(",\"plane\":");
                text::digit(out, plane.number());
            }
            TableAction::Forfeit { reason, .. } => {
                out.put(",\"reason\":");
                match reason {
                    Forfeit::Abandoned => text::quoted(out, "\"abandoned\""),
                    Forfeit::Timeout => text::quoted(out, "\"timeout\""),
                }
            }
            TableAction::Resign { .. }
            | TableAction::OfferDraw { .. }
            | TableAction::AcceptDraw { .. }
            | TableAction::DeclineDraw { .. }
            | TableAction::WithdrawDraw { .. } => {}
        }
        if self.undone {
            out.put(",\"undone\":true");
        }
        out.put("}");
    }
}

impl GameRecord {
    /// The record as JSON: `serde_json`'s text of it, byte for byte (a test holds the two
    /// together), with the action log written by [`actions_json`]. What the outbox writes to
    /// disk for every finished game, where `serde_json` spent about 1,000 instructions per
    /// action on the log (issue 18).
    ///
    /// The log is taken out while the rest of the record goes through `serde_json`, which
    /// writes it as `"actions":[]`, and is then written in that place. That text occurs once:
    /// an unescaped `"` followed by `actions":` is the key `actions`, the record's own field
    /// (no other part of a record has one), and inside a JSON string every `"` is escaped.
    pub fn to_json_vec(&mut self) -> serde_json::Result<Vec<u8>> {
        const EMPTY: &[u8] = b"\"actions\":[]";
        let actions = std::mem::take(&mut self.actions);
        let rest = serde_json::to_vec(&*self);
        self.actions = actions;
        let rest = rest?;
        let at = rest
            .windows(EMPTY.len())
            .position(|window| window == EMPTY)
            .expect("a record's JSON has its action log");
        let opened = at + EMPTY.len() - 2;
        let mut out = Vec::with_capacity(rest.len() + self.actions.len() * ACTION_BYTES);
        out.extend_from_slice(&rest[..opened]);
        write_actions(&mut out, &self.actions);
        out.extend_from_slice(&rest[opened + 2..]);
        Ok(out)
    }
}

/// A little more than a typical action's JSON, so that the text of a log rarely grows.
const ACTION_BYTES: usize = 56;

/// Appends the JSON array of `actions` to `out`.
fn write_actions(out: &mut impl text::Out, actions: &[LoggedAction]) {
    out.put("[");
    for (index, logged) in actions.iter().enumerate() {
        if index > 0 {
            out.put(",");
        }
        logged.write_to(out);
    }
    out.put("]");
}

/// A game's action log as a JSON array: the text `serde_json` gives for the slice, written
/// with [`LoggedAction::write_json`] (the stores keep it as one column).
pub fn actions_json(actions: &[LoggedAction]) -> String {
    let mut out = String::with_capacity(2 + actions.len() * ACTION_BYTES);
    write_actions(&mut out, actions);
    out
}

/// The fairness fields of `fairness.md`: everything needed to re-derive every roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FairnessRecord {
    /// The scheme version: `v1` for two-player `plyyard`, `v2` for every other game.
    pub scheme: String,
    /// `hex(SHA-256(server_seed))`, published before the first roll.
    pub commitment: String,
    /// The server seed, revealed at game over (lower-case hex).
    pub server_seed: String,
    /// Red's client seed (empty if none was given).
    pub red_seed: String,
    /// Yellow's client seed (empty if none was given).
    pub yellow_seed: String,
    /// Blue's client seed, in games that seat Blue (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blue_seed: Option<String>,
    /// Green's client seed, in games that seat Green (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub green_seed: Option<String>,
}

impl FairnessRecord {
    /// The client seed of `side`, if it is seated.
    pub fn seed(&self, side: Side) -> Option<&str> {
        match side {
            Side::Red => Some(&self.red_seed),
            Side::Yellow => Some(&self.yellow_seed),
            Side::Blue => self.blue_seed.as_deref(),
            Side::Green => self.green_seed.as_deref(),
        }
    }
}

/// The newest format of [`GameRecord`]s this build writes and reads.
///
/// Format 1 is the first: the record as it was before it carried a format, which is why a
/// record without the field reads as format 1; two-player `plyyard` games are still written in
/// it. Format 2 ([`TABLE_FORMAT`]) is the record of every other game. A change to what a record
/// holds or means takes the next number, and the readers of older formats stay.
pub const RECORD_FORMAT: u32 = 2;

/// The format of a two-player `plyyard` game's record: 1, unchanged since records had a format.
pub const PLYYARD_FORMAT: u32 = 1;

/// The format of the record of every other game (another edition, or three or four players).
pub const TABLE_FORMAT: u32 = 2;

/// The format of a record that does not say (it was written before records carried one).
const UNVERSIONED_FORMAT: u32 = 1;

/// Everything kept about one finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GameRecord {
    /// The record's format: [`RECORD_FORMAT`] when written by this build; 1 when absent (a
    /// record written before records carried a format). A reader refuses a newer format.
    #[serde(default = "unversioned_format", deserialize_with = "known_format")]
    #[schema(minimum = 1)]
    pub format: u32,
    /// The game's id (the id of the room it was played in).
    pub id: Uuid,
    /// The edition: `plyyard`, `flights` or `classic`.
    pub ruleset: String,
    /// Format 2: the edition's house rules that were on, by name (`jump-after-shortcut`);
    /// absent when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub house_rules: Vec<String>,
    /// The kind of room.
    pub mode: Mode,
    /// When the room was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When both seats were taken and the game started.
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    /// When the game ended.
    #[serde(with = "time::serde::rfc3339")]
    pub ended_at: OffsetDateTime,
    /// The seats.
    pub players: Players,
    /// Whether the game counts for the players' ratings: an online game between two different
    /// identified players that ended with a result. Absent (false) otherwise, and in records
    /// written before ratings existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// How it ended.
    pub result: ResultRecord,
    /// Rolls made (undone ones included: each consumed a die value).
    pub rolls: u32,
    /// Plane moves made and not undone.
    pub moves: u32,
    /// Every action in order.
    pub actions: Vec<LoggedAction>,
    /// The dice seeds and commitment.
    pub fairness: FairnessRecord,
}

fn unversioned_format() -> u32 {
    UNVERSIONED_FORMAT
}

/// Reads `format`, refusing a format this build does not know.
fn known_format<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let format = u32::deserialize(deserializer)?;
    match format {
        1..=RECORD_FORMAT => Ok(format),
        0 => Err(serde::de::Error::custom(
            "game record format 0 does not exist (the first is 1)",
        )),
        newer => Err(serde::de::Error::custom(format_args!(
            "game record format {newer} is newer than this reader knows (up to {RECORD_FORMAT})"
        ))),
    }
}

impl GameRecord {
    /// The format a record of `rules` with `players` seats is written in: 1 for two-player
    /// `plyyard`, 2 for everything else.
    pub const fn format_for(rules: Rules, players: usize) -> u32 {
        match (rules.ruleset(), players) {
            (Ruleset::Plyyard, 2) => PLYYARD_FORMAT,
            _ => TABLE_FORMAT,
        }
    }

    /// The edition with its house rules, as the record names them.
    pub fn rules(&self) -> Result<Rules, RecordRulesError> {
        let unknown = || {
            let mut name = self.ruleset.clone();
            for rule in &self.house_rules {
                name.push('+');
                name.push_str(rule);
            }
            RecordRulesError(name)
        };
        let ruleset: Ruleset = self.ruleset.parse().map_err(|_| unknown())?;
        Rules::with_house_rules(ruleset, &self.house_rules).map_err(|_| unknown())
    }

    /// Whether this is a two-player `plyyard` game (the [`Game`] of the rules crate).
    pub fn is_plyyard(&self) -> bool {
        self.ruleset == Ruleset::Plyyard.as_str()
            && self.house_rules.is_empty()
            && self.players.count() == 2
    }

    /// Every roll value in order (undone rolls included), as the die stream produced them.
    pub fn roll_values(&self) -> Vec<Die> {
        self.actions
            .iter()
            .filter_map(|logged| match logged.action {
                TableAction::Roll { value, .. } => Some(value),
                _ => None,
            })
            .collect()
    }

    /// The actions that stand (not undone), in order: the log a replay applies.
    pub fn standing_actions(&self) -> impl Iterator<Item = TableAction> + '_ {
        self.actions
            .iter()
            .filter(|logged| !logged.undone)
            .map(|logged| logged.action)
    }

    /// Replays a two-player `plyyard` record through the rules crate's [`Game`]. An action of a
    /// colour `plyyard` does not seat is refused at its index as not the player's turn.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut game = Game::new();
        for (index, action) in self.standing_actions().enumerate() {
            let Some(action) = action.to_plyyard() else {
                return Err(ReplayError {
                    index,
                    action: Action::Resign {
                        colour: Colour::Red,
                    },
                    error: aeroplane_rules::RuleError::NotYourTurn,
                });
            };
            game.apply(action).map_err(|error| ReplayError {
                index,
                action,
                error,
            })?;
        }
        Ok(game)
    }

    /// Replays a record of any edition and player count through the rules crate's [`Table`].
    pub fn replay_table(&self) -> Result<Table, RecordReplayError> {
        let rules = self.rules()?;
        Ok(Table::replay(
            rules,
            self.players.count(),
            self.standing_actions(),
        )?)
    }
}

/// A record whose `ruleset` and `house_rules` name no edition this build plays.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an edition this build plays")]
pub struct RecordRulesError(pub String);

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordReplayError {
    /// The edition is unknown.
    #[error(transparent)]
    Rules(#[from] RecordRulesError),
    /// The seats or an action were refused by the rules.
    #[error(transparent)]
    Refused(#[from] TableReplayError),
}

#[cfg(test)]
mod tests;
