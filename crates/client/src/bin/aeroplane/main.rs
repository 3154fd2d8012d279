//! `aeroplane`: play, watch, verify and load-test an Aeroplane Chess server from a terminal.

mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Play, watch, verify and load-test an Aeroplane Chess server from a terminal.
#[derive(Debug, Parser)]
#[command(name = "aeroplane", version)]
struct Cli {
    /// The server's base URL.
    #[arg(
        long,
        global = true,
        env = "AEROPLANE_SERVER",
        default_value = "http://127.0.0.1:8080"
    )]
    server: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a finished game's fairness (commitment, seeds, every roll) and replay its moves
    /// through the rules; exits 0 only if everything matches.
    Verify(verify::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("failed to start the tokio runtime");
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Verify(args) => verify::run(&cli.server, args).await,
        }
    });
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
