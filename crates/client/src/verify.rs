//! Checking a stored game without trusting the server: its dice (`fairness.md`) and its moves.
//!
//! [`verify_record`] first checks that the record describes a game this client can replay (a
//! known edition, a player count it seats, the seats and the dice scheme that go with them), then
//! recomputes the commitment from the revealed server seed, re-derives the game key from the
//! seeds (scheme `v1` for a two-player `plyyard` game, `v2` for every other), replays the die
//! stream against every recorded roll, and replays the standing actions through the rules crate:
//! a two-player `plyyard` game through [`Game`](aeroplane_rules::Game), exactly as before format 2,
//! every other game through [`Table`], whose final position must give every seat the place the
//! record says.

use std::fmt;

use aeroplane_dice::{ClientSeed, Commitment, GameKey, KEY_ORDER, Scheme, SeedError, ServerSeed};
use aeroplane_protocol::record::{GameRecord, Places, ResultRecord};
use aeroplane_rules::{
    EndReason, ReplayError, RuleError, Rules, Side, Table, TableAction, TableReplayError,
};
use uuid::Uuid;

use crate::render::ranking;

/// What a successful verification established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// The game's id.
    pub id: Uuid,
    /// The edition with its house rules.
    pub rules: Rules,
    /// How many players sat at the table (2 to 4).
    pub players: usize,
    /// The dice scheme the game key was derived by.
    pub scheme: Scheme,
    /// The published commitment, which the revealed server seed hashes to.
    pub commitment: String,
    /// The game key derived from the seeds (lower-case hex).
    pub key: String,
    /// How many rolls were re-derived from the seeds and matched.
    pub rolls: usize,
    /// How many plane moves the replay applied.
    pub moves: usize,
    /// How many actions stand (are not undone) and were replayed.
    pub actions: usize,
    /// The result the replay reached, equal to the recorded one (with every seat's place for a
    /// game other than two-player `plyyard`).
    pub result: ResultRecord,
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = match self.result.winner {
            Some(winner) => format!("{winner} won ({})", self.result.reason.as_str()),
            None => format!("draw ({})", self.result.reason.as_str()),
        };
        writeln!(f, "game {}: verified", self.id)?;
        writeln!(
            f,
            "  edition     {}, {} players, dice scheme {}",
            self.rules,
            self.players,
            self.scheme.as_str()
        )?;
        writeln!(
            f,
            "  commitment  {} = SHA-256(server seed)",
            self.commitment
        )?;
        writeln!(f, "  game key    {}", self.key)?;
        writeln!(
            f,
            "  rolls       {} of {} match the die stream",
            self.rolls, self.rolls
        )?;
        writeln!(
            f,
            "  replay      {} actions, {} moves, all legal",
            self.actions, self.moves
        )?;
        write!(f, "  result      {result}, as recorded")?;
        if let Some(places) = &self.result.places {
            let sides = Rules::seating(self.players).iter().copied();
            write!(f, "\n  places      {}, as recorded", ranking(places, sides))?;
        }
        Ok(())
    }
}

