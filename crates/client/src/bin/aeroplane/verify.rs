//! `aeroplane verify GAME_ID|FILE`.

use std::path::Path;
use std::process::ExitCode;

use aeroplane_client::{Api, verify_record};
use aeroplane_protocol::record::GameRecord;
use anyhow::Context as _;
use uuid::Uuid;

/// Arguments of `aeroplane verify`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A finished game's id (fetched from the server's `GET /api/games/{id}`), or the path of a
    /// game record saved as JSON (any edition: plyyard, flights or classic, with 2 to 4 players).
    game: String,
}

/// Exit codes: 0 verified, 1 the record does not verify, 2 the record could not be read.
pub(crate) async fn run(server: &str, args: Args) -> anyhow::Result<ExitCode> {
    let record = load(server, &args.game).await?;
    match verify_record(&record) {
        Ok(report) => {
            println!("{report}");
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            println!("game {}: NOT verified: {error}", record.id);
            Ok(ExitCode::from(1))
        }
    }
}

/// Reads the record from a file if `game` names one, else fetches it by id.
pub(crate) async fn load(server: &str, game: &str) -> anyhow::Result<GameRecord> {
    let path = Path::new(game);
    if path.exists() {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("failed to read {}", path.display()))?;
        return serde_json::from_str(&text)
            .with_context(|| format!("{} is not a game record", path.display()));
    }
    let id: Uuid = game
        .parse()
        .with_context(|| format!("`{game}` is neither a file nor a game id"))?;
    let api = Api::new(server)?;
    api.game(id)
        .await
        .with_context(|| format!("failed to fetch game {id}"))
}
