//! Checking a stored game without trusting the server: its dice (`fairness.md`) and its moves.
//!
//! [`verify_record`] recomputes the commitment from the revealed server seed, re-derives the game
//! key from the seeds, replays the die stream against every recorded roll, then replays the
//! standing actions through the rules crate and checks that they end the way the record says.

use std::fmt;

use aeroplane_dice::{ClientSeed, Commitment, GameKey, SCHEME, SeedError, ServerSeed};
use aeroplane_protocol::record::{GameRecord, ResultRecord};
use aeroplane_rules::{EndReason, RULESET, ReplayError, TableAction};
use uuid::Uuid;

/// What a successful verification established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// The game's id.
    pub id: Uuid,
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
    /// The result the replay reached, equal to the recorded one.
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
        write!(f, "  result      {result}, as recorded")
    }
}

/// Why a game record failed verification; each kind of tampering has its own variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The record uses a fairness scheme this client does not know.
    #[error("unknown fairness scheme `{0}` (this client verifies `{SCHEME}`)")]
    UnknownScheme(String),
    /// The record is for a ruleset this client does not know.
    #[error("unknown ruleset `{0}` (this client replays `{RULESET}`)")]
    UnknownRuleset(String),
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
    /// The rules refused an action of the log.
    #[error("the replay refused {0}")]
    IllegalAction(ReplayError),
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
    let fairness = &record.fairness;
    if fairness.scheme != SCHEME {
        return Err(VerifyError::UnknownScheme(fairness.scheme.clone()));
    }
    if record.ruleset != RULESET {
        return Err(VerifyError::UnknownRuleset(record.ruleset.clone()));
    }
    let malformed = |field| move |source| VerifyError::MalformedField { field, source };
    let commitment: Commitment = fairness
        .commitment
        .parse()
        .map_err(malformed("commitment"))?;
    let server: ServerSeed = fairness
        .server_seed
        .parse()
        .map_err(malformed("server_seed"))?;
    let red = ClientSeed::new(fairness.red_seed.as_str()).map_err(malformed("red_seed"))?;
    let yellow =
        ClientSeed::new(fairness.yellow_seed.as_str()).map_err(malformed("yellow_seed"))?;

    let rolls = record.roll_values();
    aeroplane_dice::verify(&commitment, &server, &red, &yellow, rolls.iter().copied()).map_err(
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

    let game = record.replay().map_err(VerifyError::IllegalAction)?;
    let outcome = game.outcome().ok_or(VerifyError::NotOver)?;
    let replayed = ResultRecord::plyyard(outcome.winner, outcome.reason);
    if replayed != record.result {
        return Err(VerifyError::ResultMismatch {
            replayed: describe(&replayed),
            recorded: describe(&record.result),
        });
    }
    Ok(VerifyReport {
        id: record.id,
        commitment: commitment.to_string(),
        key: GameKey::derive(&server, &red, &yellow).to_hex(),
        rolls: rolls.len(),
        moves,
        actions: record.standing_actions().count(),
        result: replayed,
    })
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

fn describe(result: &ResultRecord) -> String {
    match (result.winner, result.reason) {
        (None, EndReason::Agreed) => "an agreed draw".to_owned(),
        (None, reason) => format!("a draw ({})", reason.as_str()),
        (Some(winner), reason) => format!("a win for {winner} ({})", reason.as_str()),
    }
}