/// Why a game record failed verification; each kind of tampering has its own variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The record uses a fairness scheme this client does not know.
    #[error("unknown fairness scheme `{0}` (this client verifies `v1` and `v2`)")]
    UnknownScheme(String),
    /// The record names a known scheme, but not the one its game is keyed by (`fairness.md`:
    /// `v1` for two-player `plyyard`, `v2` for every other game).
    #[error(
        "the record names dice scheme `{recorded}`, but a {players}-player {rules} game uses `{}`",
        expected.as_str()
    )]
    WrongScheme {
        /// The scheme in the record.
        recorded: String,
        /// The scheme the game is keyed by.
        expected: Scheme,
        /// The edition, as the record names it.
        rules: String,
        /// How many seats the record has.
        players: usize,
    },
    /// The record is for a ruleset (with house rules) this client does not know.
    #[error("unknown ruleset `{0}` (this client replays plyyard, flights and classic)")]
    UnknownRuleset(String),
    /// The edition does not seat the record's number of players.
    #[error("{rules} is not played by {players} players")]
    UnsupportedPlayers {
        /// The edition, as the record names it.
        rules: String,
        /// How many seats the record has.
        players: usize,
    },
    /// The seats are not the colours that play at that count (2: Red, Yellow; 3: and Blue; 4:
    /// and Green).
    #[error(
        "a {players}-player game seats {}, but the record seats other colours",
        seating_text(*players)
    )]
    WrongSeats {
        /// How many seats the record has.
        players: usize,
    },
    /// The record's format is not the one its game is written in.
    #[error(
        "a {players}-player {rules} game is written in record format {expected}, not {recorded}"
    )]
    WrongFormat {
        /// The format in the record.
        recorded: u32,
        /// The format of such a game.
        expected: u32,
        /// The edition, as the record names it.
        rules: String,
        /// How many seats the record has.
        players: usize,
    },
    /// A seated colour has no client seed.
    #[error("{0} is seated but the record has no {seed} seed", seed = .0.as_str())]
    MissingSeed(Side),
    /// A colour that does not play has a client seed.
    #[error("the record has a {seed} seed, but {0} does not play", seed = .0.as_str())]
    UnexpectedSeed(Side),
    /// A fairness field could not be read.
    #[error("the {field} field is malformed: {source}")]
    MalformedField {
        /// Which field.
        field: &'static str,
        /// What is wrong with it.
        source: SeedError,
    },
    /// The revealed server seed does not hash to the published commitment.
    #[error("the revealed server seed does not hash to the commitment {commitment}")]
    CommitmentMismatch {
        /// The published commitment.
        commitment: String,
    },
    /// A recorded roll is not the value the seeds give.
    #[error("roll {index} was recorded as {recorded}, but the seeds give {expected}")]
    RollMismatch {
        /// Position of the roll in the game, from 0.
        index: usize,
        /// The value in the record.
        recorded: u8,
        /// The value the die stream gives.
        expected: u8,
    },
    /// The rules refused an action of a two-player `plyyard` log.
    #[error("the replay refused {0}")]
    IllegalAction(ReplayError),
    /// The rules refused an action of the log of any other game.
    #[error("the replay refused action {index} ({action:?}): {error}")]
    IllegalTableAction {
        /// The position of the refused action among the standing actions, from 0.
        index: usize,
        /// The refused action.
        action: TableAction,
        /// Why the rules refused it.
        error: RuleError,
    },
    /// The replay ended without the game being over.
    #[error("after every recorded action the game is still live, but the record says it ended")]
    NotOver,
    /// The replay ended with another result than the recorded one.
    #[error("the replay ends in {replayed}, but the record says {recorded}")]
    ResultMismatch {
        /// The result the replay reached.
        replayed: String,
        /// The result in the record.
        recorded: String,
    },
    /// A game other than two-player `plyyard` whose result ranks nobody.
    #[error("the record's result has no places, but every seat of this game has one")]
    MissingPlaces,
    /// The replay gives a colour another place than the record.
    #[error(
        "the replay places {colour} {}, but the record says {}",
        place_text(*replayed),
        place_text(*recorded)
    )]
    PlaceMismatch {
        /// The colour whose place differs.
        colour: Side,
        /// The place in the record.
        recorded: Option<u8>,
        /// The place the replay gives.
        replayed: Option<u8>,
    },
    /// The record's roll or move count disagrees with its action log.
    #[error("the record counts {recorded} {what}, but its action log has {logged}")]
    CountMismatch {
        /// `rolls` or `moves`.
        what: &'static str,
        /// The count in the record.
        recorded: u32,
        /// The count in the action log.
        logged: usize,
    },
}

