//! `aeroplane-server`: parse the settings, set up logging, open the store, serve until SIGTERM
//! or Ctrl-C, then shut down gracefully. `aeroplane-server probe <url>` is the healthcheck tool.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use aeroplane_server::Config;
use aeroplane_server::config::{Command, LogFormat};
use aeroplane_server::logging::FlatJson;
use aeroplane_store::{GameStore, PostgresStore};
use anyhow::Context;
use clap::Parser;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::JsonFields;

fn main() -> ExitCode {
    let config = Config::parse();
    if let Some(Command::Probe { url, timeout_ms }) = &config.command {
        return probe(url, Duration::from_millis(*timeout_ms));
    }
    init_logging(&config);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("aeroplane-server: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "aeroplane-server failed");
            eprintln!("aeroplane-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn probe(url: &str, timeout: Duration) -> ExitCode {
    match aeroplane_server::probe::get_status(url, timeout) {
        Ok(status) if (200..300).contains(&status) => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("{url} answered {status}");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(config: &Config) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&config.log_level));
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match config.log_format {
        LogFormat::Json => logs
            .fmt_fields(JsonFields::new())
            .event_format(FlatJson)
            .init(),
        LogFormat::Pretty => logs.init(),
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    let store = open_store(&config).await?;
    let server = aeroplane_server::serve(config, store).await?;
    println!("aeroplane-server listening on http://{}", server.addr());
    wait_for_signal().await?;
    tracing::info!("shutting down");
    server.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}

/// PostgreSQL for a `postgres://` URL (connecting lazily, so the server listens at once while
/// the database is down and its outbox keeps finished games meanwhile; the first ping runs in
/// the background only to say so in the log), otherwise what `aeroplane_store::open` picks: the
/// SQLite file in the data directory by default.
async fn open_store(config: &Config) -> anyhow::Result<Arc<dyn GameStore>> {
    let url = config.database_url();
    if let Some(url) =
        url.filter(|url| url.starts_with("postgres://") || url.starts_with("postgresql://"))
    {
        let store = Arc::new(PostgresStore::connect_lazy(url).context("DATABASE_URL")?);
        let first_ping = store.clone();
        tokio::spawn(async move {
            if let Err(error) = first_ping.ping().await {
                tracing::warn!(%error, "the database does not answer yet; finished games wait in the outbox");
            }
        });
        return Ok(store);
    }
    aeroplane_store::open(url, &config.data_dir)
        .await
        .with_context(|| {
            format!(
                "failed to open the store (data directory {})",
                config.data_dir.display()
            )
        })
}

async fn wait_for_signal() -> anyhow::Result<()> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .context("failed to listen for SIGTERM")?;
    tokio::select! {
        _ = terminate.recv() => tracing::info!("SIGTERM"),
        result = tokio::signal::ctrl_c() => {
            result.context("failed to wait for Ctrl-C")?;
            tracing::info!("Ctrl-C");
        }
    }
    Ok(())
}