/// Verifies a finished game's dice and moves; see the module documentation for the steps.
pub fn verify_record(record: &GameRecord) -> Result<VerifyReport, VerifyError> {
    let game = GameShape::of(record)?;
    let fairness = &record.fairness;
    let malformed = |field| move |source| VerifyError::MalformedField { field, source };
    let commitment: Commitment = fairness
        .commitment
        .parse()
        .map_err(malformed("commitment"))?;
    let server: ServerSeed = fairness
        .server_seed
        .parse()
        .map_err(malformed("server_seed"))?;
    let key = game_key(record, &game, &server)?;

    let rolls = record.roll_values();
    aeroplane_dice::verify_with_key(&commitment, &server, key, rolls.iter().copied()).map_err(
        |error| match error {
            aeroplane_dice::VerifyError::CommitmentMismatch => VerifyError::CommitmentMismatch {
                commitment: fairness.commitment.clone(),
            },
            aeroplane_dice::VerifyError::RollMismatch {
                index,
                recorded,
                expected,
            } => VerifyError::RollMismatch {
                index,
                recorded: recorded.value(),
                expected: expected.value(),
            },
        },
    )?;
    check_count("rolls", record.rolls, rolls.len())?;
    let moves = record
        .standing_actions()
        .filter(|a| matches!(a, TableAction::Move { .. }))
        .count();
    check_count("moves", record.moves, moves)?;

    let result = match game.scheme {
        Scheme::V1 => replay_plyyard(record)?,
        Scheme::V2 => replay_table(record, &game)?,
    };
    Ok(VerifyReport {
        id: record.id,
        rules: game.rules,
        players: game.players,
        scheme: game.scheme,
        commitment: commitment.to_string(),
        key: key.to_hex(),
        rolls: rolls.len(),
        moves,
        actions: record.standing_actions().count(),
        result,
    })
}

/// What the record says the game was, checked for consistency before any seed is read.
struct GameShape {
    rules: Rules,
    players: usize,
    scheme: Scheme,
}

impl GameShape {
    /// The edition, seats, format and scheme of `record`, refused if they do not fit together.
    fn of(record: &GameRecord) -> Result<GameShape, VerifyError> {
        let rules = record
            .rules()
            .map_err(|error| VerifyError::UnknownRuleset(error.0))?;
        let players = record.players.count();
        if !rules.allows_players(players) {
            return Err(VerifyError::UnsupportedPlayers {
                rules: rules.to_string(),
                players,
            });
        }
        let seated = Side::ALL
            .into_iter()
            .filter(|side| record.players.seat(*side).is_some());
        if !seated.eq(Rules::seating(players).iter().copied()) {
            return Err(VerifyError::WrongSeats { players });
        }
        let scheme = Scheme::for_game(rules.ruleset(), players);
        let recorded = record.fairness.scheme.as_str();
        if recorded != Scheme::V1.as_str() && recorded != Scheme::V2.as_str() {
            return Err(VerifyError::UnknownScheme(recorded.to_owned()));
        }
        if recorded != scheme.as_str() {
            return Err(VerifyError::WrongScheme {
                recorded: recorded.to_owned(),
                expected: scheme,
                rules: rules.to_string(),
                players,
            });
        }
        let format = GameRecord::format_for(rules, players);
        if record.format != format {
            return Err(VerifyError::WrongFormat {
                recorded: record.format,
                expected: format,
                rules: rules.to_string(),
                players,
            });
        }
        Ok(GameShape {
            rules,
            players,
            scheme,
        })
    }
}

/// The game key of the record's scheme, from the seeds of exactly the colours that play.
fn game_key(
    record: &GameRecord,
    game: &GameShape,
    server: &ServerSeed,
) -> Result<GameKey, VerifyError> {
    let seated = Rules::seating(game.players);
    let mut seeds = Vec::with_capacity(seated.len());
    for side in KEY_ORDER {
        match (seated.contains(&side), record.fairness.seed(side)) {
            (true, Some(seed)) => {
                let seed = ClientSeed::new(seed).map_err(|source| VerifyError::MalformedField {
                    field: seed_field(side),
                    source,
                })?;
                seeds.push((side, seed));
            }
            (true, None) => return Err(VerifyError::MissingSeed(side)),
            (false, Some(_)) => return Err(VerifyError::UnexpectedSeed(side)),
            (false, None) => {}
        }
    }
    match game.scheme {
        Scheme::V1 => {
            let [(_, red), (_, yellow)] = seeds.as_slice() else {
                return Err(VerifyError::WrongSeats {
                    players: game.players,
                });
            };
            Ok(GameKey::derive(server, red, yellow))
        }
        Scheme::V2 => {
            let seats: Vec<(Side, &ClientSeed)> =
                seeds.iter().map(|(side, seed)| (*side, seed)).collect();
            GameKey::derive_v2(server, game.rules.ruleset(), &seats).map_err(|_| {
                VerifyError::WrongSeats {
                    players: game.players,
                }
            })
        }
    }
}

/// Replays a two-player `plyyard` record through [`Game`](aeroplane_rules::Game), as before
/// format 2, and checks its winner and reason.
fn replay_plyyard(record: &GameRecord) -> Result<ResultRecord, VerifyError> {
    let game = record.replay().map_err(VerifyError::IllegalAction)?;
    let outcome = game.outcome().ok_or(VerifyError::NotOver)?;
    let replayed = ResultRecord::plyyard(outcome.winner, outcome.reason);
    if replayed != record.result {
        return Err(VerifyError::ResultMismatch {
            replayed: describe(&replayed),
            recorded: describe(&record.result),
        });
    }
    Ok(replayed)
}

/// Replays any other record through [`Table`] and checks its winner, reason and every place.
fn replay_table(record: &GameRecord, game: &GameShape) -> Result<ResultRecord, VerifyError> {
    let table =
        Table::replay(game.rules, game.players, record.standing_actions()).map_err(|error| {
            match error {
                TableReplayError::Refused {
                    index,
                    action,
                    error,
                } => VerifyError::IllegalTableAction {
                    index,
                    action,
                    error,
                },
                TableReplayError::Table(_) => VerifyError::UnsupportedPlayers {
                    rules: game.rules.to_string(),
                    players: game.players,
                },
            }
        })?;
    let replayed = ResultRecord::of_table(&table).ok_or(VerifyError::NotOver)?;
    let recorded = &record.result;
    if (replayed.winner, replayed.reason) != (recorded.winner, recorded.reason) {
        return Err(VerifyError::ResultMismatch {
            replayed: describe(&replayed),
            recorded: describe(recorded),
        });
    }
    let recorded_places = recorded.places.ok_or(VerifyError::MissingPlaces)?;
    let replayed_places = replayed.places.unwrap_or_default();
    check_places(&recorded_places, &replayed_places)?;
    Ok(replayed)
}

/// The first colour (in turn order) whose place differs.
fn check_places(recorded: &Places, replayed: &Places) -> Result<(), VerifyError> {
    for colour in Side::ALL {
        let (recorded, replayed) = (recorded.get(colour), replayed.get(colour));
        if recorded != replayed {
            return Err(VerifyError::PlaceMismatch {
                colour,
                recorded,
                replayed,
            });
        }
    }
    Ok(())
}

fn check_count(what: &'static str, recorded: u32, logged: usize) -> Result<(), VerifyError> {
    if usize::try_from(recorded).ok() == Some(logged) {
        Ok(())
    } else {
        Err(VerifyError::CountMismatch {
            what,
            recorded,
            logged,
        })
    }
}

/// The name of a colour's seed field in the record, for error messages.
const fn seed_field(side: Side) -> &'static str {
    match side {
        Side::Red => "red_seed",
        Side::Green => "green_seed",
        Side::Yellow => "yellow_seed",
        Side::Blue => "blue_seed",
    }
}

/// The colours that play at `players`, in words.
const fn seating_text(players: usize) -> &'static str {
    match players {
        2 => "Red and Yellow",
        3 => "Red, Yellow and Blue",
        _ => "Red, Green, Yellow and Blue",
    }
}

fn place_text(place: Option<u8>) -> String {
    match place {
        Some(place) => format!("place {place}"),
        None => "no place".to_owned(),
    }
}

fn describe(result: &ResultRecord) -> String {
    match (result.winner, result.reason) {
        (None, EndReason::Agreed) => "an agreed draw".to_owned(),
        (None, reason) => format!("a draw ({})", reason.as_str()),
        (Some(winner), reason) => format!("a win for {winner} ({})", reason.as_str()),
    }
}
